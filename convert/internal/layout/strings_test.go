package layout

import (
	"testing"

	"github.com/hprof2pprof/hprof2pprof/convert/hprof"
)

// TestDecodeString decodes hand-made value arrays of each String
// layout: JDK 9+ byte[] with coder 0 (Latin-1) and 1 (UTF-16 in the JVM's
// little-endian order, with a surrogate pair), and the char[] of JDK 8
// and before, whole and restricted by JDK 6's offset and count, and
// Android ART's byte[] of a compressed String, which has no coder.
func TestDecodeString(t *testing.T) {
	for _, c := range []struct {
		name   string
		t      hprof.BasicType
		data   []byte
		r      StringRef
		want   string
		length int64
		coder  string
	}{
		{"latin1", hprof.TypeByte, []byte{'c', 0xE9, 'l'}, StringRef{Coder: 0, Count: -1}, "cél", 3, "latin1"},
		{"utf16", hprof.TypeByte, []byte{'h', 0, 0x3D, 0xD8, 0x00, 0xDE}, StringRef{Coder: 1, Count: -1}, "h😀", 3, "utf16"},
		{"char[]", hprof.TypeChar, []byte{0, 'a', 0, 'b', 0, 'c'}, StringRef{Coder: NoCoder, Count: -1}, "abc", 3, "char[]"},
		{"char[] offset", hprof.TypeChar, []byte{0, 'a', 0, 'b', 0, 'c'}, StringRef{Coder: NoCoder, Off: 1, Count: 2}, "bc", 2, "char[]"},
		{"char[] bad count", hprof.TypeChar, []byte{0, 'a', 0, 'b'}, StringRef{Coder: NoCoder, Off: 1, Count: 5}, "ab", 2, "char[]"},
		{"ART compressed", hprof.TypeByte, []byte{'m', 'a', 'i', 'n'}, StringRef{Coder: NoCoder, Count: -1}, "main", 4, "latin1"},
		{"empty", hprof.TypeByte, nil, StringRef{Coder: 0, Count: -1}, "", 0, "latin1"},
	} {
		got, n, coder := DecodeString(c.t, c.data, c.r)
		if got != c.want || n != c.length || coder != c.coder {
			t.Errorf("%s: got %q, %d, %s; want %q, %d, %s", c.name, got, n, coder, c.want, c.length, c.coder)
		}
	}
}
