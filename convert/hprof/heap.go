package hprof

import (
	"errors"
	"io"
)

// SubRecord is one heap dump sub-record header. The same value is reused
// for every call to HeapReader.Next: copy what you keep.
type SubRecord struct {
	Tag    SubTag
	Offset int64

	ID           uint64    // object, class or root ID
	TraceSerial  uint32    // stack trace serial of the allocation (objects)
	ThreadSerial uint32    // roots tied to a thread
	Frame        uint32    // frame number (JAVA FRAME, JNI LOCAL) or depth (JNI MONITOR)
	RefID        uint64    // JNI GLOBAL: the global ref ID
	ClassID      uint64    // INSTANCE DUMP / OBJECT ARRAY DUMP: the class
	Length       uint32    // INSTANCE DUMP: field bytes; arrays: element count
	ElemType     BasicType // PRIMITIVE ARRAY (NODATA): element type
	HeapID       uint32    // HEAP DUMP INFO
	NameID       uint64    // HEAP DUMP INFO: heap name string

	Class ClassRecord // CLASS DUMP only
}

// ClassRecord is a decoded CLASS DUMP.
type ClassRecord struct {
	ID           uint64
	TraceSerial  uint32
	SuperID      uint64
	LoaderID     uint64
	InstanceSize uint32 // as written; HotSpot writes the field bytes, not the object size
	Statics      []StaticField
	Fields       []FieldDecl // this class's own instance fields, in dump order
}

// StaticField is a static field of a CLASS DUMP with its raw value
// (a reference ID, or the primitive's bits).
type StaticField struct {
	NameID uint64
	Type   BasicType
	Value  uint64
}

// FieldDecl is an instance field of a CLASS DUMP.
type FieldDecl struct {
	NameID uint64
	Type   BasicType
}

// HeapReader is the one iterator over the sub-records of a HEAP DUMP or
// HEAP DUMP SEGMENT body, whether the body is read from the input as it
// goes (Reader.Heap) or is in memory (NewHeapBytes, a mapped file). Both
// share one decoder and one error policy:
//
//   - Next returns a sub-record once its header is whole; its payload
//     (instance field bytes or array elements) is read with Payload, or
//     skipped by the next call to Next.
//   - The end of the body is io.EOF.
//   - A header that does not fit in what is left of the record, a payload
//     longer than the rest of the record, or an unknown tag is ErrCorrupt
//     or ErrUnsupported, naming the sub-record, the record and the offset:
//     a sub-record has no length, so nothing after it can be read.
//   - When the input ends inside a sub-record, the call that needs the
//     missing bytes (Next for a header, Payload or the next Next for a
//     payload) returns ErrTruncated naming the sub-record's offset; the
//     sub-records before it were returned whole.
//
// Errors are sticky in memory; a streamed iterator's errors are those of
// its Reader.
type HeapReader struct {
	r       *Reader // nil when the body is in memory
	remain  uint64  // body bytes not yet read, including payload
	payload uint64  // payload bytes of the current sub-record not yet read (in memory: its size)
	sub     SubRecord

	// In memory.
	// The current sub-record's payload is b[i-payload:i].
	b      []byte
	i      int
	idSize int
	rec    Record
	short  bool  // the body is shorter than the record says: the input ends inside it
	err    error // sticky; set with i at the end of b

	damage error // streamed: the first error other than io.EOF returned
}

// Heap starts iterating the current record's body as heap sub-records.
func (r *Reader) Heap() *HeapReader {
	h := &r.heap
	*h = HeapReader{r: r, remain: r.pending, sub: SubRecord{Class: h.sub.Class}}
	r.pending = 0
	return h
}

// Remaining is the number of body bytes not yet read.
func (h *HeapReader) Remaining() uint64 {
	if h.r == nil {
		return uint64(len(h.b) - h.i)
	}
	return h.remain
}

// Skip discards the rest of the record.
func (h *HeapReader) Skip() error {
	if h.r == nil {
		h.i, h.payload = len(h.b), 0
		return nil
	}
	n := h.remain
	h.remain, h.payload = 0, 0
	return h.r.skip(n, 0)
}

