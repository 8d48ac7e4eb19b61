package layout

import (
	"encoding/binary"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/hprof2pprof/hprof2pprof/convert/hprof"
)

// A java.lang.String holds its text in a value array, in one of these
// layouts:
//   - JDK 9+: byte[] value and byte coder: 0 Latin-1, 1 UTF-16 in the
//     JVM's own byte order (little-endian on every platform dumps come
//     from);
//   - JDK 8 and before: char[] value (big-endian UTF-16, as HPROF writes
//     every char), which JDK 6 shares between Strings: its int offset and
//     count say which part is this String's;
//   - Android ART: no coder; byte[] for a compressed (ASCII) String,
//     char[] otherwise.

// StringFields are the fields of java.lang.String a decoder reads; a
// field of Type 0 is absent.
type StringFields struct {
	Value, Coder, Offset, Count Field
}

// StringFields finds the String fields of a layout: the first field of
// each name with the expected type.
func (l *Layout) StringFields() StringFields {
	var sf StringFields
	for _, f := range l.Fields {
		var dst *Field
		var want hprof.BasicType
		switch f.Name {
		case "value":
			dst, want = &sf.Value, hprof.TypeObject
		case "coder":
			dst, want = &sf.Coder, hprof.TypeByte
		case "offset":
			dst, want = &sf.Offset, hprof.TypeInt
		case "count":
			dst, want = &sf.Count, hprof.TypeInt
		default:
			continue
		}
		if dst.Type == 0 && f.Type == want {
			*dst = f
		}
	}
	return sf
}

// StringRef is what one String instance says of its text.
type StringRef struct {
	Array uint64 // the value array's ID
	Coder int8   // NoCoder, or the coder field: 0 Latin-1, 1 UTF-16
	Off   int32  // the first char of the value array that is the String's
	Count int32  // chars from Off; -1: the whole array
}

// NoCoder is StringRef.Coder of a String without a coder field.
const NoCoder = -1

// StringRef reads a String instance's field bytes data (sf from
// l.StringFields); ok is false when it has no value field, or data ends
// before it. Array is 0 for a null value.
func (l *Layout) StringRef(sf *StringFields, data []byte) (StringRef, bool) {
	if sf.Value.Type == 0 {
		return StringRef{}, false
	}
	arr, ok := l.Value(data, sf.Value)
	if !ok {
		return StringRef{}, false
	}
	r := StringRef{Array: uint64(arr), Coder: NoCoder, Count: -1}
	if sf.Coder.Type != 0 {
		if c, ok := l.Value(data, sf.Coder); ok {
			r.Coder = int8(c)
		}
	}
	if sf.Offset.Type != 0 && sf.Count.Type != 0 {
		off, ok1 := l.Value(data, sf.Offset)
		cnt, ok2 := l.Value(data, sf.Count)
		if ok1 && ok2 && off >= 0 && cnt >= 0 {
			r.Off, r.Count = int32(off), int32(cnt)
		}
	}
	return r, true
}

// DecodeString decodes the value array (elements of type t, bytes data)
// of a String that says r of it. It returns the text, its length in
// UTF-16 units and the name of its encoding: "latin1" (a byte[] of coder
// 0, or without a coder), "utf16" (a byte[] of any other coder) or
// "char[]". JDK 6's offset and count restrict a char[] when they fit in
// it.
func DecodeString(t hprof.BasicType, data []byte, r StringRef) (string, int64, string) {
	if t == hprof.TypeByte && (r.Coder == 0 || r.Coder == NoCoder) {
		b := make([]byte, 0, len(data))
		for _, c := range data {
			b = utf8.AppendRune(b, rune(c))
		}
		return string(b), int64(len(data)), "latin1"
	}
	u := make([]uint16, len(data)/2)
	coder := "utf16"
	if t == hprof.TypeByte {
		for i := range u {
			u[i] = binary.LittleEndian.Uint16(data[2*i:])
		}
	} else {
		coder = "char[]"
		for i := range u {
			u[i] = binary.BigEndian.Uint16(data[2*i:])
		}
		if r.Count >= 0 && int(r.Off)+int(r.Count) <= len(u) {
			u = u[r.Off : r.Off+r.Count]
		}
	}
	return string(utf16.Decode(u)), int64(len(u)), coder
}
