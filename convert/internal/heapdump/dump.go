package heapdump

import (
	"context"
	"encoding/binary"
	"io"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/heapsize"
	"github.com/hprof2pprof/hprof2pprof/convert/hprof"
	"github.com/hprof2pprof/hprof2pprof/convert/internal/idnote"
)

// Class is what a CLASS DUMP says about a class's instance layout.
type Class struct {
	Super  uint64
	Loader uint64
	Fields []hprof.FieldDecl // own instance fields, in dump order
	Refs   int               // own reference fields
	Prims  int               // bytes of own primitive fields
	Size   uint32            // the CLASS DUMP's instance size field
}

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

	Classes map[uint64]*Class
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
	// Name resolution: String IDs wanted → value array ID, and value
	// array IDs wanted → decoded text.
	wantStr   map[uint64]bool
	strValue  map[uint64]strRef
	wantArr   map[uint64]bool
	arrText   map[uint64]string
	stringCls uint64 // class ID of java.lang.String
	threadCls uint64 // class ID of java.lang.Thread

	// spans are the heap records of this dump noted for the parallel
	// pass (plain files); they are parsed when the dump ends (ScanSpans).
	Spans    []hprof.Segment
	AllSpans []hprof.Segment // kept for the thread-name passes
	// SpanIDs sum up the object IDs of the scanned spans, in the order
	// of AllSpans (fewer when a damaged span ended the scan).
	SpanIDs []idnote.IDRange
	// StreamSpans are the heap records of this dump read as a stream
	// (where they are in the input, decompressed; no reader), with their
	// object IDs summed up: the thread-name passes read them again where
	// the input allows random access.
	StreamSpans []hprof.Segment
	StreamIDs   []idnote.IDRange
	// Objs are the objects of each scanned span, for the retained view
	// (when asked).
	Objs []SpanObjects
	// Noted, when set (the retained view is asked for), collects the
	// objects of the streamed records.
	Noted *idnote.NotedIDs

	// Reference size evidence from static fields (heapsize.RefSize).
	OopGuess  int
	OopSource string
	// Compact says the JVM had compact object headers, as its byte array
	// base offset tells (heapsize.CompactFromArrayBase).
	Compact bool
	// objectSize is java.lang.Object's CLASS DUMP instance size: 0 from
	// HotSpot and the agent, non-zero from Android (see NewSizeModel).
	ObjectSize uint32
	// heaps are the Android heaps (HEAP DUMP INFO) met so far; cur is
	// the one objects are in now.
	Heaps Heaps
	ART   bool // java.lang.Object has ART's shadow$_klass_ field

	chain     []heapsize.Layout // InstanceSize's buffer
	rootNames map[uint32]string // RootName's index
}

type threadFields struct {
	class uint64
	data  []byte
}

type strRef struct {
	array uint64
	coder int // -1 unknown (char[] era), 0 Latin-1, 1 UTF-16
}

// New starts heap dump index (1-based) of a file with IDs of idSize
// bytes, counting objects into agg.
func New(index, idSize int, agg *Agg) *Dump {
	return &Dump{
		Index:        index,
		IDSize:       idSize,
		Classes:      map[uint64]*Class{},
		Agg:          agg,
		threadObjs:   map[uint64]uint64{},
		threadRead:   map[uint64]bool{},
		threadFields: map[uint64]threadFields{},
		wantStr:      map[uint64]bool{},
		strValue:     map[uint64]strRef{},
		wantArr:      map[uint64]bool{},
		arrText:      map[uint64]string{},
	}
}

