package convert

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/hprof"
	"github.com/hprof2pprof/hprof2pprof/convert/retained"
)

// The retained view (package convert/retained) holds the whole object
// graph in memory, so it is computed only when Options.Views names it
// (--view retained), never by default. It reads the input twice more
// through reopen; standard input cannot be reopened, so there the view is
// missing and a note says why.

// spanObjects are the objects of one heap span, noted by the first pass
// when the retained view is asked for: their IDs summed up (the IDs are
// read again from the span), and a bound on their references (each takes
// an ID's bytes of the span).
type spanObjects struct {
	ids  retained.IDRange
	refs int64
}

func (o *spanObjects) add(s *hprof.SubRecord, idSize int) {
	switch s.Tag {
	case hprof.InstanceDump:
		o.ids.Add(s.ID)
		o.refs += int64(s.Length) / int64(idSize)
	case hprof.ObjArrayDump:
		o.ids.Add(s.ID)
		o.refs += int64(s.Length)
	case hprof.PrimArrayDump, hprof.PrimArrayNoData:
		o.ids.Add(s.ID)
	case hprof.ClassDump:
		o.ids.Add(s.ID)
		o.refs += int64(len(s.Class.Statics)) + 1 // + the loader
	}
}

// streamedObjects are the objects of a dump's streamed records, noted by
// the first pass so that the retained view reads a compressed input once
// more, not twice: their IDs, and the same reference bound.
type streamedObjects struct {
	ids  [][]uint64 // in chunks of idChunk: no slice growth copies them all
	refs int64
}

const idChunk = 1 << 20

func (o *streamedObjects) add(s *hprof.SubRecord, idSize int) {
	var sp spanObjects
	sp.add(s, idSize)
	if sp.ids.N == 0 {
		return
	}
	if n := len(o.ids); n == 0 || len(o.ids[n-1]) == idChunk {
		o.ids = append(o.ids, make([]uint64, 0, idChunk))
	}
	last := &o.ids[len(o.ids)-1]
	*last = append(*last, s.ID)
	o.refs += sp.refs
}

// fileSegments are the spans of a plain file, mapped when they can be.
type fileSegments struct {
	f     *os.File
	spans []heapSpan
	mmap  bool
}

func (fs *fileSegments) Len() int                  { return len(fs.spans) }
func (fs *fileSegments) SegmentOffset(i int) int64 { return fs.spans[i].off }

func (fs *fileSegments) Body(i int, buf *[]byte, fn func(hprof.Record, []byte)) error {
	sp := fs.spans[i]
	if fs.mmap {
		if body, unmap, ok := mapSpan(fs.f, sp.off, sp.n); ok {
			defer unmap()
			return guardFaults(func() { fn(sp.rec, body) })
		}
	}
	body, err := sp.read(fs.f, buf)
	if err != nil {
		return err
	}
	fn(sp.rec, body)
	return nil
}

// retainedProbe lets tests keep the analysis for per-object queries.
type retainedProbe struct {
	garbageHolds bool // the oracle's model (retained.Input.GarbageHolds)
	result       *retained.Result
}

// asks reports whether the user named view explicitly.
func (o Options) asks(view string) bool { return slices.Contains(o.Views, view) }

// buildRetained computes the dominator tree of the chosen heap dump and
// adds the retained view.
func (d *binDecoder) buildRetained(ctx context.Context, reopen func() (io.ReadCloser, error)) {
	h := d.lastHeap
	if h == nil || len(h.classes) == 0 {
		return
	}
	g := d.g
	if reopen == nil {
		g.Source.Notes = append(g.Source.Notes,
			"retained view not computed: it reads the input again, which standard input cannot do; convert a file instead")
		g.SoftFail("retained view needs a file input")
		return
	}
	oop, _ := d.oopSize(h)
	in := retained.Input{
		Open:      reopen,
		Dump:      h.index,
		Classes:   make(map[uint64]*retained.Class, len(h.classes)),
		FieldName: func(id uint64) string { return d.strings[id] },
		// The heap view's array model (newObjAgg): align8(header + 4 + data).
		ArraySize: func(data int64) int64 { return align8(int64(d.header(oop)) + 4 + data) },
		RefSize:   oop,
		KeepIDs:   d.opts.probe != nil,
	}
	switch {
	case d.opts.RetainedMemory != 0:
		in.MemoryBudget = d.opts.RetainedMemory
	case d.opts.MaxMemory > 0:
		// The heap watch counts the Go heap only, not mapped files: keep
		// the graph's arrays to half the limit, or map them all.
		in.MemoryBudget = d.opts.MaxMemory / 2
	}
	in.SpillDir = d.opts.SpillDir
	if d.opts.probe != nil {
		in.GarbageHolds = d.opts.probe.garbageHolds
	}
	if f, ok := d.file.(*os.File); ok && !h.streamed && len(h.objs) > 0 {
		// The first pass noted every object of the dump's spans: fill
		// the graph from the spans instead of reading the input twice.
		in.Segments = &fileSegments{f: f, spans: h.allSpans[:len(h.objs)], mmap: d.mapSpans}
		in.IDSize = d.r.IDSize()
		for _, o := range h.objs {
			in.SegmentObjects = append(in.SegmentObjects, o.ids)
			in.SegmentRefs = append(in.SegmentRefs, o.refs)
		}
		h.objs = nil
	} else if h.streamObjs != nil && len(h.allSpans) == 0 {
		// Every record of the dump was streamed by the first pass,
		// which noted its objects: one more read fills the graph.
		in.Noted = &retained.NotedIDs{IDs: h.streamObjs.ids, Refs: h.streamObjs.refs}
		in.IDSize = d.r.IDSize()
	}
	h.streamObjs = nil
	for id, c := range h.classes {
		name := d.className[id]
		if name == "" {
			name = fmt.Sprintf("unknown-class-0x%x", id)
		}
		in.Classes[id] = &retained.Class{Name: name, Super: c.super, Fields: c.fields, Size: d.instanceSize(h, id, oop)}
	}
	if d.opts.Progress != nil {
		total := g.Source.Bytes
		in.Progress = func(pass int, done int64) {
			// Report the extra passes as progress beyond the first read.
			d.opts.Progress(total + int64(pass-1)*total + done)
		}
	}
	if d.opts.Phase != nil {
		in.Phase = func(p string) { d.opts.Phase("retained: " + p) }
		defer d.opts.Phase("")
	}
	res, err := retained.Compute(ctx, in)
	if err != nil {
		g.Source.Notes = append(g.Source.Notes, "retained view not computed: "+err.Error())
		g.SoftFail("retained view failed")
		return
	}
	if d.opts.probe != nil {
		d.opts.probe.result = res
	}
	spill := res.Spill.String()
	if spill != "" {
		g.Source.Notes = append(g.Source.Notes, spill)
	}
	byName := map[string]int64{}
	for id, b := range res.ByClass {
		byName[in.Classes[id].Name] += b
	}
	g.RetainedByClass = make([]graph.ClassRetained, 0, len(byName))
	for _, k := range slices.Sorted(maps.Keys(byName)) {
		g.RetainedByClass = append(g.RetainedByClass, graph.ClassRetained{Class: k, Bytes: byName[k]})
	}
	v := res.View(g)
	v.Time = g.Source.Time
	sortSamples(g, v)
	v.Comments = append(v.Comments, fmt.Sprintf("heap dump %d of %d; sizes as in the heap view (reference %d bytes); class objects weigh 0 bytes, as in the heap view",
		h.index, d.dumps, oop))
	g.AddView(v)
}
