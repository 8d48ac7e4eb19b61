package hprof

import (
	"encoding/binary"
	"fmt"
)

// subErr is a problem found by decodeSub, turned into a FormatError by
// nextSub, which knows the offset and the record.
type subErr struct {
	short    bool   // b ends before the sub-record's header does
	sentinel error  // ErrCorrupt or ErrUnsupported otherwise
	msg      string // what is wrong
	at       int    // offset of the problem within the sub-record
}

var errShortSub = &subErr{short: true}

// decodeSub decodes the header of the heap sub-record at the start of b
// into s: every fixed field, and for CLASS DUMP the whole record. It
// returns the header length and the size of the payload that follows
// (instance field bytes or array elements; 0 for other sub-records). It
// never reads past b: when b is too short it returns errShortSub and the
// caller supplies more bytes.
func decodeSub(b []byte, idSize int, s *SubRecord) (int, uint64, *subErr) {
	if len(b) == 0 {
		return 0, 0, errShortSub
	}
	tag := SubTag(b[0])
	s.Tag = tag
	I := idSize
	id := func(p []byte) uint64 {
		if I == 4 {
			return uint64(binary.BigEndian.Uint32(p))
		}
		return binary.BigEndian.Uint64(p)
	}
	need := func(n int) bool { return len(b) >= 1+n }
	p := b[1:]
	switch tag {
	case InstanceDump:
		if !need(2*I + 8) {
			return 0, 0, errShortSub
		}
		s.ID = id(p)
		s.TraceSerial = binary.BigEndian.Uint32(p[I:])
		s.ClassID = id(p[I+4:])
		s.Length = binary.BigEndian.Uint32(p[2*I+4:])
		return 1 + 2*I + 8, uint64(s.Length), nil
	case ObjArrayDump:
		if !need(2*I + 8) {
			return 0, 0, errShortSub
		}
		s.ID = id(p)
		s.TraceSerial = binary.BigEndian.Uint32(p[I:])
		s.Length = binary.BigEndian.Uint32(p[I+4:])
		s.ClassID = id(p[I+8:])
		return 1 + 2*I + 8, uint64(s.Length) * uint64(I), nil
	case PrimArrayDump, PrimArrayNoData:
		if !need(I + 9) {
			return 0, 0, errShortSub
		}
		s.ID = id(p)
		s.TraceSerial = binary.BigEndian.Uint32(p[I:])
		s.Length = binary.BigEndian.Uint32(p[I+4:])
		s.ElemType = BasicType(p[I+8])
		s.ClassID = 0
		es := s.ElemType.Size(I)
		if es == 0 || s.ElemType == TypeObject {
			return 0, 0, &subErr{sentinel: ErrCorrupt, msg: fmt.Sprintf("element type %d", p[I+8]), at: 1 + I + 8}
		}
		if tag == PrimArrayNoData {
			return 1 + I + 9, 0, nil
		}
		return 1 + I + 9, uint64(s.Length) * uint64(es), nil
	case RootUnknown, RootStickyClass, RootMonitorUsed, RootInternedString, RootFinalizing,
		RootDebugger, RootReferenceCleanup, RootVMInternal, Unreachable:
		if !need(I) {
			return 0, 0, errShortSub
		}
		s.ID = id(p)
		return 1 + I, 0, nil
	case RootJNIGlobal:
		if !need(2 * I) {
			return 0, 0, errShortSub
		}
		s.ID, s.RefID = id(p), id(p[I:])
		return 1 + 2*I, 0, nil
	case RootJNILocal, RootJavaFrame, RootThreadObject, RootJNIMonitor:
		if !need(I + 8) {
			return 0, 0, errShortSub
		}
		s.ID = id(p)
		s.ThreadSerial = binary.BigEndian.Uint32(p[I:])
		s.Frame = binary.BigEndian.Uint32(p[I+4:])
		s.TraceSerial = 0
		if tag == RootThreadObject {
			s.TraceSerial, s.Frame = s.Frame, 0
		}
		return 1 + I + 8, 0, nil
	case RootNativeStack, RootThreadBlock:
		if !need(I + 4) {
			return 0, 0, errShortSub
		}
		s.ID = id(p)
		s.ThreadSerial = binary.BigEndian.Uint32(p[I:])
		return 1 + I + 4, 0, nil
	case HeapDumpInfo:
		if !need(4 + I) {
			return 0, 0, errShortSub
		}
		s.HeapID = binary.BigEndian.Uint32(p)
		s.NameID = id(p[4:])
		return 1 + 4 + I, 0, nil
	case ClassDump:
		n, err := decodeClassDump(b, I, s)
		return n, 0, err
	}
	return 0, 0, &subErr{sentinel: ErrUnsupported, msg: fmt.Sprintf("unknown heap sub-record tag 0x%02X", uint8(tag))}
}

