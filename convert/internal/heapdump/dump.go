package heapdump

import (
	"context"
	"io"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/heapsize"
	"github.com/hprof2pprof/hprof2pprof/convert/hprof"
	"github.com/hprof2pprof/hprof2pprof/convert/internal/idnote"
	"github.com/hprof2pprof/hprof2pprof/convert/internal/layout"
)

// ThreadRoot is a ROOT THREAD OBJECT and what the dump says of its thread.
type ThreadRoot struct {
	ObjectID     uint64
	ThreadSerial uint32
	TraceSerial  uint32
	Name         string
	Class        string
}

// Dump aggregates one heap dump (one HEAP DUMP record, or the HEAP
// DUMP SEGMENTs up to HEAP DUMP END).
type Dump struct {
	Index    int
	Complete bool
	IDSize   int

	Classes *layout.Table // the CLASS DUMPs read so far
	Agg     *Agg
	Subs    [256]int64 // sub-records by tag

	ThreadRoots  []ThreadRoot
	rootBySerial map[uint32]uint64 // thread serial → first thread object rooted with it
	// threadObjs maps thread object IDs (from roots, or instances of
	// Thread subclasses) to the String ID of their name.
	threadObjs map[uint64]uint64
	// threadRead are the thread objects whose fields were read (each is
	// read once, whichever pass meets it first).
	threadRead map[uint64]bool
	// threadFields keeps the field bytes of thread objects read before
	// every CLASS DUMP of their class chain was (the hprof agent writes
	// classes after instances); they are decoded when the dump ends.
	threadFields map[uint64]threadFields
	// Name resolution: String IDs wanted → what they say of their value
	// array, and value array IDs wanted → the array.
	wantStr   map[uint64]bool
	strValue  map[uint64]layout.StringRef
	wantArr   map[uint64]bool
	arrays    map[uint64]nameArray
	stringCls uint64 // class ID of java.lang.String
	threadCls uint64 // class ID of java.lang.Thread

	// streamed says, for each heap record of the dump in input order, how
	// the first pass read it: as a stream (true), or as a span for the
	// parallel pass (plain files). Where the records are is noted once,
	// by the input's hprof.File (File.Segments).
	streamed  []bool
	nStreamed int
	// pending are the spans not scanned yet: they are parsed a window at
	// a time (StartScan) or when the dump ends (ScanSpans).
	pending []hprof.Segment
	// pendingBytes are the bytes of the pending spans.
	pendingBytes int64
	// SpanIDs sum up the object IDs of the scanned spans, in input order
	// (fewer when a damaged span ended the scan).
	SpanIDs []idnote.IDRange
	// StreamIDs sum up the object IDs of the streamed records, in input
	// order: the thread-name passes read them again where the input
	// allows random access.
	StreamIDs []idnote.IDRange
	// Objs are the objects of each scanned span, for the retained view
	// (when asked).
	Objs []SpanObjects
	// Noted, when set (the retained view is asked for), collects the
	// objects of the streamed records.
	Noted *idnote.NotedIDs

	// Evidence is what the CLASS DUMPs tell of the size model: reference
	// size from static offsets, compact headers, Android's written sizes
	// (Finish decides Model from it).
	Evidence heapsize.Evidence
	// Model is the dump's size model, decided from Evidence when the
	// dump is finished (Finish): every size of its objects is taken in it.
	Model heapsize.Model
	// heaps are the Android heaps (HEAP DUMP INFO) met so far; cur is
	// the one objects are in now.
	Heaps Heaps
	ART   bool // java.lang.Object has ART's shadow$_klass_ field

	rootNames map[uint32]string // RootName's index
}

type threadFields struct {
	class uint64
	data  []byte
}

// nameArray is a byte[] or char[] a thread name needs.
type nameArray struct {
	t    hprof.BasicType
	data []byte
}

// New starts heap dump index (1-based) of a file with IDs of idSize
// bytes, counting objects into agg.
func New(index, idSize int, agg *Agg) *Dump {
	return &Dump{
		Index:        index,
		IDSize:       idSize,
		Classes:      layout.NewTable(idSize),
		Evidence:     heapsize.Evidence{IDSize: idSize},
		Agg:          agg,
		threadObjs:   map[uint64]uint64{},
		threadRead:   map[uint64]bool{},
		threadFields: map[uint64]threadFields{},
		wantStr:      map[uint64]bool{},
		strValue:     map[uint64]layout.StringRef{},
		wantArr:      map[uint64]bool{},
		arrays:       map[uint64]nameArray{},
	}
}

// Stream reads the sub-records of heap record rec one at a time from r
// (positioned on its body), calling progress now and then.
func (h *Dump) Stream(ctx context.Context, e Env, r *hprof.Reader, rec hprof.Record, progress func()) error {
	h.streamed = append(h.streamed, true)
	h.nStreamed++
	h.StreamIDs = append(h.StreamIDs, idnote.IDRange{})
	if h.Noted != nil {
		defer h.Noted.IDs.Flush() // a part ends with its record
	}
	hr := r.Heap()
	for n := 1; ; n++ {
		s, err := hr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if n&0xFFFF == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
			progress()
		}
		if err := h.Sub(e, s, hr); err != nil {
			return err
		}
	}
}

// Streamed reports whether a heap record of the dump was not a span
// (read as a stream): the retained view must then read the input again.
func (h *Dump) Streamed() bool { return h.nStreamed > 0 }

