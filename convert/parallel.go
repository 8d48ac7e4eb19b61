package convert

import (
	"context"
	"io"
	"os"
	"runtime"
	"sync"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/hprof"
	"github.com/hprof2pprof/hprof2pprof/convert/source"
)

// The parallel path for plain files. Top-level records are read as a
// stream that seeks over heap records; each HEAP DUMP SEGMENT of the dump
// to convert is noted as a span and, when the dump ends, the spans are
// read (ReadAt, into one buffer per worker) and parsed by several
// workers at once: a sub-record never crosses its record, so segments
// are independent. Each worker counts into its own objAgg; the results
// are merged in segment order, so the output equals the streaming
// path's. Records longer than maxSpan (jhsdb writes the whole heap as
// one HEAP DUMP) are streamed instead.

// maxSpan is the largest heap record read whole into a worker's buffer.
const maxSpan = 64 << 20

// heapSpan is one heap record body of a file: n bytes at off (fewer
// than the record's length when the file ends inside it).
type heapSpan struct {
	rec hprof.Record
	off int64
	n   int64
}

// read reads the span into buf (grown as needed).
func (sp heapSpan) read(f io.ReaderAt, buf *[]byte) ([]byte, error) {
	if int64(cap(*buf)) < sp.n {
		*buf = make([]byte, sp.n)
	}
	b := (*buf)[:sp.n]
	m, err := f.ReadAt(b, sp.off)
	if m == len(b) {
		return b, nil
	}
	if err == io.EOF {
		return b[:m], nil // the file shrank: what is there is the body
	}
	return nil, err
}

// spanResult is what one worker found in one span.
type spanResult struct {
	classes []hprof.ClassRecord
	roots   []threadRoot
	subs    [256]int64
	err     error
	objs    *spanObjects // for the retained view, when asked
}

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
func (d *binDecoder) scanSpans(ctx context.Context, h *heapDump) error {
	spans := h.spans
	h.spans = nil
	results := make([]spanResult, len(spans))
	aggs := make([]*objAgg, d.workers())
	next := make(chan int)
	objs := d.opts.asks(graph.ViewRetained)
	var wg sync.WaitGroup
	for w := range aggs {
		aggs[w] = d.newObjAgg()
		if len(aggs) == 1 {
			d.trackHeaps(h, aggs[w])
		}
		wg.Add(1)
		go func(agg *objAgg) {
			defer wg.Done()
			var buf []byte
			for i := range next {
				sp := spans[i]
				if f, ok := d.file.(*os.File); ok && d.mapSpans {
					if body, unmap, ok := source.Map(f, sp.off, sp.n); ok {
						err := source.GuardFaults(func() { results[i] = scanSpan(sp.rec, body, d.r.IDSize(), agg, objs) })
						unmap()
						if err != nil {
							results[i] = spanResult{err: err}
						}
						continue
					}
				}
				body, err := sp.read(d.file, &buf)
				if err != nil {
					results[i].err = err
					continue
				}
				results[i] = scanSpan(sp.rec, body, d.r.IDSize(), agg, objs)
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
			d.opts.Progress(spans[i].rec.Offset)
		}
	}
	close(next)
	wg.Wait()
	if err != nil {
		return err
	}
	for _, a := range aggs {
		h.agg.merge(a)
	}
	for i := range results {
		res := &results[i]
		for c := range res.classes {
			h.classDump(d, &res.classes[c])
		}
		h.threadRoots = append(h.threadRoots, res.roots...)
		if res.objs != nil {
			h.objs = append(h.objs, *res.objs)
		}
		for tag, n := range res.subs {
			h.subs[tag] += n
		}
		if res.err != nil {
			// Like the streaming path, stop at the first damage: the
			// spans after it are not counted.
			for j := i + 1; j < len(results); j++ {
				results[j] = spanResult{}
			}
			return res.err
		}
	}
	return nil
}

// scanSpan counts the sub-records of one span into agg; with objs, it
// also notes the span's objects for the retained view.
func scanSpan(rec hprof.Record, body []byte, idSize int, agg *objAgg, objs bool) (res spanResult) {
	hb := hprof.NewHeapBytes(body, rec, idSize)
	if objs {
		res.objs = &spanObjects{}
	}
	for {
		s, _, err := hb.Next()
		if err == io.EOF {
			return res
		}
		if s == nil {
			res.err = err
			return res
		}
		res.subs[s.Tag]++
		if res.objs != nil {
			res.objs.add(s, idSize)
		}
		switch s.Tag {
		case hprof.InstanceDump:
			agg.instance(s.ClassID, s.TraceSerial)
		case hprof.ObjArrayDump:
			agg.objArray(s.ClassID, s.TraceSerial, s.Length)
		case hprof.PrimArrayDump, hprof.PrimArrayNoData:
			agg.primArray(s.ElemType, s.TraceSerial, s.Length)
		case hprof.ClassDump:
			c := s.Class
			c.Statics = append([]hprof.StaticField(nil), c.Statics...)
			c.Fields = append([]hprof.FieldDecl(nil), c.Fields...)
			res.classes = append(res.classes, c)
		case hprof.RootThreadObject:
			res.roots = append(res.roots, threadRoot{objectID: s.ID, threadSerial: s.ThreadSerial, traceSerial: s.TraceSerial})
		case hprof.HeapDumpInfo:
			agg.enterHeap(s.HeapID, s.NameID)
		}
		if err != nil {
			// The input ends inside this sub-record's payload: its
			// header is whole and counted, as when streaming.
			res.err = err
			return res
		}
	}
}

// spanNamePass reads the dump's spans again for thread names: thread
// objects, then their name Strings, then the value arrays, each pass
// reading only what the one before asked for.
func (d *binDecoder) spanNamePass(h *heapDump, spans []heapSpan) {
	for _, t := range h.threadRoots {
		if _, ok := h.threadObjs[t.objectID]; !ok {
			h.threadObjs[t.objectID] = 0
		}
	}
	var buf []byte
	for pass := 0; pass < 3; pass++ {
		for _, sp := range spans {
			body, err := sp.read(d.file, &buf)
			if err != nil {
				return
			}
			hb := hprof.NewHeapBytes(body, sp.rec, d.r.IDSize())
			for {
				s, data, err := hb.Next()
				if err != nil {
					break
				}
				switch s.Tag {
				case hprof.InstanceDump:
					if ref, ok := h.threadObjs[s.ID]; ok && ref == 0 {
						h.threadData(d, s.ClassID, s.ID, data)
					} else if h.needsString(s) {
						h.stringData(d, s.ClassID, s.ID, data)
					}
				case hprof.PrimArrayDump:
					if h.needsArray(s) {
						h.arrayData(s.ElemType, s.ID, data)
					}
				}
			}
		}
		h.applyNames()
		if h.unresolved() == 0 {
			return
		}
	}
}
