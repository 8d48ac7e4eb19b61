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
	switch tag {
	case InstanceDump:
		return decodeInstance(b, idSize, s)
	case ObjArrayDump:
		return decodeObjArray(b, idSize, s)
	case PrimArrayDump, PrimArrayNoData:
		return decodePrimArray(b, idSize, s)
	case ClassDump:
		n, err := decodeClassDump(b, idSize, s)
		return n, 0, err
	}
	n, err := decodeRoot(b, idSize, s)
	return n, 0, err
}

// subID reads an ID of size I (4 or 8) from the start of p.
func subID(p []byte, I int) uint64 {
	if I == 4 {
		return uint64(binary.BigEndian.Uint32(p))
	}
	return binary.BigEndian.Uint64(p)
}

// decodeInstance decodes an INSTANCE DUMP header; its payload is the
// field bytes.
func decodeInstance(b []byte, I int, s *SubRecord) (int, uint64, *subErr) {
	if len(b) < 1+2*I+8 {
		return 0, 0, errShortSub
	}
	p := b[1:]
	s.ID = subID(p, I)
	s.TraceSerial = binary.BigEndian.Uint32(p[I:])
	s.ClassID = subID(p[I+4:], I)
	s.Length = binary.BigEndian.Uint32(p[2*I+4:])
	return 1 + 2*I + 8, uint64(s.Length), nil
}

// decodeObjArray decodes an OBJECT ARRAY DUMP header; its payload is
// Length IDs.
func decodeObjArray(b []byte, I int, s *SubRecord) (int, uint64, *subErr) {
	if len(b) < 1+2*I+8 {
		return 0, 0, errShortSub
	}
	p := b[1:]
	s.ID = subID(p, I)
	s.TraceSerial = binary.BigEndian.Uint32(p[I:])
	s.Length = binary.BigEndian.Uint32(p[I+4:])
	s.ClassID = subID(p[I+8:], I)
	return 1 + 2*I + 8, uint64(s.Length) * uint64(I), nil
}

// decodePrimArray decodes a PRIMITIVE ARRAY DUMP header (payload: Length
// elements) or a PRIMITIVE ARRAY NODATA record (no payload).
func decodePrimArray(b []byte, I int, s *SubRecord) (int, uint64, *subErr) {
	if len(b) < 1+I+9 {
		return 0, 0, errShortSub
	}
	p := b[1:]
	s.ID = subID(p, I)
	s.TraceSerial = binary.BigEndian.Uint32(p[I:])
	s.Length = binary.BigEndian.Uint32(p[I+4:])
	s.ElemType = BasicType(p[I+8])
	s.ClassID = 0
	es := s.ElemType.Size(I)
	if es == 0 || s.ElemType == TypeObject {
		return 0, 0, &subErr{sentinel: ErrCorrupt, msg: fmt.Sprintf("element type %d", p[I+8]), at: 1 + I + 8}
	}
	if s.Tag == PrimArrayNoData {
		return 1 + I + 9, 0, nil
	}
	return 1 + I + 9, uint64(s.Length) * uint64(es), nil
}

// decodeRoot decodes the GC roots and HEAP DUMP INFO, whose fields are
// all fixed and which have no payload; any other tag is unknown.
func decodeRoot(b []byte, I int, s *SubRecord) (int, *subErr) {
	p := b[1:]
	var n int // the sub-record's length, tag byte included
	switch s.Tag {
	case RootUnknown, RootStickyClass, RootMonitorUsed, RootInternedString, RootFinalizing,
		RootDebugger, RootReferenceCleanup, RootVMInternal, Unreachable:
		if n = 1 + I; len(b) >= n {
			s.ID = subID(p, I)
		}
	case RootJNIGlobal:
		if n = 1 + 2*I; len(b) >= n {
			s.ID, s.RefID = subID(p, I), subID(p[I:], I)
		}
	case RootJNILocal, RootJavaFrame, RootThreadObject, RootJNIMonitor:
		if n = 1 + I + 8; len(b) >= n {
			decodeThreadRoot(p, I, s)
		}
	case RootNativeStack, RootThreadBlock:
		if n = 1 + I + 4; len(b) >= n {
			s.ID = subID(p, I)
			s.ThreadSerial = binary.BigEndian.Uint32(p[I:])
		}
	case HeapDumpInfo:
		if n = 1 + 4 + I; len(b) >= n {
			s.HeapID = binary.BigEndian.Uint32(p)
			s.NameID = subID(p[4:], I)
		}
	default:
		return 0, &subErr{sentinel: ErrUnsupported, msg: fmt.Sprintf("unknown heap sub-record tag 0x%02X", uint8(s.Tag))}
	}
	if len(b) < n {
		return 0, errShortSub
	}
	return n, nil
}

