package convert

import (
	"context"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/internal/heaprows"
)

// The heap rows (Decoded.Rows): the objects, references, Strings and GC
// roots of the chosen heap dump, read again through the input's
// hprof.File by package internal/heaprows after the views are built.

// writeObjects reads the chosen dump's rows into sink, sized as the heap
// view sizes them, with the retained analysis kept for them (if any).
func (d *binDecoder) writeObjects(ctx context.Context, sink *graph.ObjectSink) error {
	h := d.lastHeap
	in := &heaprows.Input{
		File:     d.in,
		Sink:     sink,
		Dump:     h,
		IDSize:   d.r.IDSize(),
		Env:      d.env(),
		Progress: d.opts.Progress,
		Before:   d.g.Source.Bytes,
	}
	if h != nil {
		in.Retained = d.retained
	}
	return heaprows.Write(ctx, in)
}
