package convert

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/hprof"
	"github.com/hprof2pprof/hprof2pprof/convert/source"
)

// TestGzipThreadNamesWithoutReading: the thread names of a JDK -gz dump
// whose names come before their thread objects are read back from the
// members that hold them, not by inflating the input again, and equal
// the names the first pass could not give.
func TestGzipThreadNamesWithoutReading(t *testing.T) {
	const path = "../testdata/jdk25-zoo-live.hprof.gz"
	names := func(inflated bool) map[uint64]string {
		t.Helper()
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		zr, ok := source.ParallelGunzip(f)
		if !ok {
			t.Fatal("not the JDK's chunked gzip")
		}
		defer zr.Close()
		var again hprof.Again
		if inflated {
			again.At = membersAt(zr)
		}
		d := &Decoded{}
		defer d.Close()
		g, err := d.convertStream(context.Background(), zr, again, "gzip", path, Options{Views: []string{graph.ViewThreads}})
		if err != nil {
			t.Fatal(err)
		}
		out := map[uint64]string{}
		for _, th := range g.Threads {
			out[th.ObjectID] = th.Name
		}
		return out
	}
	// The first pass alone (no way back into the input) leaves names out:
	// the fixture exercises the name pass.
	first := names(false)
	missing := 0
	for _, n := range first {
		if n == "" {
			missing++
		}
	}
	if missing == 0 {
		t.Fatal("every name was read by the first pass: the fixture does not test the name pass")
	}
	// With the member table, and no way to open the input again: every
	// name, as the conversion of the same dump inflated to a plain file
	// gives them.
	got := names(true)
	plain := filepath.Join(t.TempDir(), "dump.hprof")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw)) // the standard library's inflate
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(plain, b, 0o644); err != nil {
		t.Fatal(err)
	}
	want := map[uint64]string{}
	g := mustConvert(t, plain, Options{Views: []string{graph.ViewThreads}})
	for _, th := range g.Threads {
		want[th.ObjectID] = th.Name
	}
	if len(got) != len(want) || len(got) == 0 {
		t.Fatalf("%d threads, want %d", len(got), len(want))
	}
	for id, n := range want {
		if n == "" {
			t.Errorf("thread 0x%x has no name in the plain conversion", id)
		}
		if got[id] != n {
			t.Errorf("thread 0x%x: %q, want %q", id, got[id], n)
		}
	}
}