// decodeThreadRoot decodes the fields after the tag of a root with a
// thread serial and a frame number (JNI local, Java frame, JNI monitor)
// or, for THREAD OBJECT, a thread serial and a stack trace serial; p
// holds them whole.
func decodeThreadRoot(p []byte, I int, s *SubRecord) {
	s.ID = subID(p, I)
	s.ThreadSerial = binary.BigEndian.Uint32(p[I:])
	s.Frame = binary.BigEndian.Uint32(p[I+4:])
	s.TraceSerial = 0
	if s.Tag == RootThreadObject {
		s.TraceSerial, s.Frame = s.Frame, 0
	}
}

// decodeClassDump decodes a whole CLASS DUMP (tag byte included) from b:
// the fixed part, then the constant pool (skipped), the static fields and
// the instance field declarations.
func decodeClassDump(b []byte, I int, s *SubRecord) (int, *subErr) {
	i := 1
	if len(b) < i+7*I+10 {
		return 0, errShortSub
	}
	c := &s.Class
	c.ID = subID(b[i:], I)
	c.TraceSerial = binary.BigEndian.Uint32(b[i+I:])
	c.SuperID = subID(b[i+I+4:], I)
	c.LoaderID = subID(b[i+2*I+4:], I)
	// signers, protection domain and two reserved IDs are not needed.
	c.InstanceSize = binary.BigEndian.Uint32(b[i+7*I+4:])
	ncp := int(binary.BigEndian.Uint16(b[i+7*I+8:]))
	i += 7*I + 10
	s.ID, s.TraceSerial = c.ID, c.TraceSerial
	i, err := skipConstantPool(b, i, ncp, I)
	if err != nil {
		return 0, err
	}
	if i, err = decodeStatics(b, i, I, c); err != nil {
		return 0, err
	}
	return decodeFieldDecls(b, i, I, c)
}

// skipConstantPool skips the ncp constant pool entries of a CLASS DUMP
// that start at b[i:] and returns the offset after them.
func skipConstantPool(b []byte, i, ncp, I int) (int, *subErr) {
	for k := 0; k < ncp; k++ {
		if len(b) < i+3 {
			return 0, errShortSub
		}
		sz := BasicType(b[i+2]).Size(I)
		if sz == 0 {
			return 0, &subErr{sentinel: ErrCorrupt, msg: fmt.Sprintf("constant pool entry type %d", b[i+2]), at: i + 2}
		}
		i += 3 + sz
	}
	return i, nil
}

// decodeStatics decodes the count and the static fields of a CLASS DUMP
// that start at b[i:] into c.Statics and returns the offset after them.
func decodeStatics(b []byte, i, I int, c *ClassRecord) (int, *subErr) {
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
		f := StaticField{NameID: subID(b[i:], I), Type: BasicType(b[i+I])}
		sz := f.Type.Size(I)
		if sz == 0 {
			return 0, &subErr{sentinel: ErrCorrupt, msg: fmt.Sprintf("static field type %d", b[i+I]), at: i + I}
		}
		i += I + 1
		if len(b) < i+sz {
			return 0, errShortSub
		}
		f.Value = staticValue(b[i:], sz)
		i += sz
		c.Statics = append(c.Statics, f)
	}
	return i, nil
}

// staticValue reads a static field's value of sz bytes (1, 2, 4 or 8)
// from the start of b.
func staticValue(b []byte, sz int) uint64 {
	switch sz {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(binary.BigEndian.Uint16(b))
	case 4:
		return uint64(binary.BigEndian.Uint32(b))
	case 8:
		return binary.BigEndian.Uint64(b)
	}
	return 0
}

// decodeFieldDecls decodes the count and the instance field declarations
// of a CLASS DUMP that start at b[i:] into c.Fields and returns the
// offset after them, the end of the record.
func decodeFieldDecls(b []byte, i, I int, c *ClassRecord) (int, *subErr) {
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
		f := FieldDecl{NameID: subID(b[i:], I), Type: BasicType(b[i+I])}
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
