package convert

import (
	"context"
	"runtime"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/internal/heapdump"
)

// The parallel span scan of a plain file: the spans the first pass
// noted (heapdump.Dump.Span) are mapped and parsed on several workers
// when their dump ends (heapdump.Dump.ScanSpans).

// android reports whether the input is an Android heap dump ("JAVA
// PROFILE 1.0.3", written by ART and Dalvik). Its HEAP DUMP INFO
// switches the current heap for the records that follow it, across
// segments: its heaps are tracked, and its segments read by one worker
// in order, so the streaming and mapped paths agree.
func (d *binReader) android() bool { return d.g.Source.Version == "JAVA PROFILE 1.0.3" }

// workers is how many goroutines parse segments.
func (d *binReader) workers() int {
	if d.android() {
		return 1
	}
	return max(1, runtime.GOMAXPROCS(0))
}

// scanSpans parses the spans of heap dump h in parallel.
func (d *binReader) scanSpans(ctx context.Context, h *heapdump.Dump) error {
	return h.ScanSpans(ctx, d.env(d.g), heapdump.SpanFile{
		File:       d.file,
		Map:        true,
		Workers:    d.workers(),
		NewAgg:     d.newObjAgg,
		TrackHeaps: d.android(),
		Objects:    d.opts.asksGraph(),
		NoCounts:   !d.opts.wants(graph.ViewHeap),
		Progress:   d.opts.Progress,
	})
}
