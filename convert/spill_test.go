package convert

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/internal/heapdump"
	"github.com/hprof2pprof/hprof2pprof/convert/internal/testhooks"
	"github.com/hprof2pprof/hprof2pprof/convert/retained"
)

// TestRetainedSpill puts the retained graph into mapped files, forced
// (every array a file) and over a small budget (the arrays used at
// random in memory, the rest files), and requires the same view, byte
// for byte, as on the heap, from both the mapped-span and the streaming
// fill; the spill directory must be gone afterwards.
func TestRetainedSpill(t *testing.T) {
	if !retained.CanSpill {
		t.Skip("this platform keeps the graph on the heap")
	}
	path := filepath.Join("..", "testdata", "jdk17-zoo-live.hprof")
	for _, c := range []struct {
		name       string
		sequential bool
		budget     int64
	}{
		{"spans/forced", false, -1},
		{"stream/forced", true, -1},
		{"spans/budget", false, 1 << 20},
		{"stream/budget", true, 1 << 20},
	} {
		sequential := c.sequential
		t.Run(c.name, func(t *testing.T) {
			convert := func(spillDir string) (*graph.Graph, *testhooks.Retained) {
				probe := &testhooks.Retained{}
				ctx := testhooks.With(context.Background(), testhooks.Hooks{Retained: probe, Sequential: sequential})
				opts := Options{Views: []string{graph.ViewRetained}}
				if spillDir != "" {
					opts.RetainedMemory, opts.SpillDir = c.budget, spillDir
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
			// Forced, every array is a file; over a budget that holds
			// them, the arrays used at random are memory.
			if forced := c.budget < 0; forced != (s.InMemory == 0) {
				t.Errorf("budget %d: %d bytes of arrays used at random in memory", c.budget, s.InMemory)
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
			// The note names a temporary directory: it is in the notes
			// (info) only, so the profile is the same wherever the graph
			// lived.
			if v := spilled.View(graph.ViewRetained); slices.Contains(v.Comments, note) {
				t.Errorf("view comments %q hold the spill note", v.Comments)
			}
			if !sameEncoding(t, heap, spilled, graph.ViewRetained) {
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

// TestRetainedSpillIndex spills without the test probe, which keeps the
// ID index after the analysis and so on the heap: the index then comes
// from the spill files too (the dense form, every HotSpot dump), and the
// view must be the same, byte for byte, as on the heap.
func TestRetainedSpillIndex(t *testing.T) {
	if !retained.CanSpill {
		t.Skip("this platform keeps the graph on the heap")
	}
	path := filepath.Join("..", "testdata", "jdk17-zoo-live.hprof")
	convert := func(spill bool) *graph.Graph {
		opts := Options{Views: []string{graph.ViewRetained}}
		if spill {
			opts.RetainedMemory, opts.SpillDir = -1, t.TempDir()
		}
		g, err := ConvertFile(context.Background(), path, opts)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	heap, spilled := convert(false), convert(true)
	if !slices.ContainsFunc(spilled.Source.Notes, func(n string) bool { return strings.Contains(n, "spilled to ") }) {
		t.Fatalf("no spill note in %q", spilled.Source.Notes)
	}
	if !sameEncoding(t, heap, spilled, graph.ViewRetained) {
		t.Error("the spilled retained view (index in files) differs from the one built on the heap")
	}
	if !slices.Equal(heap.RetainedByClass, spilled.RetainedByClass) {
		t.Error("retained sizes by class differ")
	}
}

// TestRetainedIndexReread builds the ID index from IDs read again instead
// of those the first pass noted (testhooks.RetainedFeed): from the mapped
// segments, and in a pass of the view's own over the input (a dump mixing
// spans and streamed records), in memory and from files, for a dump whose
// IDs take the dense form in two levels (jdk17-zoo-live: a small heap in a
// big reservation), one in one level, and a gzip one (read as a stream):
// the view must be the same, byte for byte.
func TestRetainedIndexReread(t *testing.T) {
	for _, name := range []string{"jdk17-zoo-live.hprof", "heap-dump.allocwork.jdk17.hprof", "jdk25-zoo-live.hprof.gz"} {
		path := filepath.Join("..", "testdata", name)
		for _, spill := range []bool{false, true} {
			if spill && !retained.CanSpill {
				continue
			}
			convert := func(feed heapdump.Feed) *graph.Graph {
				ctx := testhooks.With(context.Background(), testhooks.Hooks{RetainedFeed: feed})
				opts := Options{Views: []string{graph.ViewRetained}}
				if spill {
					opts.RetainedMemory, opts.SpillDir = -1, t.TempDir()
				}
				g, err := ConvertFile(ctx, path, opts)
				if err != nil {
					t.Fatal(err)
				}
				if len(g.RetainedByClass) == 0 {
					t.Fatalf("%s: no retained view; notes %q", name, g.Source.Notes)
				}
				return g
			}
			noted := convert(heapdump.FeedNoted)
			for _, feed := range []heapdump.Feed{heapdump.FeedSpans, heapdump.FeedNothing} {
				if !sameEncoding(t, noted, convert(feed), graph.ViewRetained) {
					t.Errorf("%s (spilled %v, feed %d): the view from IDs read again differs", name, spill, feed)
				}
			}
		}
	}
}
