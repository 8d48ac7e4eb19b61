package heapsize

import (
	"strings"
	"testing"
)

// TestDecide: one model per dump from its evidence and the user's
// overrides. The expected sizes follow HotSpot's layouts: a JDK 17 JVM
// without compressed oops (ZGC, or a heap of 32 GB or more) keeps 12-byte
// headers and 8-byte references, java.lang.Integer 16 bytes.
func TestDecide(t *testing.T) {
	jdk17 := Evidence{IDSize: 8, JDK15: true, Unsafe: "jdk.internal.misc.Unsafe", IntBase: 16, ByteBase: 16, ObjScale: 4}
	noCoops := jdk17
	noCoops.ObjScale = 8
	compact := jdk17
	compact.IntBase, compact.ByteBase = 12, 12
	noKlass := jdk17 // -XX:-UseCompressedClassPointers, JDK 21
	noKlass.IntBase, noKlass.ByteBase = 24, 24
	jdk8 := Evidence{IDSize: 8, Unsafe: "sun.misc.Unsafe", IntBase: 24, ByteBase: 24, ObjScale: 8}
	for _, c := range []struct {
		name            string
		e               Evidence
		o               Overrides
		ref, header     int
		hotspot         bool
		integer, objArr int64 // an Integer; an Object[3]
		describe        string
	}{
		{"JDK 17", jdk17, Overrides{}, 4, 12, true, 16, 32, "object header 12 bytes, array header 16 (jdk.internal.misc.Unsafe.ARRAY_INT_BASE_OFFSET = 16); reference 4 bytes (jdk.internal.misc.Unsafe.ARRAY_OBJECT_INDEX_SCALE); compressed class pointers yes, compact object headers no"},
		{"JDK 17 without compressed oops", noCoops, Overrides{}, 8, 12, true, 16, 40, "reference 8 bytes (jdk.internal.misc.Unsafe.ARRAY_OBJECT_INDEX_SCALE); compressed class pointers yes"},
		{"compact headers", compact, Overrides{}, 4, 8, true, 16, 24, "object header 8 bytes, array header 12 (jdk.internal.misc.Unsafe.ARRAY_BYTE_BASE_OFFSET = 12)"},
		{"uncompressed class pointers", noKlass, Overrides{}, 4, 16, true, 24, 40, "compressed class pointers no"},
		{"--size-model visualvm", noCoops, Overrides{VisualVM: true}, 8, 16, false, 24, 48, "object header 16 bytes, array header 20 (--size-model visualvm"},
		{"JDK 8 without compressed oops", jdk8, Overrides{}, 8, 16, false, 24, 48, "as before JDK 15"},
		{"no evidence", Evidence{IDSize: 8}, Overrides{}, 8, 16, false, 24, 48, "reference 8 bytes (assumed: the ID size"},
		{"--header-size", noCoops, Overrides{Header: 12}, 8, 12, true, 16, 40, "object header 12 bytes, array header 16 (set by --header-size)"},
		{"32-bit", Evidence{IDSize: 4}, Overrides{}, 4, 8, false, 16, 24, "object header 8 bytes, array header 12 (the ID size)"},
		{"Android", Evidence{IDSize: 4, ObjectSize: 8}, Overrides{}, 4, 8, false, 20, 24, "instances as the CLASS DUMP gives them"},
	} {
		m := Decide(c.e, c.o)
		// An Integer has one int field; Android writes its size, 20.
		if m.Ref() != c.ref || m.Header() != c.header || m.HotSpot() != c.hotspot ||
			m.Instance(0, 4, 20) != c.integer || m.RefArray(3) != c.objArr {
			t.Errorf("%s: ref %d, header %d, hotspot %v, Integer %d, Object[3] %d", c.name,
				m.Ref(), m.Header(), m.HotSpot(), m.Instance(0, 4, 20), m.RefArray(3))
		}
		if got := m.Describe(); !strings.Contains(got, c.describe) {
			t.Errorf("%s: Describe = %q, want it to say %q", c.name, got, c.describe)
		}
	}
}

// A class object is java.lang.Class's instance, then the statics.
func TestMirror(t *testing.T) {
	m := Decide(Evidence{IDSize: 8, JDK15: true, Unsafe: "u", IntBase: 16, ObjScale: 4}, Overrides{})
	if got := m.Mirror(96, 3, 5); got != 120 { // 96 + 12 + 5 = 113 → 120
		t.Errorf("Mirror = %d, want 120", got)
	}
	if got := Decide(Evidence{IDSize: 8}, Overrides{}).Mirror(96, 3, 5); got != 0 {
		t.Errorf("before JDK 15, as the oracle: Mirror = %d, want 0", got)
	}
}
