package heaprows

import (
	"encoding/binary"
	"sort"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/heapsize"
	"github.com/hprof2pprof/hprof2pprof/convert/hprof"
)

// stringSub is the string pass: it decodes the byte[] and char[] arrays
// that noted Strings hold (p.pending, sorted by array ID).
func (p *objectPass) stringSub(s *hprof.SubRecord, hr *hprof.HeapReader) error {
	if s.Tag != hprof.PrimArrayDump || (s.ElemType != hprof.TypeByte && s.ElemType != hprof.TypeChar) {
		return nil
	}
	i := sort.Search(len(p.pending), func(i int) bool { return p.pending[i].array >= s.ID })
	if i == len(p.pending) || p.pending[i].array != s.ID {
		return nil
	}
	data, err := hr.Payload()
	if err != nil {
		return err
	}
	bytes := heapsize.Array(p.header, int64(s.Length), int64(s.ElemType.Size(p.idSize)))
	for ; i < len(p.pending) && p.pending[i].array == s.ID; i++ {
		ps := &p.pending[i]
		st := &p.str
		*st = graph.String{ID: ps.id, Array: s.ID, Bytes: bytes, Shallow: p.strSize}
		st.Value, st.Length, st.Coder = decodeJavaString(s.ElemType, data, ps)
		if err := p.sink.String(st); err != nil {
			return err
		}
	}
	return nil
}

// decodeJavaString decodes a String's value array: Latin-1 or UTF-16 (in
// the JVM's byte order, little-endian on every platform the dumps come
// from) for byte[], big-endian UTF-16 for the char[] of JDK 8 and before,
// restricted to offset and count where the String has them (JDK 6). It
// returns the text, its length in UTF-16 units, and the coder's name.
func decodeJavaString(t hprof.BasicType, data []byte, ps *pendingString) (string, int64, string) {
	if t == hprof.TypeByte && ps.coder == 0 {
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
		if ps.count >= 0 && int(ps.off)+int(ps.count) <= len(u) {
			u = u[ps.off : ps.off+ps.count]
		}
	}
	return string(utf16.Decode(u)), int64(len(u)), coder
}
