package heapdump

import (
	"context"
	"maps"
	"slices"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/hprof"
	"github.com/hprof2pprof/hprof2pprof/convert/internal/idnote"
	"github.com/hprof2pprof/hprof2pprof/convert/internal/layout"
)

// threadInstance reports whether an instance may be a thread object: its
// class is Thread or a subclass (cached on the class's counts once the
// chain is known), or a thread root named its ID.
func (h *Dump) threadInstance(acc *Acc, s *hprof.SubRecord) bool {
	switch acc.thread {
	case threadYes:
		return true
	case threadNo:
		return false
	}
	if h.threadCls != 0 && h.Classes.Known(s.ClassID) {
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
func (h *Dump) isThreadClass(cls uint64) bool {
	return h.threadCls != 0 && h.Classes.Extends(cls, h.threadCls)
}

// maxThreadPayload bounds what is read of a thread object or a name.
const maxThreadPayload = 1 << 16

// needsString reports whether an INSTANCE DUMP is a String a thread name
// needs and that has not been read yet. Asked for every instance, so the
// common case (no name wanted) costs a length check.
func (h *Dump) needsString(s *hprof.SubRecord) bool {
	if len(h.wantStr) == 0 || s.ClassID != h.stringCls || !h.wantStr[s.ID] {
		return false
	}
	_, done := h.strValue[s.ID]
	return !done
}

// needsArray reports whether a primitive array holds the text of a name
// and has not been read yet.
func (h *Dump) needsArray(s *hprof.SubRecord) bool {
	if len(h.wantArr) == 0 || !h.wantArr[s.ID] {
		return false
	}
	_, done := h.arrays[s.ID]
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

func (h *Dump) readThread(e Env, s *hprof.SubRecord, hr *hprof.HeapReader) error {
	data, err := smallPayload(hr)
	if err != nil || data == nil {
		return err
	}
	if !h.Classes.Known(s.ClassID) {
		h.threadFields[s.ID] = threadFields{class: s.ClassID, data: append([]byte(nil), data...)}
		return nil
	}
	h.threadData(e, s.ClassID, s.ID, data)
	return nil
}

// threadData reads a thread object's name reference from its fields.
func (h *Dump) threadData(e Env, class, id uint64, data []byte) {
	h.threadRead[id] = true
	if len(data) == 0 {
		return // the hprof agent writes bare records without field values
	}
	v, ok := int64(0), false
	if l := h.Classes.Layout(e, class); l != nil {
		if f, found := l.Field("name"); found && f.Type == hprof.TypeObject {
			v, ok = l.Value(data, f)
		}
	}
	if !ok {
		e.SoftFail(graph.SoftThreadWithoutName)
		return
	}
	ref := uint64(v)
	h.threadObjs[id] = ref
	if ref != 0 {
		// A String (JDK 8+), or a char[] (JDK 5 to 7) read directly.
		h.wantStr[ref] = true
		h.wantArr[ref] = true
	}
}

func (h *Dump) readString(e Env, s *hprof.SubRecord, hr *hprof.HeapReader) error {
	data, err := smallPayload(hr)
	if err != nil || data == nil {
		return err
	}
	h.stringData(e, s.ClassID, s.ID, data)
	return nil
}

// stringData reads what a java.lang.String says of its value array.
func (h *Dump) stringData(e Env, class, id uint64, data []byte) {
	l := h.Classes.Layout(e, class)
	if l == nil {
		return
	}
	sf := l.StringFields()
	ref, ok := l.StringRef(&sf, data)
	if !ok {
		return
	}
	h.strValue[id] = ref
	h.wantArr[ref.Array] = true
}

func (h *Dump) readArrayText(s *hprof.SubRecord, hr *hprof.HeapReader) error {
	data, err := smallPayload(hr)
	if err != nil || data == nil {
		return err
	}
	h.arrayData(s.ElemType, s.ID, data)
	return nil
}

// arrayData keeps a byte[] or char[] a name needs, to be decoded with
// its String (layout.DecodeString).
func (h *Dump) arrayData(t hprof.BasicType, id uint64, data []byte) {
	if len(data) > maxThreadPayload || (t != hprof.TypeByte && t != hprof.TypeChar) {
		return
	}
	h.arrays[id] = nameArray{t: t, data: slices.Clone(data)} // data is the reader's buffer
}

// javaString decodes the String with ID id if its parts were read.
func (h *Dump) javaString(id uint64) (string, bool) {
	ref, ok := h.strValue[id]
	if !ok {
		// JDK 6/7 thread names are char[] directly.
		ref = layout.StringRef{Array: id, Coder: layout.NoCoder, Count: -1}
	}
	a, ok := h.arrays[ref.Array]
	if !ok {
		return "", false
	}
	text, _, _ := layout.DecodeString(a.t, a.data, ref)
	return text, true
}

// Unresolved counts thread roots whose name is not decoded yet.
func (h *Dump) Unresolved() int {
	n := 0
	for _, t := range h.ThreadRoots {
		if t.Name == "" && h.threadObjs[t.ObjectID] != 0 {
			n++
		}
	}
	return n
}

// ApplyNames names the thread roots whose name String (and its array)
// has been read.
func (h *Dump) ApplyNames() {
	for i := range h.ThreadRoots {
		t := &h.ThreadRoots[i]
		if t.Name == "" {
			if nameRef := h.threadObjs[t.ObjectID]; nameRef != 0 {
				t.Name, _ = h.javaString(nameRef)
			}
		}
	}
}

// NamePass reads the same heap dump again (hprof.File.Heap) looking
// only at the Strings and arrays thread names need.
func (h *Dump) NamePass(ctx context.Context, e Env, f *hprof.File) error {
	// What is still to read: the pass ends when nothing is.
	pending := h.pendingNameParts(false)
	err := f.Heap(ctx, h.Index, func(hr *hprof.HeapReader) error {
		for len(pending) > 0 {
			s, err := hr.Next()
			if err != nil {
				return nil
			}
			switch {
			case s.Tag == hprof.InstanceDump && h.needsString(s):
				if err := h.readString(e, s, hr); err != nil {
					return hprof.ErrStop
				}
				delete(pending, s.ID)
				if v, ok := h.strValue[s.ID]; ok && !h.partRead(v.Array) {
					pending[v.Array] = true
				}
			case s.Tag == hprof.PrimArrayDump && h.needsArray(s):
				if err := h.readArrayText(s, hr); err != nil {
					return hprof.ErrStop
				}
				delete(pending, s.ID)
			}
		}
		return hprof.ErrStop
	})
	if err != nil && err == ctx.Err() {
		return err
	}
	return nil // damage was reported by the first pass
}

// SpanNamePass reads heap records again for thread names: thread
// objects, then their name Strings, then the value arrays, each pass
// reading only what the one before asked for, and only the records whose
// object IDs (ids, by record; a record without is always read) may hold
// one of them.
func (h *Dump) SpanNamePass(e Env, spans []hprof.Segment, ids []idnote.IDRange) {
	for _, t := range h.ThreadRoots {
		if _, ok := h.threadObjs[t.ObjectID]; !ok {
			h.threadObjs[t.ObjectID] = 0
		}
	}
	var buf []byte
	for pass := 0; pass < 3; pass++ {
		pending := slices.Sorted(maps.Keys(h.pendingNameParts(true)))
		for i, sp := range spans {
			if len(pending) == 0 {
				break
			}
			if i < len(ids) && !anyWithin(pending, ids[i]) {
				continue
			}
			body, err := sp.Body(&buf)
			if err != nil {
				return
			}
			h.spanNames(e, sp, body)
			pending = slices.Sorted(maps.Keys(h.pendingNameParts(true)))
		}
		h.ApplyNames()
		if h.Unresolved() == 0 {
			return
		}
	}
}

// spanNames reads the thread objects, Strings and arrays the names still
// need from one span's body.
func (h *Dump) spanNames(e Env, sp hprof.Segment, body []byte) {
	hb := hprof.NewHeapBytes(body, sp.Rec, h.IDSize)
	for {
		s, err := hb.Next()
		if err != nil {
			return
		}
		data, err := hb.Payload()
		if err != nil {
			return
		}
		switch s.Tag {
		case hprof.InstanceDump:
			if ref, ok := h.threadObjs[s.ID]; ok && ref == 0 && !h.threadRead[s.ID] {
				h.threadData(e, s.ClassID, s.ID, data)
			} else if h.needsString(s) {
				h.stringData(e, s.ClassID, s.ID, data)
			}
		case hprof.PrimArrayDump:
			if h.needsArray(s) {
				h.arrayData(s.ElemType, s.ID, data)
			}
		}
	}
}

// pendingNameParts are the IDs of the objects the thread names still
// need: thread objects not read yet (when threads is set: the pass reads
// them), and Strings and arrays wanted and not read. A name reference is
// a String or (JDK 5 to 7) a char[]: either read ends the wait.
func (h *Dump) pendingNameParts(threads bool) map[uint64]bool {
	ids := map[uint64]bool{}
	if threads {
		for id, ref := range h.threadObjs {
			if ref == 0 && !h.threadRead[id] {
				ids[id] = true
			}
		}
	}
	for _, want := range []map[uint64]bool{h.wantStr, h.wantArr} {
		for id := range want {
			if !h.partRead(id) {
				ids[id] = true
			}
		}
	}
	return ids
}

// partRead reports whether the String or array id was read.
func (h *Dump) partRead(id uint64) bool {
	if _, ok := h.strValue[id]; ok {
		return true
	}
	_, ok := h.arrays[id]
	return ok
}

// anyWithin reports whether one of the sorted ids is within the range of
// r.
func anyWithin(ids []uint64, r idnote.IDRange) bool {
	if r.N == 0 {
		return false
	}
	i, _ := slices.BinarySearch(ids, r.Lo)
	return i < len(ids) && ids[i] <= r.Hi
}

// RootName is the name of the first thread object of the heap dump
// rooted with the thread serial, "" when none has a name. Asked once the
// names are resolved; the index is built on first use.
func (h *Dump) RootName(thread uint32) string {
	if h.rootNames == nil {
		h.rootNames = map[uint32]string{}
		for _, t := range h.ThreadRoots {
			if _, seen := h.rootNames[t.ThreadSerial]; !seen && t.Name != "" {
				h.rootNames[t.ThreadSerial] = t.Name
			}
		}
	}
	return h.rootNames[thread]
}

// ResolveNames finds thread names whose String or value array came
// before the thread object in the dump. It reads again the heap records
// of the dump that may hold them: by random access (f.ReaderAt) when the
// first pass streamed them and the input allows it, else, when some were
// streamed, the whole dump (f.Heap), up to three times. An input that
// cannot be read again (standard input) keeps the names found so far. It
// returns how many thread roots are still without a name.
func (h *Dump) ResolveNames(ctx context.Context, e Env, f *hprof.File) int {
	spans, streamed, ok := h.Records(f)
	ids := h.SpanIDs
	all := ok && !h.Streamed() // every heap record of the dump is in spans
	if ok && h.Streamed() && f.ReaderAt() != nil {
		ids = slices.Clone(ids)
		for len(ids) < len(spans) { // not scanned (damaged): read them
			ids = append(ids, idnote.IDRange{N: 1, Lo: 0, Hi: ^uint64(0)})
		}
		ids = append(ids, h.StreamIDs...)
		spans = append(spans, streamed...)
		all = true
	}
	if len(spans) > 0 {
		h.SpanNamePass(e, spans, ids)
	}
	for pass := 0; !all && pass < 3 && h.Unresolved() > 0; pass++ {
		before := h.Unresolved()
		if !f.CanReread() {
			break
		}
		if err := h.NamePass(ctx, e, f); err != nil {
			e.SoftFailDetail(graph.SoftThreadNamePassFailed, err.Error())
			break
		}
		h.ApplyNames()
		if h.Unresolved() == before && pass > 0 {
			break
		}
	}
	return h.Unresolved()
}
