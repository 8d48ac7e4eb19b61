package convert

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/hprof2pprof/hprof2pprof/convert/hprof"
	"github.com/hprof2pprof/hprof2pprof/pprofout"
)

// FuzzStream feeds arbitrary bytes to the live stream decoder the agent
// uses: no panic, every step consumes input or stops, every window it
// cuts is a valid profile, errors are typed, and a small stream keeps
// little memory alive.
func FuzzStream(f *testing.F) {
	raws, _ := filepath.Glob("../testdata/*.raw")
	for _, p := range append(raws, "../testdata/cpu-samples.cpuwork.jdk17.hprof", "../testdata/heap-sites.allocwork.jdk17.hprof") {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		f.Add(b[:min(len(b), fuzzSeedPrefix)])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		s, err := NewStream(bytes.NewReader(data), StreamOptions{MaxRecord: 1 << 20, MaxState: 8 << 20})
		if err != nil {
			if !errors.Is(err, hprof.ErrNotHPROF) && !errors.Is(err, hprof.ErrUnsupported) && !errors.Is(err, hprof.ErrTruncated) {
				t.Fatalf("untyped header error: %v", err)
			}
			return
		}
		check := func(w *Window) {
			if w == nil {
				return
			}
			for _, v := range w.Graph.Views {
				if _, err := pprofout.Profile(w.Graph, v.Name); err != nil {
					t.Fatalf("window %d view %s: %v", w.Seq, v.Name, err)
				}
			}
		}
		// Each Next reads at least a record header, so a stream of n
		// bytes ends within n/9 + 1 steps.
		for step := 0; ; step++ {
			if step > len(data)/9+2 {
				t.Fatalf("%d steps on %d bytes: the stream does not end", step, len(data))
			}
			w, err := s.Next()
			check(w)
			if err == io.EOF {
				break
			}
			if err != nil {
				if !errors.Is(err, hprof.ErrTruncated) && !errors.Is(err, hprof.ErrCorrupt) &&
					!errors.Is(err, hprof.ErrUnsupported) && !errors.Is(err, ErrLimit) {
					t.Fatalf("untyped error: %v", err)
				}
				break
			}
		}
		check(s.Flush())
		checkFuzzMemory(t, len(data), &before, s)
	})
}
