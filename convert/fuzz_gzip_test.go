package convert

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
)

// gzipMembers compresses data as two gzip members split at split, the
// way the JDK's `jcmd GC.heap_dump -gz` writes many members.
func gzipMembers(data []byte, split int) []byte {
	var out bytes.Buffer
	for _, part := range [][]byte{data[:split], data[split:]} {
		zw := gzip.NewWriter(&out)
		zw.Write(part)
		zw.Close()
	}
	return out.Bytes()
}

// summary is what two decodings of the same bytes must agree on.
func summary(g *graph.Graph) string {
	s := fmt.Sprintf("records %v soft %v lost %q damage %v dumps %d", sortedMap(g.Source.Records), sortedMap(g.Soft.Texts()), g.Lost, g.Damage, g.Source.Dumps)
	for _, v := range g.Views {
		s += fmt.Sprintf(" %s%v", v.Name, v.Totals())
	}
	return s
}

func sortedMap(m map[string]int64) string {
	var b bytes.Buffer
	for _, k := range slices.Sorted(maps.Keys(m)) {
		fmt.Fprintf(&b, "%s=%d,", k, m[k])
	}
	return b.String()
}

// FuzzGzip decodes HPROF bytes wrapped in multi-member gzip, optionally
// with one byte of the compressed stream flipped. Intact gzip must give
// exactly what the plain bytes give; damaged gzip must not panic, hang or
// allocate much.
func FuzzGzip(f *testing.F) {
	for _, b := range fileSeeds() {
		f.Add(b, uint16(len(b)/3), uint32(0))
	}
	f.Fuzz(func(t *testing.T, data []byte, split uint16, flip uint32) {
		if len(data) == 0 || len(data) > 1<<20 {
			return
		}
		z := gzipMembers(data, int(split)%len(data))
		if flip != 0 {
			z[int(flip)%len(z)] ^= byte(flip>>24) | 1
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		gz, gzErr := Convert(ctx, bytes.NewReader(z), "fuzz.gz", Options{})
		if ctx.Err() != nil {
			t.Fatalf("decoding %d gzip bytes took longer than 10s", len(z))
		}
		// Bounded by the uncompressed size: gzip itself multiplies.
		checkFuzzMemory(t, len(data), &before, gz)
		if flip != 0 || bytes.HasPrefix(data, []byte{0x1f, 0x8b}) || bytes.HasPrefix(data, []byte("BZh")) {
			return
		}
		plain, plainErr := Convert(ctx, bytes.NewReader(data), "fuzz", Options{})
		if !sameDecoding(t, gz, gzErr, plain, plainErr) {
			return
		}
	})
}

// sameDecoding fails t unless the gzip and plain decodings agree, and
// reports whether they both succeeded (there is more to compare).
func sameDecoding(t *testing.T, gz *graph.Graph, gzErr error, plain *graph.Graph, plainErr error) bool {
	t.Helper()
	if (gzErr == nil) != (plainErr == nil) {
		t.Fatalf("gzip: %v; plain: %v", gzErr, plainErr)
	}
	if gzErr != nil {
		return false
	}
	if a, b := summary(gz), summary(plain); a != b {
		t.Fatalf("gzip and plain decodings differ:\ngzip:  %s\nplain: %s", a, b)
	}
	return true
}

// jdkGzip compresses data as the JDK's `-gz` writes it: members of at
// most block bytes, the first announcing the block size in its comment.
func jdkGzip(data []byte, block int) []byte {
	var out bytes.Buffer
	for i := 0; i == 0 || i < len(data); i += block {
		zw := gzip.NewWriter(&out)
		if i == 0 {
			zw.Comment = fmt.Sprintf("HPROF BLOCKSIZE=%d", block)
		}
		zw.Write(data[i:min(len(data), i+block)])
		zw.Close()
	}
	return out.Bytes()
}

// FuzzGzipChunked converts HPROF bytes as two files, plain and in the
// JDK's chunked -gz format: the plain file is read in spans, the gzip one
// as a stream whose heap records are read back through its member table
// (thread names). Both must give the same decoding and the same thread
// names.
func FuzzGzipChunked(f *testing.F) {
	for _, b := range fileSeeds() {
		f.Add(b, uint16(1024))
	}
	f.Fuzz(func(t *testing.T, data []byte, block uint16) {
		if len(data) == 0 || len(data) > 1<<20 || bytes.HasPrefix(data, []byte{0x1f, 0x8b}) || bytes.HasPrefix(data, []byte("BZh")) {
			return
		}
		dir := t.TempDir()
		plainPath, gzPath := filepath.Join(dir, "d.hprof"), filepath.Join(dir, "d.hprof.gz")
		if os.WriteFile(plainPath, data, 0o644) != nil || os.WriteFile(gzPath, jdkGzip(data, 64+int(block)), 0o644) != nil {
			t.Fatal("writing the inputs")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		gz, gzErr := ConvertFile(ctx, gzPath, Options{})
		plain, plainErr := ConvertFile(ctx, plainPath, Options{})
		if ctx.Err() != nil {
			t.Fatalf("decoding %d bytes took longer than 10s", len(data))
		}
		if !sameDecoding(t, gz, gzErr, plain, plainErr) {
			return
		}
		names := func(g *graph.Graph) string {
			var s []string
			for _, th := range g.Threads {
				s = append(s, fmt.Sprintf("%x=%q", th.ObjectID, th.Name))
			}
			return fmt.Sprint(s)
		}
		if a, b := names(gz), names(plain); a != b {
			t.Fatalf("thread names differ:\ngzip:  %s\nplain: %s", a, b)
		}
	})
}
