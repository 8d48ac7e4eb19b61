package convert

import (
	"context"
	"fmt"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/internal/heapdump"
	"github.com/hprof2pprof/hprof2pprof/convert/javaname"
	"github.com/hprof2pprof/hprof2pprof/convert/retained"
)

// The paths view and the leak suspects report, from the retained
// analysis made for them (retained.Input.Paths, Suspects): who holds
// the heap, through which references.

// addPaths adds the suspects report opts asks for, and the paths view,
// to g, then frees what the analysis kept for them.
func addPaths(ctx context.Context, g *graph.Graph, res *retained.Result, h *heapdump.Dump, dumps int, roots *rootNamer, opts Options) {
	defer func() {
		if err := res.ReleasePaths(); err != nil {
			g.Source.Notes = append(g.Source.Notes, "paths: "+err.Error())
		}
	}()
	if opts.Suspects != nil {
		q := *opts.Suspects
		if !opts.RawNames {
			q.Normalize = javaname.Normalize
		}
		rep, err := res.Suspects(ctx, g, roots, q)
		if err != nil {
			g.Source.Notes = append(g.Source.Notes, "suspects not found: "+err.Error())
			g.SoftFail(graph.SoftRetainedFailed)
		} else {
			rep.Dump = h.Index
			g.Suspects = rep
		}
	}
	if !opts.asks(graph.ViewPaths) {
		return
	}
	if opts.Phase != nil {
		opts.Phase("retained: the paths view")
	}
	if v := res.PathsView(g, roots.Frames); v != nil {
		v.Time = g.Source.Time
		g.SortSamples(v)
		v.Comments = append(v.Comments, fmt.Sprintf("heap dump %d of %d; sizes as in the heap view", h.Index, dumps))
		g.AddView(v)
	}
}
