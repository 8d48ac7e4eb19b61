package convert

import (
	"context"
	"runtime"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/internal/heapdump"
)

// workers is how many goroutines parse segments.
func (d *binDecoder) workers() int {
	if d.g.Source.Version == "JAVA PROFILE 1.0.3" {
		// Android's HEAP DUMP INFO switches the current heap for the
		// records that follow it, across segments: read in order.
		return 1
	}
	return max(1, runtime.GOMAXPROCS(0))
}

// scanSpans parses the spans of heap dump h in parallel
// (heapdump.Dump.ScanSpans).
func (d *binDecoder) scanSpans(ctx context.Context, h *heapdump.Dump) error {
	return h.ScanSpans(ctx, d.env(), heapdump.SpanFile{
		File:       d.file,
		Map:        true,
		Workers:    d.workers(),
		NewAgg:     d.newObjAgg,
		TrackHeaps: d.g.Source.Version == "JAVA PROFILE 1.0.3",
		Objects:    d.opts.asks(graph.ViewRetained),
		NoCounts:   !d.opts.wants(graph.ViewHeap),
		Progress:   d.opts.Progress,
	})
}
