package convert

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"unicode/utf16"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/hprof"
)

// objKey groups the objects of a heap dump: by class (primitive arrays
// by element type), allocation trace and Android heap.
type objKey struct {
	class uint64
	prim  hprof.BasicType
	heap  heapIndex
	trace uint32
}

// objAcc counts the objects of one key. Array sizes depend on the
// reference size, which may only be known at the end of the dump, so
// they are summed for both candidates (4 and 8 bytes).
type objAcc struct {
	count    int64
	arrBytes [2]int64
	isArray  bool
	// thread caches whether the class is java.lang.Thread or a subclass
	// (threadYes/threadNo), once its class chain is known; the streaming
	// path asks for every instance.
	thread int8
}

const (
	threadUnknown int8 = iota
	threadYes
	threadNo
)

// classDef is what a CLASS DUMP says about a class's instance layout.
type classDef struct {
	super  uint64
	loader uint64
	fields []hprof.FieldDecl // own instance fields, in dump order
	refs   int               // own reference fields
	prims  int               // bytes of own primitive fields
	size   uint32            // the CLASS DUMP's instance size field
}

// threadRoot is a ROOT THREAD OBJECT and what the dump says of its thread.
type threadRoot struct {
	objectID     uint64
	threadSerial uint32
	traceSerial  uint32
	name         string
	class        string
}

// heapDump aggregates one heap dump (one HEAP DUMP record, or the HEAP
// DUMP SEGMENTs up to HEAP DUMP END).
type heapDump struct {
	index    int
	complete bool
	idSize   int

	classes map[uint64]*classDef
	agg     *objAgg
	subs    [256]int64 // sub-records by tag

	threadRoots  []threadRoot
	rootBySerial map[uint32]uint64 // thread serial → first thread object rooted with it
	// threadObjs maps thread object IDs (from roots, or instances of
	// Thread subclasses) to the String ID of their name.
	threadObjs map[uint64]uint64
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
	// pass (plain files); they are parsed when the dump ends (scanSpans).
	spans    []heapSpan
	allSpans []heapSpan // kept for the thread-name passes
	// objs are the objects of each scanned span, for the retained view
	// (when asked); streamed is set when a record of the dump was not a
	// span, so the retained view must read the input again.
	objs     []spanObjects
	streamed bool
	// streamObjs are the objects of the streamed records (gzip, bzip2,
	// records over maxSpan), noted when the retained view is asked.
	streamObjs *streamedObjects

	// Reference size evidence from static fields (see oopSize).
	oopGuess  int
	oopSource string
	// objectSize is java.lang.Object's CLASS DUMP instance size: 0 from
	// HotSpot and the agent, non-zero from Android (see newSizeModel).
	objectSize uint32
	// heaps are the Android heaps (HEAP DUMP INFO) met so far; cur is
	// the one objects are in now.
	heaps androidHeaps
	art   bool // java.lang.Object has ART's shadow$_klass_ field
}

type threadFields struct {
	class uint64
	data  []byte
}

type strRef struct {
	array uint64
	coder int // -1 unknown (char[] era), 0 Latin-1, 1 UTF-16
}

func (d *binDecoder) newHeapDump(index int) *heapDump {
	idSize := d.r.IDSize()
	h := &heapDump{
		index:        index,
		idSize:       idSize,
		classes:      map[uint64]*classDef{},
		agg:          d.newObjAgg(),
		threadObjs:   map[uint64]uint64{},
		threadFields: map[uint64]threadFields{},
		wantStr:      map[uint64]bool{},
		strValue:     map[uint64]strRef{},
		wantArr:      map[uint64]bool{},
		arrText:      map[uint64]string{},
	}
	d.trackHeaps(h, h.agg)
	if d.opts.asks(graph.ViewRetained) {
		h.streamObjs = &streamedObjects{}
	}
	return h
}

