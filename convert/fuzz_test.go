package convert

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// fuzzSeedPrefix bounds seeds from big fixtures: the fuzzer mutates the
// first part of each real file. Larger seeds make the fuzzer spend its
// time minimizing instead of running.
const fuzzSeedPrefix = 8 << 10

// fileSeeds returns the first fuzzSeedPrefix bytes of every file in
// testdata.
func fileSeeds() [][]byte {
	files, _ := filepath.Glob("../testdata/*")
	var out [][]byte
	for _, p := range files {
		if fi, err := os.Stat(p); err != nil || fi.IsDir() {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		out = append(out, b[:min(len(b), fuzzSeedPrefix)])
	}
	return out
}

func addFileSeeds(f *testing.F) {
	for _, b := range fileSeeds() {
		f.Add(b)
	}
}

// FuzzConvert feeds arbitrary bytes through input detection and the
// decoders: no panic, no hang, and a small input never makes the process
// allocate much.
func FuzzConvert(f *testing.F) {
	addFileSeeds(f)
	f.Add(newHprofFile().record(0x1C, be(uint8(0x21), uint64(1), uint32(0), uint64(2), uint32(4), uint32(7))).Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		g, err := Convert(ctx, bytes.NewReader(data), "fuzz", Options{})
		if ctx.Err() != nil {
			t.Fatalf("decoding %d bytes took longer than 10s", len(data))
		}
		checkFuzzMemory(t, len(data), &before, g)
		if err == nil && g == nil {
			t.Fatal("no graph and no error")
		}
	})
}