// Stream reads the sub-records of heap record rec one at a time from r
// (positioned on its body), calling progress now and then.
func (h *Dump) Stream(ctx context.Context, e Env, r *hprof.Reader, rec hprof.Record, progress func()) error {
	h.StreamSpans = append(h.StreamSpans, hprof.NewSegment(nil, rec, r.Offset(), int64(rec.Length)))
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
func (h *Dump) Streamed() bool { return len(h.StreamSpans) > 0 }

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
		acc := h.Agg.instance(s.ClassID, s.TraceSerial)
		if h.needsString(s) {
			if err := h.readString(e, s, hr); err != nil {
				return err
			}
		} else if h.threadInstance(acc, s) {
			if err := h.readThread(e, s, hr); err != nil {
				return err
			}
		}
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

func (h *Dump) ClassDump(e Env, c *hprof.ClassRecord) {
	if _, dup := h.Classes[c.ID]; dup {
		e.SoftFail(graph.SoftDuplicateClassDump)
	}
	def := &Class{Super: c.SuperID, Loader: c.LoaderID, Size: c.InstanceSize, Fields: append([]hprof.FieldDecl(nil), c.Fields...)}
	for _, f := range c.Fields {
		if f.Type == hprof.TypeObject {
			def.Refs++
		} else {
			def.Prims += f.Type.Size(h.IDSize)
		}
	}
	h.Classes[c.ID] = def
	switch e.ClassName(c.ID) {
	case "java.lang.String":
		h.stringCls = c.ID
	case "java.lang.Thread":
		h.threadCls = c.ID
	case "java.lang.Object":
		h.noteObjectClass(e, c)
	case "java.lang.Class$Atomic":
		h.guessOop(e, c, "annotationTypeOffset", "annotationDataOffset", "java.lang.Class$Atomic")
	case "java.util.concurrent.FutureTask":
		if h.OopGuess == 0 {
			h.guessOop(e, c, "waitersOffset", "runnerOffset", "java.util.concurrent.FutureTask")
		}
	case "jdk.internal.misc.Unsafe":
		// An int up to JDK 24, a long since.
		switch base, ok := static(e, c, "ARRAY_BYTE_BASE_OFFSET"); {
		case ok && base.Type == hprof.TypeInt:
			h.Compact = heapsize.CompactFromArrayBase(h.IDSize, int64(int32(base.Value)))
		case ok && base.Type == hprof.TypeLong:
			h.Compact = heapsize.CompactFromArrayBase(h.IDSize, int64(base.Value))
		}
	}
}

// static finds a class's static field by name (the last of that name).
func static(e Env, c *hprof.ClassRecord, name string) (hprof.StaticField, bool) {
	var f hprof.StaticField
	found := false
	for _, s := range c.Statics {
		if e.String(s.NameID) == name {
			f, found = s, true
		}
	}
	return f, found
}

// guessOop infers the reference size from two adjacent reference-field
// offsets the JDK keeps in static longs, as VisualVM's heap library does.
func (h *Dump) guessOop(e Env, c *hprof.ClassRecord, hi, lo, from string) {
	a, ha := static(e, c, hi)
	b, hb := static(e, c, lo)
	if !ha || !hb || a.Type != hprof.TypeLong || b.Type != hprof.TypeLong {
		return
	}
	if ref, ok := heapsize.RefFromOffsets(int64(a.Value), int64(b.Value)); ok {
		h.OopGuess, h.OopSource = ref, from
	}
}

// field finds a named instance field in an object's field bytes: the
// class's own fields come first, then its super class's, and so on.
func (h *Dump) field(e Env, cls uint64, data []byte, name string) (uint64, hprof.BasicType, bool) {
	off := 0
	for i := 0; cls != 0 && i < 64; i++ {
		c := h.Classes[cls]
		if c == nil {
			return 0, 0, false
		}
		for _, f := range c.Fields {
			sz := f.Type.Size(h.IDSize)
			if off+sz > len(data) {
				return 0, 0, false
			}
			if e.String(f.NameID) == name {
				var v uint64
				switch sz {
				case 1:
					v = uint64(data[off])
				case 2:
					v = uint64(binary.BigEndian.Uint16(data[off:]))
				case 4:
					v = uint64(binary.BigEndian.Uint32(data[off:]))
				case 8:
					v = binary.BigEndian.Uint64(data[off:])
				}
				return v, f.Type, true
			}
			off += sz
		}
		cls = c.Super
	}
	return 0, 0, false
}

// Finish resolves the thread names it can at the end of the dump.
func (h *Dump) Finish(e Env) {
	for id, tf := range h.threadFields {
		h.threadData(e, tf.class, id, tf.data)
	}
	h.threadFields = nil
	h.ApplyNames()
}

// InstanceSize is the shallow size of an instance of cls: the size
// Android wrote when written is set (heapsize.WrittenSizes), else
// heapsize.Instance over its class chain with this header and reference
// size.
func (h *Dump) InstanceSize(e Env, cls uint64, header, oop int, written bool) int64 {
	if written {
		if c := h.Classes[cls]; c != nil {
			return int64(c.Size)
		}
	}
	h.chain = h.chain[:0]
	for i := 0; cls != 0 && i < 256; i++ {
		c := h.Classes[cls]
		if c == nil {
			if i > 0 {
				e.SoftFail(graph.SoftSuperMissingClassDump)
			}
			break
		}
		h.chain = append(h.chain, heapsize.Layout{Refs: c.Refs, Prims: c.Prims})
		cls = c.Super
	}
	return heapsize.Instance(header, oop, h.chain)
}

// NewSizeModel reports whether the CLASS DUMP instance sizes are object
// sizes (heapsize.WrittenSizes), as VisualVM's heap library decides too.
func (h *Dump) NewSizeModel() bool { return h.ObjectSize != 0 }

// noteObjectClass reads what java.lang.Object's CLASS DUMP says about the
// writer: its instance size (non-zero from Android) and whether it lists
// ART's shadow$_klass_ field.
func (h *Dump) noteObjectClass(e Env, c *hprof.ClassRecord) {
	h.ObjectSize = c.InstanceSize
	for _, f := range c.Fields {
		if e.String(f.NameID) == "shadow$_klass_" {
			h.ART = true
		}
	}
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
