package convert

import (
	"context"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/heapsize"
	"github.com/hprof2pprof/hprof2pprof/convert/hprof"
	"github.com/hprof2pprof/hprof2pprof/convert/internal/heapdump"
	"github.com/hprof2pprof/hprof2pprof/convert/internal/idnote"
)

// Heap dump records in the first pass: which dump a record belongs to,
// and whether its sub-records are streamed here or noted as a span for
// the parallel pass (parallel.go). What a dump's objects add up to is
// package internal/heapdump's; the heap view is built in heap.go.

// heapEnv is what a heap dump asks of the decoder (heapdump.Env): the
// input's symbols, and the graph soft failures go to.
type heapEnv struct {
	sym *hprof.Symbols
	g   *graph.Graph
}

func (e heapEnv) String(id uint64) string    { return e.sym.Strings[id] }
func (e heapEnv) ClassName(id uint64) string { return e.sym.ClassName[id] }
func (e heapEnv) SoftFail(k graph.SoftKind)  { e.g.SoftFail(k) }
func (e heapEnv) SoftFailDetail(k graph.SoftKind, detail string) {
	e.g.SoftFailDetail(k, detail)
}

// env is the heap dumps' Env with soft failures going to g.
func (d *binData) env(g *graph.Graph) heapdump.Env { return heapEnv{d.sym, g} }

// traceHasFrames reports whether a STACK TRACE serial names frames.
func (d *binData) traceHasFrames(serial uint32) bool {
	t, ok := d.sym.Traces[serial]
	return ok && len(t.Frames) > 0
}

// overrides are the user's settings of the size model.
func (o Options) overrides() heapsize.Overrides {
	return heapsize.Overrides{Ref: o.RefSize, Header: o.HeaderSize, VisualVM: o.VisualVMSizes}
}

func (d *binReader) newHeapDump(index int) *heapdump.Dump {
	h := heapdump.New(index, d.r.IDSize(), d.newObjAgg())
	h.Evidence.Version = d.g.Source.Version
	if d.android() {
		h.Agg.TrackHeaps(&h.Heaps)
	}
	if d.opts.asksGraph() {
		h.Noted = &idnote.NotedIDs{}
	}
	return h
}

// heapRecord reads one HEAP DUMP or HEAP DUMP SEGMENT record.
func (d *binReader) heapRecord(ctx context.Context, rec hprof.Record) error {
	if d.heap == nil {
		d.dumps++
		d.heap = d.newHeapDump(d.dumps)
	}
	h := d.heap
	keep := d.wantDump(h.Index)
	if keep && rec.Length == 0 {
		d.g.SoftFail(graph.SoftZeroLengthSegment)
	}
	var err error
	switch {
	case d.file != nil && keep && rec.Length <= heapdump.MaxSpan:
		var cut bool
		if cut, err = d.spanRecord(ctx, h, rec); cut || err != nil {
			return err
		}
	case keep:
		err = h.Stream(ctx, d.env(d.g), d.r, rec, d.progress)
	default:
		err = d.r.Heap().Skip()
	}
	if err != nil {
		return err
	}
	if rec.Tag == hprof.TagHeapDump {
		// A HEAP DUMP record is a whole dump (jhsdb and old JDKs write
		// one and no HEAP DUMP END): the next one is the next dump.
		return d.endDump(ctx)
	}
	return nil
}

// spanRecord notes a heap record of a plain file as a span and skips
// it; cut is set when the input ends inside it (the spans read so far
// were scanned then, and the reader is at the end of the input).
func (d *binReader) spanRecord(ctx context.Context, h *heapdump.Dump, rec hprof.Record) (cut bool, err error) {
	sp := hprof.NewSegment(d.file, rec, d.r.Offset(), int64(rec.Length))
	if d.size >= 0 {
		sp.N = max(0, min(sp.N, d.size-sp.Off))
	}
	h.Span(sp)
	if sp.N < int64(rec.Length) {
		// The input ends inside this record: count what it holds; the
		// scan names the sub-record that is cut.
		err := d.scanSpans(ctx, h)
		d.r.Skip() // to the end of the input, as the stream ends there too
		return true, err
	}
	if h.PendingBytes() >= d.window && !d.android() {
		if err := d.startScan(ctx, h); err != nil {
			return false, err
		}
	}
	return false, d.r.Skip()
}

// endDump closes the dump being read.
func (d *binReader) endDump(ctx context.Context) error {
	h := d.heap
	if h == nil {
		return nil // HEAP DUMP END after a HEAP DUMP record, or stray
	}
	d.heap = nil
	if d.unscanned(h) {
		if err := d.scanSpans(ctx, h); err != nil {
			d.dump = h
			return err
		}
	}
	h.Complete = true
	if d.wantDump(h.Index) {
		d.dump = h
	}
	return nil
}

// newObjAgg starts counting objects.
func (d *binReader) newObjAgg() *heapdump.Agg {
	return heapdump.NewAgg(d.r.IDSize(), d.traceHasFrames)
}

// chooseDump settles the dump the heap views are taken from: its size
// model (heapsize.Decide), its sub-record counts, the thread names the
// first pass could not find (heapdump.Dump.ResolveNames; standard input
// keeps what that pass found).
func (d *binReader) chooseDump(ctx context.Context) {
	g := d.g
	if d.heap != nil && d.dump == nil {
		// The input ended inside the only dump: keep what was read.
		d.dump = d.heap
	}
	g.Source.Dumps = d.dumps
	h := d.dump
	if h == nil {
		return
	}
	e := d.env(g)
	rec := g.Source.Records
	h.Evidence.Agent = d.control != nil || (d.r.IDSize() == 4 && rec[hprof.TagCPUSamples.String()]+rec[hprof.TagAllocSites.String()] > 0)
	h.Finish(e, d.opts.overrides())
	for tag, n := range h.Subs {
		if n > 0 {
			g.Source.Records[hprof.SubTag(tag).String()] += n
		}
	}
	g.Source.Dump = h.Index
	if d.opts.wants(graph.ViewThreads) || d.opts.asksGraph() {
		// The retained and paths views name roots by their threads.
		if n := h.ResolveNames(ctx, e, d.in); n > 0 {
			g.Soft.Add(graph.SoftThreadNamesUnresolved, "", int64(n))
		}
	}
}
