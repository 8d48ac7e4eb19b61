package convert

import (
	"context"
	"os"
	"runtime"
	"sync"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/internal/heapdump"
	"github.com/hprof2pprof/hprof2pprof/convert/source"
)

// The parallel path for plain files. Top-level records are read as a
// stream that seeks over heap records; each HEAP DUMP SEGMENT of the dump
// to convert is noted as a span and, when the dump ends, the spans are
// read (ReadAt, into one buffer per worker) and parsed by several
// workers at once: a sub-record never crosses its record, so segments
// are independent. Each worker counts into its own objAgg; the results
// are merged in segment order, so the output equals the streaming
// path's. Records longer than heapdump.MaxSpan (jhsdb writes the whole heap as
// one HEAP DUMP) are streamed instead.

// workers is how many goroutines parse segments.
func (d *binDecoder) workers() int {
	if d.g.Source.Version == "JAVA PROFILE 1.0.3" {
		// Android's HEAP DUMP INFO switches the current heap for the
		// records that follow it, across segments: read in order.
		return 1
	}
	return max(1, runtime.GOMAXPROCS(0))
}

// scanSpans parses the spans of heap dump h in parallel.
func (d *binDecoder) scanSpans(ctx context.Context, h *heapdump.Dump) error {
	spans := h.Spans
	h.Spans = nil
	results := make([]heapdump.SpanResult, len(spans))
	aggs := make([]*heapdump.Agg, d.workers())
	next := make(chan int)
	objs := d.opts.asks(graph.ViewRetained)
	var wg sync.WaitGroup
	for w := range aggs {
		aggs[w] = d.newObjAgg()
		if len(aggs) == 1 {
			d.trackHeaps(h, aggs[w])
		}
		wg.Add(1)
		go func(agg *heapdump.Agg) {
			defer wg.Done()
			var buf []byte
			for i := range next {
				sp := spans[i]
				if f, ok := d.file.(*os.File); ok && d.mapSpans {
					if body, unmap, ok := source.Map(f, sp.Off, sp.N); ok {
						err := source.GuardFaults(func() { results[i] = heapdump.ScanSpan(sp.Rec, body, d.r.IDSize(), agg, objs) })
						unmap()
						if err != nil {
							results[i] = heapdump.SpanResult{Err: err}
						}
						continue
					}
				}
				body, err := sp.Read(d.file, &buf)
				if err != nil {
					results[i].Err = err
					continue
				}
				results[i] = heapdump.ScanSpan(sp.Rec, body, d.r.IDSize(), agg, objs)
			}
		}(aggs[w])
	}
	var err error
	for i := range spans {
		if err = ctx.Err(); err != nil {
			break
		}
		next <- i
		if d.opts.Progress != nil {
			d.opts.Progress(spans[i].Rec.Offset)
		}
	}
	close(next)
	wg.Wait()
	if err != nil {
		return err
	}
	for _, a := range aggs {
		h.Agg.Merge(a)
	}
	env := d.env()
	for i := range results {
		if err := h.AddSpan(env, &results[i]); err != nil {
			// Like the streaming path, stop at the first damage: the
			// spans after it are not counted.
			return err
		}
	}
	return nil
}