// heapRecord reads one HEAP DUMP or HEAP DUMP SEGMENT record.
func (d *binDecoder) heapRecord(ctx context.Context, rec hprof.Record) error {
	if d.heap == nil {
		d.dumps++
		d.heap = d.newHeapDump(d.dumps)
	}
	h := d.heap
	keep := d.wantDump(h.index)
	if keep && rec.Length == 0 {
		d.g.SoftFail("zero-length heap dump segment")
	}
	if d.file != nil && keep && rec.Length <= maxSpan {
		sp := heapSpan{rec: rec, off: d.r.Offset(), n: int64(rec.Length)}
		if d.size >= 0 {
			sp.n = max(0, min(sp.n, d.size-sp.off))
		}
		h.spans = append(h.spans, sp)
		h.allSpans = append(h.allSpans, sp)
		if sp.n < int64(rec.Length) {
			// The input ends inside this record: count what it holds;
			// the scan names the sub-record that is cut.
			err := d.scanSpans(ctx, h)
			d.r.Skip() // to the end of the input, as the stream ends there too
			return err
		}
		if err := d.r.Skip(); err != nil {
			return err
		}
		if rec.Tag == hprof.TagHeapDump {
			return d.endDump(ctx)
		}
		return nil
	}
	hr := d.r.Heap()
	h.streamed = h.streamed || keep
	if !keep {
		if err := hr.Skip(); err != nil {
			return err
		}
		if rec.Tag == hprof.TagHeapDump {
			return d.endDump(ctx) // a HEAP DUMP record is a whole dump: the next one is the next dump
		}
		return nil
	}
	n := 0
	for {
		s, err := hr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		h.subs[s.Tag]++
		if h.streamObjs != nil {
			h.streamObjs.add(s, h.idSize)
		}
		if n++; n&0xFFFF == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
			d.progress()
		}
		switch s.Tag {
		case hprof.InstanceDump:
			acc := h.agg.instance(s.ClassID, s.TraceSerial)
			if h.needsString(s) {
				if err := h.readString(d, s, hr); err != nil {
					return err
				}
			} else if h.threadInstance(acc, s) {
				if err := h.readThread(d, s, hr); err != nil {
					return err
				}
			}
		case hprof.ObjArrayDump:
			h.agg.objArray(s.ClassID, s.TraceSerial, s.Length)
		case hprof.PrimArrayDump, hprof.PrimArrayNoData:
			h.agg.primArray(s.ElemType, s.TraceSerial, s.Length)
			if s.Tag == hprof.PrimArrayDump && h.needsArray(s) {
				if err := h.readArrayText(s, hr); err != nil {
					return err
				}
			}
		case hprof.ClassDump:
			h.classDump(d, &s.Class)
		case hprof.RootThreadObject:
			h.countThreadRoot(d, s)
			h.threadRoots = append(h.threadRoots, threadRoot{objectID: s.ID, threadSerial: s.ThreadSerial, traceSerial: s.TraceSerial})
			if _, ok := h.threadObjs[s.ID]; !ok {
				h.threadObjs[s.ID] = 0
			}
		case hprof.HeapDumpInfo:
			h.agg.enterHeap(s.HeapID, s.NameID)
		}
	}
	if rec.Tag == hprof.TagHeapDump {
		// A HEAP DUMP record is a whole dump (jhsdb and old JDKs write
		// one and no HEAP DUMP END).
		return d.endDump(ctx)
	}
	return nil
}

// endDump closes the dump being read.
func (d *binDecoder) endDump(ctx context.Context) error {
	h := d.heap
	if h == nil {
		return nil // HEAP DUMP END after a HEAP DUMP record, or stray
	}
	d.heap = nil
	if len(h.spans) > 0 {
		if err := d.scanSpans(ctx, h); err != nil {
			d.lastHeap = h
			return err
		}
	}
	h.complete = true
	if d.wantDump(h.index) {
		d.lastHeap = h
	}
	return nil
}

// newObjAgg starts counting objects with this input's size model:
// arrays are align8(header + 4 + data), summed for both reference sizes.
func (d *binDecoder) newObjAgg() *objAgg {
	return newObjAgg(d.r.IDSize(), [2]int64{int64(d.header(4)) + 4, int64(d.header(8)) + 4}, d.traceHasFrames)
}