// Next returns the next sub-record, skipping the unread payload of the
// previous one, or io.EOF at the end of the record.
func (h *HeapReader) Next() (*SubRecord, error) {
	if h.r != nil {
		s, err := h.nextStreamed()
		if err != nil && err != io.EOF && h.damage == nil {
			h.damage = err
		}
		return s, err
	}
	// In memory (the hot path of the parallel span scan): the payload is
	// sliced, not copied. An error moves i to the end, so the check for
	// the end is the only one a sub-record pays.
	if h.i >= len(h.b) {
		h.payload = 0
		if h.err != nil {
			return nil, h.err
		}
		if h.short {
			h.err = errAt(ErrTruncated, h.off(), h.rec.Name(), "input ends %d bytes short", uint64(h.rec.Length)-uint64(len(h.b)))
			return nil, h.err
		}
		return nil, io.EOF
	}
	b := h.b[h.i:]
	left := uint64(len(b))
	if h.short {
		left = uint64(h.rec.Length) - uint64(h.i)
	}
	off := h.off()
	n, payload, more, err := nextSub(b, left, h.idSize, off, &h.rec, &h.sub)
	switch {
	case err != nil:
		h.i, h.payload, h.err = len(h.b), 0, err
		return nil, err
	case more:
		// Only a cut body is shorter than what is left of its record.
		h.i, h.payload = len(h.b), 0
		h.err = truncatedSub(off+int64(len(b)), h.where(SubTag(b[0])), off)
		return nil, h.err
	case payload > uint64(len(b)-n):
		// The header is whole: return it; the payload is missing.
		h.i, h.payload = len(h.b), 0
		h.err = truncatedSub(h.off(), h.where(h.sub.Tag), off)
		return &h.sub, nil
	}
	h.i += n + int(payload)
	h.payload = payload
	return &h.sub, nil
}

// nextStreamed is Next for a body read from the input as it goes.
func (h *HeapReader) nextStreamed() (*SubRecord, error) {
	if h.payload > 0 {
		n := h.payload
		h.payload = 0
		h.remain -= n
		if err := h.r.skip(n, h.sub.Tag); err != nil {
			return nil, h.cut(err, h.sub.Tag, h.sub.Offset)
		}
	}
	if h.remain == 0 {
		return nil, io.EOF
	}
	r := h.r
	off := r.off
	for {
		avail := min(uint64(r.end-r.pos), h.remain)
		n, payload, more, err := nextSub(r.buf[r.pos:r.pos+int(avail)], h.remain, r.idSize, off, &r.cur, &h.sub)
		if err != nil {
			return nil, err
		}
		if !more {
			r.consume(n)
			h.remain -= uint64(n)
			h.payload = payload
			return &h.sub, nil
		}
		tag := SubTag(0)
		if avail > 0 {
			tag = SubTag(r.buf[r.pos])
		}
		// Ask for more: double what we have (class dumps can be long),
		// within the record and the largest possible sub-record.
		need := int(min(max(2*avail, 64), h.remain, uint64(maxClassDump(r.idSize))))
		if need <= int(avail) {
			return nil, errAt(ErrCorrupt, off, r.where(tag), "sub-record longer than any valid one")
		}
		if need > len(r.buf) {
			r.grow(need)
		}
		if !r.fill(need) && uint64(r.end-r.pos) == avail {
			err := r.ioErr(r.where(tag), uint64(need)-avail)
			if avail == 0 && errors.Is(err, ErrTruncated) {
				// The input ends between two sub-records: the record
				// is short, as the in-memory reader says it.
				return nil, errAt(ErrTruncated, off, r.cur.Name(), "input ends %d bytes short", h.remain)
			}
			return nil, h.cut(err, tag, off)
		}
	}
}

