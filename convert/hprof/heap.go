package hprof

import (
	"encoding/binary"
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

// HeapReader iterates the sub-records of one HEAP DUMP or HEAP DUMP
// SEGMENT record, without loading the record.
type HeapReader struct {
	r       *Reader
	remain  uint64 // body bytes not yet read, including payload
	payload uint64 // payload bytes of the current sub-record not yet read
	record  string
	sub     SubRecord
}

// Heap starts iterating the current record's body as heap sub-records.
func (r *Reader) Heap() *HeapReader {
	h := &r.heap
	*h = HeapReader{r: r, remain: r.pending, record: r.cur.Name(), sub: SubRecord{Class: h.sub.Class}}
	r.pending = 0
	return h
}

// Remaining is the number of body bytes not yet read.
func (h *HeapReader) Remaining() uint64 { return h.remain }

// Skip discards the rest of the record.
func (h *HeapReader) Skip() error {
	n := h.remain
	h.remain, h.payload = 0, 0
	return h.r.skip(n, h.record)
}

// fixed returns the next n header bytes of a sub-record starting at off.
func (h *HeapReader) fixed(n int, tag SubTag, off int64) ([]byte, error) {
	if uint64(n) > h.remain {
		return nil, errAt(ErrCorrupt, off, tag.String()+" in "+h.record, "sub-record needs %d bytes, record has %d left", n, h.remain)
	}
	if !h.r.fill(n) {
		return nil, h.r.ioErr(tag.String()+" in "+h.record, uint64(n))
	}
	b := h.r.buf[h.r.pos : h.r.pos+n]
	h.r.consume(n)
	h.remain -= uint64(n)
	return b, nil
}

func (h *HeapReader) id(b []byte) uint64 {
	if h.r.idSize == 4 {
		return uint64(binary.BigEndian.Uint32(b))
	}
	return binary.BigEndian.Uint64(b)
}

// Next returns the next sub-record, skipping the unread payload of the
// previous one, or io.EOF at the end of the record.
func (h *HeapReader) Next() (*SubRecord, error) {
	if h.payload > 0 {
		n := h.payload
		h.payload = 0
		h.remain -= n
		if err := h.r.skip(n, h.sub.Tag.String()+" in "+h.record); err != nil {
			return nil, err
		}
	}
	if h.remain == 0 {
		return nil, io.EOF
	}
	off := h.r.off
	tb, err := h.fixed(1, 0, off)
	if err != nil {
		return nil, err
	}
	tag := SubTag(tb[0])
	s := &h.sub
	s.Tag, s.Offset = tag, off
	I := h.r.idSize
	var b []byte
	switch tag {
	case RootUnknown, RootStickyClass, RootMonitorUsed, RootInternedString, RootFinalizing,
		RootDebugger, RootReferenceCleanup, RootVMInternal, Unreachable:
		if b, err = h.fixed(I, tag, off); err == nil {
			s.ID = h.id(b)
		}
	case RootJNIGlobal:
		if b, err = h.fixed(2*I, tag, off); err == nil {
			s.ID, s.RefID = h.id(b), h.id(b[I:])
		}
	case RootJNILocal, RootJavaFrame, RootThreadObject, RootJNIMonitor:
		if b, err = h.fixed(I+8, tag, off); err == nil {
			s.ID = h.id(b)
			s.ThreadSerial = binary.BigEndian.Uint32(b[I:])
			s.Frame = binary.BigEndian.Uint32(b[I+4:])
			s.TraceSerial = 0
			if tag == RootThreadObject {
				s.TraceSerial, s.Frame = s.Frame, 0
			}
		}
	case RootNativeStack, RootThreadBlock:
		if b, err = h.fixed(I+4, tag, off); err == nil {
			s.ID = h.id(b)
			s.ThreadSerial = binary.BigEndian.Uint32(b[I:])
		}
	case InstanceDump:
		if b, err = h.fixed(2*I+8, tag, off); err == nil {
			s.ID = h.id(b)
			s.TraceSerial = binary.BigEndian.Uint32(b[I:])
			s.ClassID = h.id(b[I+4:])
			s.Length = binary.BigEndian.Uint32(b[2*I+4:])
			err = h.setPayload(uint64(s.Length), tag, off)
		}
	case ObjArrayDump:
		if b, err = h.fixed(2*I+8, tag, off); err == nil {
			s.ID = h.id(b)
			s.TraceSerial = binary.BigEndian.Uint32(b[I:])
			s.Length = binary.BigEndian.Uint32(b[I+4:])
			s.ClassID = h.id(b[I+8:])
			err = h.setPayload(uint64(s.Length)*uint64(I), tag, off)
		}
	case PrimArrayDump, PrimArrayNoData:
		if b, err = h.fixed(I+9, tag, off); err == nil {
			s.ID = h.id(b)
			s.TraceSerial = binary.BigEndian.Uint32(b[I:])
			s.Length = binary.BigEndian.Uint32(b[I+4:])
			s.ElemType = BasicType(b[I+8])
			s.ClassID = 0
			es := s.ElemType.Size(I)
			if es == 0 || s.ElemType == TypeObject {
				return nil, errAt(ErrCorrupt, off, tag.String()+" in "+h.record, "element type %d", b[I+8])
			}
			if tag == PrimArrayDump {
				err = h.setPayload(uint64(s.Length)*uint64(es), tag, off)
			}
		}
	case HeapDumpInfo:
		if b, err = h.fixed(4+I, tag, off); err == nil {
			s.HeapID = binary.BigEndian.Uint32(b)
			s.NameID = h.id(b[4:])
		}
	case ClassDump:
		err = h.classDump(off)
	default:
		return nil, errAt(ErrUnsupported, off, h.record, "unknown heap sub-record tag 0x%02X", uint8(tag))
	}
	if err != nil {
		return nil, err
	}
	return s, nil
}

func (h *HeapReader) setPayload(n uint64, tag SubTag, off int64) error {
	if n > h.remain {
		return errAt(ErrCorrupt, off, tag.String()+" in "+h.record, "payload of %d bytes, record has %d left", n, h.remain)
	}
	h.payload = n
	return nil
}

// Payload reads the current sub-record's payload: instance field bytes or
// array elements. The slice is valid until the next call.
func (h *HeapReader) Payload() ([]byte, error) {
	n := h.payload
	h.payload = 0
	h.remain -= n
	return h.r.readFull(n, h.sub.Tag.String()+" in "+h.record)
}

// PayloadSize is the size of the current sub-record's unread payload.
func (h *HeapReader) PayloadSize() uint64 { return h.payload }

func (h *HeapReader) classDump(off int64) error {
	I := h.r.idSize
	b, err := h.fixed(7*I+10, ClassDump, off)
	if err != nil {
		return err
	}
	c := &h.sub.Class
	c.ID = h.id(b)
	c.TraceSerial = binary.BigEndian.Uint32(b[I:])
	c.SuperID = h.id(b[I+4:])
	c.LoaderID = h.id(b[2*I+4:])
	// signers, protection domain, two reserved IDs: not needed.
	c.InstanceSize = binary.BigEndian.Uint32(b[7*I+4:])
	ncp := int(binary.BigEndian.Uint16(b[7*I+8:]))
	h.sub.ID = c.ID
	h.sub.TraceSerial = c.TraceSerial
	for i := 0; i < ncp; i++ {
		e, err := h.fixed(3, ClassDump, off)
		if err != nil {
			return err
		}
		t := BasicType(e[2])
		sz := t.Size(I)
		if sz == 0 {
			return errAt(ErrCorrupt, h.r.off-1, "CLASS DUMP in "+h.record, "constant pool entry type %d", e[2])
		}
		if _, err := h.fixed(sz, ClassDump, off); err != nil {
			return err
		}
	}
	nb, err := h.fixed(2, ClassDump, off)
	if err != nil {
		return err
	}
	ns := int(binary.BigEndian.Uint16(nb))
	c.Statics = c.Statics[:0]
	for i := 0; i < ns; i++ {
		e, err := h.fixed(I+1, ClassDump, off)
		if err != nil {
			return err
		}
		f := StaticField{NameID: h.id(e), Type: BasicType(e[I])}
		sz := f.Type.Size(I)
		if sz == 0 {
			return errAt(ErrCorrupt, h.r.off-1, "CLASS DUMP in "+h.record, "static field type %d", e[I])
		}
		v, err := h.fixed(sz, ClassDump, off)
		if err != nil {
			return err
		}
		switch sz {
		case 1:
			f.Value = uint64(v[0])
		case 2:
			f.Value = uint64(binary.BigEndian.Uint16(v))
		case 4:
			f.Value = uint64(binary.BigEndian.Uint32(v))
		case 8:
			f.Value = binary.BigEndian.Uint64(v)
		}
		c.Statics = append(c.Statics, f)
	}
	if nb, err = h.fixed(2, ClassDump, off); err != nil {
		return err
	}
	nf := int(binary.BigEndian.Uint16(nb))
	c.Fields = c.Fields[:0]
	for i := 0; i < nf; i++ {
		e, err := h.fixed(I+1, ClassDump, off)
		if err != nil {
			return err
		}
		f := FieldDecl{NameID: h.id(e), Type: BasicType(e[I])}
		if f.Type.Size(I) == 0 {
			return errAt(ErrCorrupt, h.r.off-1, "CLASS DUMP in "+h.record, "instance field type %d", e[I])
		}
		c.Fields = append(c.Fields, f)
	}
	return nil
}