// traceHasFrames reports whether a STACK TRACE serial names frames.
func (d *binDecoder) traceHasFrames(serial uint32) bool {
	t, ok := d.traces[serial]
	return ok && len(t.Frames) > 0
}

// header is the object header size for a reference size: the ID size
// plus the reference size (the oracle's model: 12 with compressed oops,
// 16 without), unless the user set it.
func (d *binDecoder) header(oop int) int {
	if d.opts.HeaderSize > 0 {
		return d.opts.HeaderSize
	}
	return d.r.IDSize() + oop
}

func align8(n int64) int64 { return (n + 7) &^ 7 }

func (h *heapDump) classDump(d *binDecoder, c *hprof.ClassRecord) {
	if _, dup := h.classes[c.ID]; dup {
		d.g.SoftFail("duplicate CLASS DUMP")
	}
	def := &classDef{super: c.SuperID, loader: c.LoaderID, size: c.InstanceSize, fields: append([]hprof.FieldDecl(nil), c.Fields...)}
	for _, f := range c.Fields {
		if f.Type == hprof.TypeObject {
			def.refs++
		} else {
			def.prims += f.Type.Size(h.idSize)
		}
	}
	h.classes[c.ID] = def
	switch d.className[c.ID] {
	case "java.lang.String":
		h.stringCls = c.ID
	case "java.lang.Thread":
		h.threadCls = c.ID
	case "java.lang.Object":
		h.noteObjectClass(d, c)
	case "java.lang.Class$Atomic":
		h.guessOop(d, c, "annotationTypeOffset", "annotationDataOffset", "java.lang.Class$Atomic")
	case "java.util.concurrent.FutureTask":
		if h.oopGuess == 0 {
			h.guessOop(d, c, "waitersOffset", "runnerOffset", "java.util.concurrent.FutureTask")
		}
	}
}

// guessOop infers the reference size from two adjacent reference-field
// offsets the JDK keeps in static longs, as VisualVM's heap library does.
func (h *heapDump) guessOop(d *binDecoder, c *hprof.ClassRecord, hi, lo, from string) {
	var a, b int64
	var ha, hb bool
	for _, s := range c.Statics {
		switch d.strings[s.NameID] {
		case hi:
			a, ha = int64(s.Value), s.Type == hprof.TypeLong
		case lo:
			b, hb = int64(s.Value), s.Type == hprof.TypeLong
		}
	}
	if ha && hb && (a-b == 4 || a-b == 8) {
		h.oopGuess, h.oopSource = int(a-b), from
	}
}

// threadInstance reports whether an instance may be a thread object: its
// class is Thread or a subclass (cached on the class's counts once the
// chain is known), or a thread root named its ID.
func (h *heapDump) threadInstance(acc *objAcc, s *hprof.SubRecord) bool {
	switch acc.thread {
	case threadYes:
		return true
	case threadNo:
		return false
	}
	if h.threadCls != 0 && h.classChainKnown(s.ClassID) {
		if h.isThreadClass(s.ClassID) {
			acc.thread = threadYes
			return true
		}
		acc.thread = threadNo
		return false
	}
	_, root := h.threadObjs[s.ID]
	return root || h.isThreadClass(s.ClassID)
}

// isThreadClass reports whether cls is java.lang.Thread or a subclass
// (as far as the CLASS DUMPs read so far tell).
func (h *heapDump) isThreadClass(cls uint64) bool {
	if h.threadCls == 0 {
		return false
	}
	for i := 0; cls != 0 && i < 64; i++ {
		if cls == h.threadCls {
			return true
		}
		c := h.classes[cls]
		if c == nil {
			return false
		}
		cls = c.super
	}
	return false
}