// nextSub is the one bounds policy of both heap iterators. It decodes
// the header of the sub-record at the start of b, the part of a heap
// record's unread body at hand, which starts at input offset off; left
// is how much of the body is unread (len(b) <= left). It returns the
// header's length and the payload's size, or more when b ends inside the
// header but the body goes on (the caller brings more of the body into b
// and calls again). A header that does not fit in what is left of the
// record, or a payload longer than the rest of it, is ErrCorrupt.
func nextSub(b []byte, left uint64, idSize int, off int64, rec *Record, s *SubRecord) (n int, payload uint64, more bool, err error) {
	if idSize == 8 && len(b) >= 25 {
		// Fast path for the object records of 8-byte-ID dumps: nearly
		// every sub-record of a modern heap dump.
		if n, payload, ok := decodeObject8(b, s); ok && payload <= left-uint64(n) {
			s.Offset = off
			return n, payload, false, nil
		}
	}
	n, payload, e := decodeSub(b, idSize, s)
	if e != nil {
		tag := SubTag(0)
		if len(b) > 0 {
			tag = SubTag(b[0])
		}
		switch {
		case !e.short:
			return 0, 0, false, errAt(e.sentinel, off+int64(e.at), subWhere(rec, tag), "%s", e.msg)
		case uint64(len(b)) == left:
			return 0, 0, false, errAt(ErrCorrupt, off, subWhere(rec, tag), "sub-record does not fit in the %d bytes left in its record", left)
		}
		return 0, 0, true, nil
	}
	s.Offset = off
	if payload > left-uint64(n) {
		return 0, 0, false, errAt(ErrCorrupt, off, subWhere(rec, s.Tag), "payload of %d bytes, record has %d left", payload, left-uint64(n))
	}
	return n, payload, false, nil
}

// subWhere names a sub-record (tag 0: none) and the record it is in.
func subWhere(rec *Record, tag SubTag) string {
	if tag != 0 {
		return tag.String() + " in " + rec.Name()
	}
	return rec.Name()
}

// Payload reads the current sub-record's payload: instance field bytes or
// array elements. The slice is valid until the next call.
func (h *HeapReader) Payload() ([]byte, error) {
	if h.r == nil {
		if h.err != nil {
			return nil, h.err
		}
		d := h.b[h.i-int(h.payload) : h.i : h.i]
		h.payload = 0
		return d, nil
	}
	n := h.payload
	h.payload = 0
	h.remain -= n
	b, err := h.r.readFull(n, h.sub.Tag)
	if err != nil {
		err = h.cut(err, h.sub.Tag, h.sub.Offset)
		if h.damage == nil {
			h.damage = err
		}
		return nil, err
	}
	return b, nil
}

// Err is the damage the iterator met: the first error other than io.EOF
// that Next or Payload returned (in memory, also a payload found missing
// before Payload was called), nil when none.
func (h *HeapReader) Err() error {
	if h.r == nil {
		return h.err
	}
	return h.damage
}

// Offset is the input offset of the next unread byte of the body.
func (h *HeapReader) Offset() int64 {
	if h.r == nil {
		return h.off()
	}
	return h.r.off
}

// cut turns the end of the input inside a sub-record into the error
// both heap readers give for it; other errors pass unchanged.
func (h *HeapReader) cut(err error, tag SubTag, subOff int64) error {
	if !errors.Is(err, ErrTruncated) {
		return err
	}
	return truncatedSub(h.r.off+int64(h.r.end-h.r.pos), h.r.where(tag), subOff)
}

func truncatedSub(end int64, where string, subOff int64) error {
	return errAt(ErrTruncated, end, where, "input ends inside the sub-record at byte %d", subOff)
}

// PayloadSize is the size of the current sub-record's unread payload.
func (h *HeapReader) PayloadSize() uint64 { return h.payload }

// NewHeapBytes iterates body, the body of rec (or the part of it the
// input holds, when the input ends inside it), without copying payloads.
func NewHeapBytes(body []byte, rec Record, idSize int) *HeapReader {
	return &HeapReader{b: body, idSize: idSize, rec: rec, short: uint64(len(body)) < uint64(rec.Length)}
}

func (h *HeapReader) where(tag SubTag) string { return subWhere(&h.rec, tag) }

func (h *HeapReader) off() int64 { return h.rec.Offset + recordHeaderSize + int64(h.i) }
