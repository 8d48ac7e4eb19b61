package heapdump

import (
	"context"
	"io"
	"os"
	"slices"
	"sync"

	"github.com/hprof2pprof/hprof2pprof/convert/hprof"
	"github.com/hprof2pprof/hprof2pprof/convert/source"
)

// The parallel path for plain files. Top-level records are read as a
// stream that seeks over heap records; each HEAP DUMP SEGMENT of the dump
// to convert is noted as a span and, a window of spans at a time while
// the first pass reads on (StartScan) and at the dump's end, the spans
// are mapped (or read into one buffer per worker) and parsed by several
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
	return h.StartScan(ctx, sf).Finish(env)
}

// SpanScan is a parse of spans running on workers (StartScan) while the
// caller reads on; Finish waits for it and adds what it found.
type SpanScan struct {
	h       *Dump
	sf      SpanFile
	spans   []hprof.Segment
	results []SpanResult
	aggs    []*Agg
	err     error         // the context's, if it ended the scan
	done    chan struct{} // closed when the workers have returned
}

// StartScan parses the spans noted so far on sf.Workers workers, in the
// background: the Dump is not touched until Finish (but for an Android
// dump's heaps, sf.TrackHeaps, whose one worker follows h.Heaps: call
// Finish before the next record is read). Progress is reported as the
// spans are handed to the workers.
func (h *Dump) StartScan(ctx context.Context, sf SpanFile) *SpanScan {
	s := &SpanScan{h: h, sf: sf, spans: h.pending, done: make(chan struct{})}
	h.pending, h.pendingBytes = nil, 0
	s.results = make([]SpanResult, len(s.spans))
	s.aggs = make([]*Agg, max(1, sf.Workers))
	for w := range s.aggs {
		s.aggs[w] = sf.NewAgg()
		if len(s.aggs) == 1 && sf.TrackHeaps {
			s.aggs[w].TrackHeaps(&h.Heaps)
		}
	}
	go s.run(ctx)
	return s
}

func (s *SpanScan) run(ctx context.Context) {
	defer close(s.done)
	sf := s.sf
	next := make(chan int)
	var wg sync.WaitGroup
	for _, agg := range s.aggs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.h.scanWorker(sf, s.spans, s.results, next, agg, len(s.aggs) == 1)
		}()
	}
	for i := range s.spans {
		if s.err = ctx.Err(); s.err != nil {
			break
		}
		next <- i
		if sf.Progress != nil {
			sf.Progress(s.spans[i].Rec.Offset)
		}
	}
	close(next)
	wg.Wait()
}

// Span returns the input bytes the scan's spans cover.
func (s *SpanScan) Span() (off, n int64) {
	if len(s.spans) == 0 {
		return 0, 0
	}
	last := s.spans[len(s.spans)-1]
	return s.spans[0].Off, last.Off + last.N - s.spans[0].Off
}

// Finish waits for the scan and adds what it found to the Dump, in span
// order. At the first span with damage it stops, and drops the spans
// noted since the scan started: like the streaming path, nothing after
// the damage is counted.
func (s *SpanScan) Finish(env Env) error {
	<-s.done
	if s.err != nil {
		return s.err
	}
	h := s.h
	if bad := slices.IndexFunc(s.results, func(r SpanResult) bool { return r.Err != nil }); bad >= 0 && len(s.aggs) > 1 {
		s.recount(bad)
	}
	for _, a := range s.aggs {
		h.Agg.Merge(a)
	}
	for i := range s.results {
		if err := h.AddSpan(env, &s.results[i]); err != nil {
			h.pending, h.pendingBytes = nil, 0
			return err
		}
	}
	return nil
}

// recount counts the spans up to the one with damage, bad, again on one
// worker: the workers counted the spans after it too.
func (s *SpanScan) recount(bad int) {
	agg := s.sf.NewAgg()
	s.aggs = []*Agg{agg}
	next := make(chan int)
	go func() {
		for i := range bad + 1 {
			next <- i
		}
		close(next)
	}()
	s.h.scanWorker(s.sf, s.spans, s.results, next, agg, true)
}

// scanWorker scans the spans whose indices come from next into results,
// counting into agg. A worker that has the spans in order (inOrder)
// counts none after one with damage.
func (h *Dump) scanWorker(sf SpanFile, spans []hprof.Segment, results []SpanResult, next <-chan int, agg *Agg, inOrder bool) {
	if sf.NoCounts {
		agg = nil // ScanSpan counts nothing
	}
	var buf []byte
	damaged := false
	for i := range next {
		if !damaged {
			results[i] = h.scanOne(sf, spans[i], &buf, agg)
			damaged = inOrder && results[i].Err != nil
		}
	}
}

// scanOne scans span sp, mapped or read into buf.
func (h *Dump) scanOne(sf SpanFile, sp hprof.Segment, buf *[]byte, agg *Agg) (res SpanResult) {
	if f, ok := sf.File.(*os.File); ok && sf.Map {
		if body, unmap, ok := source.Map(f, sp.Off, sp.N); ok {
			err := source.GuardFaults(func() { res = ScanSpan(sp.Rec, body, h.IDSize, agg, sf.Objects) })
			unmap()
			if err != nil {
				res = SpanResult{Err: err}
			}
			return res
		}
	}
	body, err := sp.Body(buf)
	if err != nil {
		return SpanResult{Err: err}
	}
	return ScanSpan(sp.Rec, body, h.IDSize, agg, sf.Objects)
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