// decodeClassDump decodes a whole CLASS DUMP (tag byte included) from b.
func decodeClassDump(b []byte, I int, s *SubRecord) (int, *subErr) {
	id := func(p []byte) uint64 {
		if I == 4 {
			return uint64(binary.BigEndian.Uint32(p))
		}
		return binary.BigEndian.Uint64(p)
	}
	i := 1
	if len(b) < i+7*I+10 {
		return 0, errShortSub
	}
	c := &s.Class
	c.ID = id(b[i:])
	c.TraceSerial = binary.BigEndian.Uint32(b[i+I:])
	c.SuperID = id(b[i+I+4:])
	c.LoaderID = id(b[i+2*I+4:])
	// signers, protection domain and two reserved IDs are not needed.
	c.InstanceSize = binary.BigEndian.Uint32(b[i+7*I+4:])
	ncp := int(binary.BigEndian.Uint16(b[i+7*I+8:]))
	i += 7*I + 10
	s.ID, s.TraceSerial = c.ID, c.TraceSerial
	for k := 0; k < ncp; k++ {
		if len(b) < i+3 {
			return 0, errShortSub
		}
		t := BasicType(b[i+2])
		sz := t.Size(I)
		if sz == 0 {
			return 0, &subErr{sentinel: ErrCorrupt, msg: fmt.Sprintf("constant pool entry type %d", b[i+2]), at: i + 2}
		}
		i += 3 + sz
	}
	if len(b) < i+2 {
		return 0, errShortSub
	}
	ns := int(binary.BigEndian.Uint16(b[i:]))
	i += 2
	c.Statics = c.Statics[:0]
	for k := 0; k < ns; k++ {
		if len(b) < i+I+1 {
			return 0, errShortSub
		}
		f := StaticField{NameID: id(b[i:]), Type: BasicType(b[i+I])}
		sz := f.Type.Size(I)
		if sz == 0 {
			return 0, &subErr{sentinel: ErrCorrupt, msg: fmt.Sprintf("static field type %d", b[i+I]), at: i + I}
		}
		i += I + 1
		if len(b) < i+sz {
			return 0, errShortSub
		}
		switch sz {
		case 1:
			f.Value = uint64(b[i])
		case 2:
			f.Value = uint64(binary.BigEndian.Uint16(b[i:]))
		case 4:
			f.Value = uint64(binary.BigEndian.Uint32(b[i:]))
		case 8:
			f.Value = binary.BigEndian.Uint64(b[i:])
		}
		i += sz
		c.Statics = append(c.Statics, f)
	}
	if len(b) < i+2 {
		return 0, errShortSub
	}
	nf := int(binary.BigEndian.Uint16(b[i:]))
	i += 2
	c.Fields = c.Fields[:0]
	for k := 0; k < nf; k++ {
		if len(b) < i+I+1 {
			return 0, errShortSub
		}
		f := FieldDecl{NameID: id(b[i:]), Type: BasicType(b[i+I])}
		if f.Type.Size(I) == 0 {
			return 0, &subErr{sentinel: ErrCorrupt, msg: fmt.Sprintf("instance field type %d", b[i+I]), at: i + I}
		}
		i += I + 1
		c.Fields = append(c.Fields, f)
	}
	return i, nil
}

// maxClassDump bounds a CLASS DUMP: 3 × 65535 entries of at most
// ID + 1 + 8 bytes each, plus the fixed part.
func maxClassDump(idSize int) int { return 3*65535*(idSize+9) + 8*idSize + 16 }

// decodeObject8 decodes INSTANCE, OBJECT ARRAY and PRIMITIVE ARRAY DUMP
// headers with 8-byte IDs; b holds at least 25 bytes. It reports false
// for any other sub-record (and for invalid element types), which
// decodeSub then handles.
func decodeObject8(b []byte, s *SubRecord) (int, uint64, bool) {
	_ = b[24]
	switch SubTag(b[0]) {
	case InstanceDump:
		s.Tag = InstanceDump
		s.ID = binary.BigEndian.Uint64(b[1:])
		s.TraceSerial = binary.BigEndian.Uint32(b[9:])
		s.ClassID = binary.BigEndian.Uint64(b[13:])
		s.Length = binary.BigEndian.Uint32(b[21:])
		return 25, uint64(s.Length), true
	case ObjArrayDump:
		s.Tag = ObjArrayDump
		s.ID = binary.BigEndian.Uint64(b[1:])
		s.TraceSerial = binary.BigEndian.Uint32(b[9:])
		s.Length = binary.BigEndian.Uint32(b[13:])
		s.ClassID = binary.BigEndian.Uint64(b[17:])
		return 25, uint64(s.Length) * 8, true
	case PrimArrayDump:
		t := BasicType(b[17])
		es := t.Size(8)
		if es == 0 || t == TypeObject {
			return 0, 0, false
		}
		s.Tag = PrimArrayDump
		s.ID = binary.BigEndian.Uint64(b[1:])
		s.TraceSerial = binary.BigEndian.Uint32(b[9:])
		s.Length = binary.BigEndian.Uint32(b[13:])
		s.ElemType = t
		s.ClassID = 0
		return 18, uint64(s.Length) * uint64(es), true
	}
	return 0, 0, false
}