// field finds a named instance field in an object's field bytes: the
// class's own fields come first, then its super class's, and so on.
func (h *heapDump) field(d *binDecoder, cls uint64, data []byte, name string) (uint64, hprof.BasicType, bool) {
	off := 0
	for i := 0; cls != 0 && i < 64; i++ {
		c := h.classes[cls]
		if c == nil {
			return 0, 0, false
		}
		for _, f := range c.fields {
			sz := f.Type.Size(h.idSize)
			if off+sz > len(data) {
				return 0, 0, false
			}
			if d.strings[f.NameID] == name {
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
		cls = c.super
	}
	return 0, 0, false
}

// maxThreadPayload bounds what is read of a thread object or a name.
const maxThreadPayload = 1 << 16

// needsString reports whether an INSTANCE DUMP is a String a thread name
// needs and that has not been read yet. Asked for every instance, so the
// common case (no name wanted) costs a length check.
func (h *heapDump) needsString(s *hprof.SubRecord) bool {
	if len(h.wantStr) == 0 || s.ClassID != h.stringCls || !h.wantStr[s.ID] {
		return false
	}
	_, done := h.strValue[s.ID]
	return !done
}

// needsArray reports whether a primitive array holds the text of a name
// and has not been read yet.
func (h *heapDump) needsArray(s *hprof.SubRecord) bool {
	if len(h.wantArr) == 0 || !h.wantArr[s.ID] {
		return false
	}
	_, done := h.arrText[s.ID]
	return !done
}

// smallPayload reads the current sub-record's payload when it is small
// enough for a name to be in it; nil (and no error) when it is not.
func smallPayload(hr *hprof.HeapReader) ([]byte, error) {
	if hr.PayloadSize() > maxThreadPayload {
		return nil, nil
	}
	return hr.Payload()
}

func (h *heapDump) readThread(d *binDecoder, s *hprof.SubRecord, hr *hprof.HeapReader) error {
	data, err := smallPayload(hr)
	if err != nil || data == nil {
		return err
	}
	if !h.classChainKnown(s.ClassID) {
		h.threadFields[s.ID] = threadFields{class: s.ClassID, data: append([]byte(nil), data...)}
		return nil
	}
	h.threadData(d, s.ClassID, s.ID, data)
	return nil
}

// classChainKnown reports whether the CLASS DUMPs of cls and all its
// super classes have been read.
func (h *heapDump) classChainKnown(cls uint64) bool {
	for i := 0; cls != 0 && i < 256; i++ {
		c := h.classes[cls]
		if c == nil {
			return false
		}
		cls = c.super
	}
	return true
}

// threadData reads a thread object's name reference from its fields.
func (h *heapDump) threadData(d *binDecoder, class, id uint64, data []byte) {
	if len(data) == 0 {
		return // the hprof agent writes bare records without field values
	}
	ref, typ, ok := h.field(d, class, data, "name")
	if !ok || typ != hprof.TypeObject {
		d.g.SoftFail("thread object without a name field")
		return
	}
	h.threadObjs[id] = ref
	if ref != 0 {
		// A String (JDK 8+), or a char[] (JDK 5 to 7) read directly.
		h.wantStr[ref] = true
		h.wantArr[ref] = true
	}
}

func (h *heapDump) readString(d *binDecoder, s *hprof.SubRecord, hr *hprof.HeapReader) error {
	data, err := smallPayload(hr)
	if err != nil || data == nil {
		return err
	}
	h.stringData(d, s.ClassID, s.ID, data)
	return nil
}

// stringData reads a java.lang.String's value array and coder.
func (h *heapDump) stringData(d *binDecoder, class, id uint64, data []byte) {
	val, typ, ok := h.field(d, class, data, "value")
	if !ok || typ != hprof.TypeObject {
		return
	}
	ref := strRef{array: val, coder: -1}
	if c, _, ok := h.field(d, class, data, "coder"); ok {
		ref.coder = int(c)
	}
	h.strValue[id] = ref
	h.wantArr[val] = true
}

func (h *heapDump) readArrayText(s *hprof.SubRecord, hr *hprof.HeapReader) error {
	data, err := smallPayload(hr)
	if err != nil || data == nil {
		return err
	}
	h.arrayData(s.ElemType, s.ID, data)
	return nil
}

// arrayData keeps the text of a byte[] or char[] a name needs.
func (h *heapDump) arrayData(t hprof.BasicType, id uint64, data []byte) {
	if len(data) > maxThreadPayload {
		return
	}
	switch t {
	case hprof.TypeByte:
		// Latin-1 or UTF-16 (coder 1, in the JVM's byte order: the
		// decoder picks it when the string is assembled).
		h.arrText[id] = string(data)
	case hprof.TypeChar:
		u := make([]uint16, len(data)/2)
		for i := range u {
			u[i] = binary.BigEndian.Uint16(data[2*i:])
		}
		h.arrText[id] = string(utf16.Decode(u))
	}
}

// javaString decodes the String with ID id if its parts were read.
func (h *heapDump) javaString(id uint64) (string, bool) {
	ref, ok := h.strValue[id]
	if !ok {
		// JDK 6/7 thread names are char[] directly.
		t, ok := h.arrText[id]
		return t, ok
	}
	raw, ok := h.arrText[ref.array]
	if !ok {
		return "", false
	}
	switch ref.coder {
	case 0:
		r := make([]rune, len(raw))
		for i := 0; i < len(raw); i++ {
			r[i] = rune(raw[i])
		}
		return string(r), true
	case 1:
		b := []byte(raw)
		u := make([]uint16, len(b)/2)
		for i := range u {
			u[i] = binary.LittleEndian.Uint16(b[2*i:])
		}
		return string(utf16.Decode(u)), true
	}
	return raw, true // char[] already decoded
}

// finish resolves thread names and classes at the end of the dump.
func (h *heapDump) finish(d *binDecoder) {
	for id, tf := range h.threadFields {
		h.threadData(d, tf.class, id, tf.data)
	}
	h.threadFields = nil
	h.applyNames()
	for tag, n := range h.subs {
		if n > 0 {
			d.g.Source.Records[hprof.SubTag(tag).String()] += n
		}
	}
}

// unresolved counts thread roots whose name is not decoded yet.
func (h *heapDump) unresolved() int {
	n := 0
	for _, t := range h.threadRoots {
		if t.name == "" && h.threadObjs[t.objectID] != 0 {
			n++
		}
	}
	return n
}

// resolveThreadNames reads the input again, up to three times, to find
// thread names whose String or value array came before the thread object
// in the dump. Inputs that cannot be reopened (stdin) keep the names
// found in the first pass.
func (d *binDecoder) resolveThreadNames(ctx context.Context, reopen func() (io.ReadCloser, error)) {
	h := d.lastHeap
	if len(h.allSpans) > 0 {
		d.spanNamePass(h, h.allSpans)
	}
	for pass := 0; pass < 3 && h.unresolved() > 0; pass++ {
		before := h.unresolved()
		if reopen == nil {
			break
		}
		if err := d.namePass(ctx, h, reopen); err != nil {
			d.g.SoftFail("thread name pass failed: " + err.Error())
			break
		}
		h.applyNames()
		if h.unresolved() == before && pass > 0 {
			break
		}
	}
	if n := h.unresolved(); n > 0 {
		d.g.Soft["thread names not resolved"] += int64(n)
	}
}

// applyNames names the thread roots whose name String (and its array)
// has been read.
func (h *heapDump) applyNames() {
	for i := range h.threadRoots {
		t := &h.threadRoots[i]
		if t.name == "" {
			if nameRef := h.threadObjs[t.objectID]; nameRef != 0 {
				t.name, _ = h.javaString(nameRef)
			}
		}
	}
}

// namePass reads the same heap dump again looking only at the Strings
// and arrays thread names need.
func (d *binDecoder) namePass(ctx context.Context, h *heapDump, reopen func() (io.ReadCloser, error)) error {
	rc, err := reopen()
	if err != nil {
		return err
	}
	defer rc.Close()
	r, err := hprof.NewReader(rc)
	if err != nil {
		return err
	}
	var dumps hprof.DumpCounter
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		rec, err := r.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return nil // damage was reported by the first pass
		}
		if dumps.Dump(rec.Tag) != h.index {
			continue
		}
		hr := r.Heap()
		for {
			s, err := hr.Next()
			if err != nil {
				break
			}
			switch {
			case s.Tag == hprof.InstanceDump && h.needsString(s):
				if err := h.readString(d, s, hr); err != nil {
					return nil
				}
			case s.Tag == hprof.PrimArrayDump && h.needsArray(s):
				if err := h.readArrayText(s, hr); err != nil {
					return nil
				}
			}
		}
	}
}

