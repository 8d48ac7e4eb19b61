package convert

import (
	"context"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/hprof"
	"github.com/hprof2pprof/hprof2pprof/convert/internal/heaprows"
)

// The heap rows (Decoded.Rows): the objects, references, Strings and GC
// roots of the chosen heap dump, read again through the input's
// hprof.File by package internal/heaprows after the views are built.

// writeObjects reads the rows of input in's chosen dump d.dump into
// sink, sized as the heap view sizes them, with the retained analysis
// kept for them (if any); g is the decoded graph.
func writeObjects(ctx context.Context, sink *graph.ObjectSink, in *hprof.File, d *binData, g *graph.Graph, opts Options) error {
	return heaprows.Write(ctx, &heaprows.Input{
		File:     in,
		Sink:     sink,
		Dump:     d.dump,
		IDSize:   in.IDSize(),
		Env:      d.env(g),
		Progress: opts.Progress,
		Before:   g.Source.Bytes,
		Retained: d.retained,
		RawNames: opts.RawNames,
	})
}
