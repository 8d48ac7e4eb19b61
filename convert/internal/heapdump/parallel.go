package heapdump

import (
	"context"
	"io"
	"os"
	"sync"

	"github.com/hprof2pprof/hprof2pprof/convert/hprof"
	"github.com/hprof2pprof/hprof2pprof/convert/source"
)

// The parallel path for plain files. Top-level records are read as a
// stream that seeks over heap records; each HEAP DUMP SEGMENT of the dump
// to convert is noted as a span and, when the dump ends, the spans are
// read (ReadAt, into one buffer per worker) and parsed by several
// workers at once: a sub-record never crosses its record, so segments
// are independent. Each worker counts into its own Agg; the results
// are merged in segment order, so the output equals the streaming
// path's. Records longer than MaxSpan (jhsdb writes the whole heap as one
// HEAP DUMP) are streamed instead.

// SpanFile is where a dump's spans are read from, and how.
type SpanFile struct {
	File       io.ReaderAt
	Map        bool // File is an *os.File whose spans may be mapped instead of read
	Workers    int
	NewAgg     func() *Agg // a worker's counts, with the input's size model
	TrackHeaps bool        // Android: follow HEAP DUMP INFO (needs Workers == 1)
	Objects    bool        // note each span's objects for the retained view
	// NoCounts leaves the Aggs empty: nothing wants the heap histogram
	// (the retained view alone needs the classes, roots and IDs). Its
	// counting was a sixth of the first pass's work.
	NoCounts bool
	Progress func(done int64)
}

// ScanSpans parses the spans of the dump noted so far (Span) on several
// workers and adds what they found, in span order.
func (h *Dump) ScanSpans(ctx context.Context, env Env, sf SpanFile) error {
	spans := h.pending
	h.pending = nil
	results := make([]SpanResult, len(spans))
	aggs := make([]*Agg, max(1, sf.Workers))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := range aggs {
		aggs[w] = sf.NewAgg()
		if len(aggs) == 1 && sf.TrackHeaps {
			aggs[w].TrackHeaps(&h.Heaps)
		}
		wg.Add(1)
		go func(agg *Agg) {
			defer wg.Done()
			h.scanWorker(sf, spans, results, next, agg)
		}(aggs[w])
	}
	var err error
	for i := range spans {
		if err = ctx.Err(); err != nil {
			break
		}
		next <- i
		if sf.Progress != nil {
			sf.Progress(spans[i].Rec.Offset)
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
	for i := range results {
		if err := h.AddSpan(env, &results[i]); err != nil {
			// Like the streaming path, stop at the first damage: the
			// spans after it are not counted.
			return err
		}
	}
	return nil
}

// scanWorker scans the spans whose indices come from next into results,
// counting into agg.
func (h *Dump) scanWorker(sf SpanFile, spans []hprof.Segment, results []SpanResult, next <-chan int, agg *Agg) {
	if sf.NoCounts {
		agg = nil // ScanSpan counts nothing
	}
	var buf []byte
	for i := range next {
		sp := spans[i]
		if f, ok := sf.File.(*os.File); ok && sf.Map {
			if body, unmap, ok := source.Map(f, sp.Off, sp.N); ok {
				err := source.GuardFaults(func() { results[i] = ScanSpan(sp.Rec, body, h.IDSize, agg, sf.Objects) })
				unmap()
				if err != nil {
					results[i] = SpanResult{Err: err}
				}
				continue
			}
		}
		body, err := sp.Body(&buf)
		if err != nil {
			results[i].Err = err
			continue
		}
		results[i] = ScanSpan(sp.Rec, body, h.IDSize, agg, sf.Objects)
	}
}

// FileSegments are the spans of a plain file as the retained view reads
// them (retained.Segments): mapped when Map is set and they can be, read
// otherwise.
type FileSegments struct {
	File  *os.File
	Spans []hprof.Segment
	Map   bool
}

// Len is the number of spans.
func (fs *FileSegments) Len() int { return len(fs.Spans) }

// SegmentOffset is where span i starts in the file.
func (fs *FileSegments) SegmentOffset(i int) int64 { return fs.Spans[i].Off }

// Body calls fn with the record and body of span i (buf is reused).
func (fs *FileSegments) Body(i int, buf *[]byte, fn func(hprof.Record, []byte)) error {
	sp := fs.Spans[i]
	if fs.Map {
		if body, unmap, ok := source.Map(fs.File, sp.Off, sp.N); ok {
			defer unmap()
			return source.GuardFaults(func() { fn(sp.Rec, body) })
		}
	}
	body, err := sp.Body(buf)
	if err != nil {
		return err
	}
	fn(sp.Rec, body)
	return nil
}
