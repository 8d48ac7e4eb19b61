package convert

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/internal/testhooks"
	"github.com/hprof2pprof/hprof2pprof/convert/retained"
	"github.com/hprof2pprof/hprof2pprof/pprofout"
)

// TestRetainedSpill forces the retained graph into mapped files and
// requires the same view, byte for byte, as on the heap, from both the
// mapped-span and the streaming fill; the spill directory must be gone
// afterwards.
func TestRetainedSpill(t *testing.T) {
	if !retained.CanSpill {
		t.Skip("this platform keeps the graph on the heap")
	}
	path := filepath.Join("..", "testdata", "jdk17-zoo-live.hprof")
	for _, sequential := range []bool{false, true} {
		t.Run(map[bool]string{false: "spans", true: "stream"}[sequential], func(t *testing.T) {
			convert := func(spillDir string) (*graph.Graph, *testhooks.Retained) {
				probe := &testhooks.Retained{}
				ctx := testhooks.With(context.Background(), testhooks.Hooks{Retained: probe, Sequential: sequential})
				opts := Options{Views: []string{graph.ViewRetained}}
				if spillDir != "" {
					opts.RetainedMemory, opts.SpillDir = -1, spillDir
				}
				g, err := ConvertFile(ctx, path, opts)
				if err != nil {
					t.Fatal(err)
				}
				if probe.Result == nil {
					t.Fatalf("no retained analysis; notes %v", g.Source.Notes)
				}
				return g, probe
			}
			heap, hp := convert("")
			if hp.Result.Spill.Dir != "" {
				t.Fatalf("the small fixture spilled without being asked to: %v", hp.Result.Spill)
			}
			parent := t.TempDir()
			spilled, sp := convert(parent)
			s := sp.Result.Spill
			if s.Err != nil || !strings.HasPrefix(s.Dir, parent) || s.Mapped == 0 || s.Peak == 0 || s.Peak > s.Mapped {
				t.Fatalf("spill %+v: want a directory in %s and mapped bytes", s, parent)
			}
			if left, err := os.ReadDir(parent); err != nil || len(left) != 0 {
				t.Errorf("spill directory left behind: %v %v", left, err)
			}
			note := s.String()
			if !strings.Contains(note, "spilled to "+s.Dir) {
				t.Errorf("note %q does not name the directory", note)
			}
			if !slices.Contains(spilled.Source.Notes, note) {
				t.Errorf("notes %q lack %q", spilled.Source.Notes, note)
			}
			v := spilled.View(graph.ViewRetained)
			i := slices.Index(v.Comments, note)
			if i < 0 {
				t.Fatalf("view comments %q lack %q", v.Comments, note)
			}
			v.Comments = slices.Delete(v.Comments, i, i+1)
			var a, b bytes.Buffer
			if err := pprofout.Write(&a, heap, graph.ViewRetained); err != nil {
				t.Fatal(err)
			}
			if err := pprofout.Write(&b, spilled, graph.ViewRetained); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a.Bytes(), b.Bytes()) {
				t.Error("the spilled retained view differs from the one built on the heap")
			}
			if !slices.Equal(heap.RetainedByClass, spilled.RetainedByClass) {
				t.Error("retained sizes by class differ")
			}
			if hp.Result.Stats != sp.Result.Stats {
				t.Errorf("stats differ: heap %+v, spilled %+v", hp.Result.Stats, sp.Result.Stats)
			}
		})
	}
}
