package convert

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/hprof"
	"github.com/hprof2pprof/hprof2pprof/convert/source"
)

// TestCompressedCopyServesRereads: a single-stream gzip dump (a user's
// `gzip dump.hprof`) converted with the retained view keeps its
// decompressed stream in a file, so the passes that read the input again
// never open the compressed file: the reopen function is not called.
// The views are byte for byte those of the path that decompresses again,
// for the whole file and for one cut inside a record (its damage
// replayed at the copy's end); the copy's file is gone afterwards.
func TestCompressedCopyServesRereads(t *testing.T) {
	plain, err := os.ReadFile("../testdata/jdk17-zoo-live.hprof")
	if err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(plain)
	zw.Close()
	whole := z.Bytes()
	for _, c := range []struct {
		name string
		data []byte
	}{
		{"whole", whole},
		{"cut", whole[:len(whole)*2/3]},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "dump.hprof.gz")
			if err := os.WriteFile(path, c.data, 0o644); err != nil {
				t.Fatal(err)
			}
			spill := t.TempDir()
			opts := Options{Views: []string{graph.ViewHeap, graph.ViewThreads, graph.ViewRetained}, SpillDir: spill}

			// The path that decompresses again: the stream decoded as
			// convert does it, without the copy.
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			r, compression, prefix, err := source.Decompress(f)
			if err != nil {
				t.Fatal(err)
			}
			first := &Decoded{}
			want, err := first.decodeStream(context.Background(), r, hprof.Again{Reopen: source.Reopen(path)}, compression, prefix, path, opts)
			first.Close()
			if err != nil {
				t.Fatal(err)
			}

			g2, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer g2.Close()
			reopened := 0
			counting := func() (io.ReadCloser, error) {
				reopened++
				return source.Reopen(path)()
			}
			dec := &Decoded{}
			got, err := dec.convert(context.Background(), g2, path, opts, counting)
			dec.Close() // removes the copy
			if err != nil {
				t.Fatal(err)
			}
			if i := slices.IndexFunc(got.Source.Notes, func(n string) bool { return strings.Contains(n, "no copy of the decompressed input") }); i >= 0 {
				t.Skipf("no copy here (a disk near full?): %s", got.Source.Notes[i])
			}
			if reopened != 0 {
				t.Errorf("the compressed input was opened again %d times", reopened)
			}
			if left, _ := os.ReadDir(spill); len(left) != 0 {
				t.Errorf("files left in the directory of the copy: %v", left)
			}
			kept := slices.IndexFunc(got.Source.Notes, func(n string) bool { return strings.Contains(n, "kept in a temporary file") })
			if kept < 0 {
				t.Fatalf("no note of the copy in %q", got.Source.Notes)
			}
			if notes := slices.Delete(slices.Clone(got.Source.Notes), kept, kept+1); !slices.Equal(notes, want.Source.Notes) {
				t.Errorf("notes differ:\n%q\n%q", notes, want.Source.Notes)
			}
			if (got.Damage == nil) != (want.Damage == nil) || (c.name == "cut") != (got.Damage != nil) {
				t.Errorf("damage %v, without the copy %v", got.Damage, want.Damage)
			}
			if want.View(graph.ViewRetained) == nil {
				t.Fatalf("no retained view; notes %q", want.Source.Notes)
			}
			if len(got.Views) != len(want.Views) || !slices.EqualFunc(got.Threads, want.Threads, func(a, b graph.Thread) bool { return a.Name == b.Name }) {
				t.Errorf("%d views and threads %v, without the copy %d and %v", len(got.Views), got.Threads, len(want.Views), want.Threads)
			}
			for _, v := range want.Views {
				if !sameEncoding(t, want, got, v.Name) {
					t.Errorf("%s view differs from the one that decompressed again", v.Name)
				}
			}
		})
	}
}