// buildHeap turns the chosen dump into the heap view.
func (d *binDecoder) buildHeap() {
	h := d.lastHeap
	if h == nil {
		return
	}
	g := d.g
	oop, why := d.oopSize(h)
	v := graph.NewHeapView()
	v.Time = g.Source.Time
	agg := graph.NewAggregator(v)
	sizes := map[uint64]int64{}
	var objects, bytes, dropped int64
	h.agg.each(func(k objKey, a *objAcc) {
		var class string
		var size int64
		switch {
		case k.prim != 0:
			class = k.prim.JavaName() + "[]"
		default:
			if _, ok := h.classes[k.class]; !ok {
				dropped += a.count
				return
			}
			class = d.className[k.class]
			if class == "" {
				g.SoftFail("CLASS DUMP without LOAD CLASS")
				class = fmt.Sprintf("unknown-class-0x%x", k.class)
			}
		}
		if a.isArray {
			if oop == 4 {
				size = a.arrBytes[0]
			} else {
				size = a.arrBytes[1]
			}
		} else {
			is, ok := sizes[k.class]
			if !ok {
				is = d.instanceSize(h, k.class, oop)
				sizes[k.class] = is
			}
			size = is * a.count
		}
		st := graph.StackID(0)
		if k.trace != 0 && d.traceHasFrames(k.trace) {
			st = g.WithLeaf(d.stack(k.trace), class)
		}
		if st == 0 {
			st = g.ClassStack(class)
		}
		labels := []graph.Label{{Key: graph.LabelClass, Str: class}}
		if k.heap != 0 {
			labels = append(labels, graph.Label{Key: graph.LabelHeap, Str: h.heaps.name(d, k.heap)})
		}
		agg.Add(st, labels, a.count, size)
		objects += a.count
		bytes += size
	})
	if dropped > 0 {
		g.Soft["objects of a class with no CLASS DUMP (not counted)"] += dropped
	}
	sortSamples(g, v)
	hdr := d.header(oop)
	v.Comments = append(v.Comments,
		fmt.Sprintf("heap dump %d of %d: %d objects, %d bytes (shallow)", h.index, d.dumps, objects, bytes),
		h.sizeModelText(d, oop, why, hdr))
	if !h.complete {
		v.Comments = append(v.Comments, "incomplete heap dump: the input ended inside it")
	}
	g.AddView(v)
}