// Span notes the next heap record of the dump, sp, for the parallel
// pass (ScanSpans).
func (h *Dump) Span(sp hprof.Segment) {
	h.streamed = append(h.streamed, false)
	h.pending = append(h.pending, sp)
	h.pendingBytes += sp.N
}

// Spanned reports whether a heap record of the dump was noted as a span.
func (h *Dump) Spanned() bool { return len(h.streamed) > h.nStreamed }

// Pending is how many spans wait for ScanSpans.
func (h *Dump) Pending() int { return len(h.pending) }

// PendingBytes are the bytes of the spans waiting for ScanSpans.
func (h *Dump) PendingBytes() int64 { return h.pendingBytes }

// Records are the windows of the dump's heap records on f (in input
// order), spans first and then the streamed ones; ok is false when f did
// not note them as this dump's first pass read them.
func (h *Dump) Records(f *hprof.File) (spans, streamed []hprof.Segment, ok bool) {
	segs := f.Segments(h.Index)
	if len(segs) != len(h.streamed) {
		return nil, nil, false
	}
	for i, sp := range segs {
		if h.streamed[i] {
			streamed = append(streamed, sp)
		} else {
			spans = append(spans, sp)
		}
	}
	return spans, streamed, true
}

// Sub absorbs one heap sub-record read from a stream (hr is positioned
// on its payload, which thread names may need).
func (h *Dump) Sub(e Env, s *hprof.SubRecord, hr *hprof.HeapReader) error {
	h.Subs[s.Tag]++
	if s.Tag.IsObject() && len(h.StreamIDs) > 0 {
		h.StreamIDs[len(h.StreamIDs)-1].Add(s.ID)
	}
	if h.Noted != nil {
		noteStreamed(h.Noted, s, h.IDSize)
	}
	switch s.Tag {
	case hprof.InstanceDump:
		return h.instance(e, s, hr)
	case hprof.ObjArrayDump:
		h.Agg.objArray(s.ClassID, s.TraceSerial, s.Length)
	case hprof.PrimArrayDump, hprof.PrimArrayNoData:
		h.Agg.primArray(s.ElemType, s.TraceSerial, s.Length)
		if s.Tag == hprof.PrimArrayDump && h.needsArray(s) {
			if err := h.readArrayText(s, hr); err != nil {
				return err
			}
		}
	case hprof.ClassDump:
		h.ClassDump(e, &s.Class)
	case hprof.RootThreadObject:
		h.countThreadRoot(e, s)
		h.ThreadRoots = append(h.ThreadRoots, ThreadRoot{ObjectID: s.ID, ThreadSerial: s.ThreadSerial, TraceSerial: s.TraceSerial})
		if _, ok := h.threadObjs[s.ID]; !ok {
			h.threadObjs[s.ID] = 0
		}
	case hprof.HeapDumpInfo:
		h.Agg.enterHeap(s.HeapID, s.NameID)
	}
	return nil
}

// instance counts an INSTANCE DUMP read from a stream, and reads its
// fields when a thread name needs them.
func (h *Dump) instance(e Env, s *hprof.SubRecord, hr *hprof.HeapReader) error {
	acc := h.Agg.instance(s.ClassID, s.TraceSerial)
	if h.needsString(s) {
		return h.readString(e, s, hr)
	}
	if h.threadInstance(acc, s) {
		return h.readThread(e, s, hr)
	}
	return nil
}

// ClassDump adds a CLASS DUMP to the dump's layouts and notes what it
// tells of the writer and the size model.
func (h *Dump) ClassDump(e Env, c *hprof.ClassRecord) {
	name := e.ClassName(c.ID)
	if h.Classes.Add(c, h.classJVM(e, name, c)) {
		e.SoftFail(graph.SoftDuplicateClassDump)
	}
	switch name {
	case "java.lang.String":
		h.stringCls = c.ID
	case "java.lang.Thread":
		h.threadCls = c.ID
	}
	h.noteEvidence(e, name, c)
}

// Finish decides the dump's size model from what its CLASS DUMPs told
// and the user's overrides o, and resolves the thread names it can at
// the end of the dump.
func (h *Dump) Finish(e Env, o heapsize.Overrides) {
	h.Model = heapsize.Decide(h.Evidence, o)
	for id, tf := range h.threadFields {
		h.threadData(e, tf.class, id, tf.data)
	}
	h.threadFields = nil
	h.ApplyNames()
}

// InstanceSize is the shallow size of an instance of cls under m (0 for
// a class without CLASS DUMP); a chain that ends at a super class
// without one counts a soft failure where the size depends on it.
func (h *Dump) InstanceSize(e Env, m heapsize.Model, cls uint64) int64 {
	l := h.Classes.Layout(e, cls)
	if l == nil {
		return 0
	}
	if l.SuperMissing && !m.Written() {
		e.SoftFail(graph.SoftSuperMissingClassDump)
	}
	return l.Instance(m)
}

// countThreadRoot counts a ROOT THREAD OBJECT that names a thread serial
// another thread object already has: two threads cannot share a serial,
// so one of them gets the other's stack and name.
func (h *Dump) countThreadRoot(e Env, s *hprof.SubRecord) {
	if s.ThreadSerial == 0 {
		return
	}
	if h.rootBySerial == nil {
		h.rootBySerial = map[uint32]uint64{}
	}
	if obj, ok := h.rootBySerial[s.ThreadSerial]; ok && obj != s.ID {
		e.SoftFail(graph.SoftThreadSerialShared)
		return
	}
	h.rootBySerial[s.ThreadSerial] = s.ID
}
