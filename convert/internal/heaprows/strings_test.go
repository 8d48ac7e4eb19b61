package heaprows

import (
	"testing"

	"github.com/hprof2pprof/hprof2pprof/convert/hprof"
)

// TestDecodeJavaString decodes hand-made value arrays of each String
// layout: JDK 9+ byte[] with coder 0 (Latin-1) and 1 (UTF-16 in the JVM's
// little-endian order, with a surrogate pair), and the char[] of JDK 8
// and before, whole and restricted by JDK 6's offset and count.
func TestDecodeJavaString(t *testing.T) {
	for _, c := range []struct {
		name   string
		t      hprof.BasicType
		data   []byte
		ps     pendingString
		want   string
		length int64
		coder  string
	}{
		{"latin1", hprof.TypeByte, []byte{'c', 0xE9, 'l'}, pendingString{coder: 0, count: -1}, "cél", 3, "latin1"},
		{"utf16", hprof.TypeByte, []byte{'h', 0, 0x3D, 0xD8, 0x00, 0xDE}, pendingString{coder: 1, count: -1}, "h😀", 3, "utf16"},
		{"char[]", hprof.TypeChar, []byte{0, 'a', 0, 'b', 0, 'c'}, pendingString{coder: -1, count: -1}, "abc", 3, "char[]"},
		{"char[] offset", hprof.TypeChar, []byte{0, 'a', 0, 'b', 0, 'c'}, pendingString{coder: -1, off: 1, count: 2}, "bc", 2, "char[]"},
		{"char[] bad count", hprof.TypeChar, []byte{0, 'a', 0, 'b'}, pendingString{coder: -1, off: 1, count: 5}, "ab", 2, "char[]"},
		{"empty", hprof.TypeByte, nil, pendingString{coder: 0, count: -1}, "", 0, "latin1"},
	} {
		got, n, coder := decodeJavaString(c.t, c.data, &c.ps)
		if got != c.want || n != c.length || coder != c.coder {
			t.Errorf("%s: got %q, %d, %s; want %q, %d, %s", c.name, got, n, coder, c.want, c.length, c.coder)
		}
	}
}

func TestRootKind(t *testing.T) {
	for tag, want := range map[hprof.SubTag]string{
		hprof.RootJavaFrame:    "java frame",
		hprof.RootJNIGlobal:    "jni global",
		hprof.RootThreadObject: "thread object",
		hprof.RootStickyClass:  "sticky class",
	} {
		if got := RootKind(tag); got != want {
			t.Errorf("RootKind(%v) = %q, want %q", tag, got, want)
		}
	}
}