// oopSize picks the reference size: the user's, 4 for 4-byte IDs, the
// size inferred from JDK static fields, else the ID size.
func (d *binDecoder) oopSize(h *heapDump) (int, string) {
	switch {
	case d.opts.RefSize > 0:
		return d.opts.RefSize, "set by --ref-size"
	case h.idSize == 4:
		return 4, "the ID size"
	case h.oopGuess != 0:
		return h.oopGuess, "from static offsets in " + h.oopSource
	}
	return h.idSize, "the ID size; no JDK class told otherwise"
}

// instanceSize is align8(header + Σ field sizes over the class and its
// super classes), references counted as oop bytes.
func (d *binDecoder) instanceSize(h *heapDump, cls uint64, oop int) int64 {
	if h.newSizeModel() && d.opts.HeaderSize == 0 && d.opts.RefSize == 0 {
		if c := h.classes[cls]; c != nil {
			return int64(c.size)
		}
	}
	n := int64(d.header(oop))
	for i := 0; cls != 0 && i < 256; i++ {
		c := h.classes[cls]
		if c == nil {
			if i > 0 {
				d.g.SoftFail("super class with no CLASS DUMP")
			}
			break
		}
		n += int64(c.refs*oop + c.prims)
		cls = c.super
	}
	return align8(n)
}
