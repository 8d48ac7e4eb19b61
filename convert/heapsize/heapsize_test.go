package heapsize

import "testing"

// The expected sizes are worked out by hand from HotSpot's layout rules
// (mark word of ID size, class pointer of reference size, fields, 8-byte
// alignment; arrays add a 4-byte length), not taken from our output.
func TestInstance(t *testing.T) {
	for _, c := range []struct {
		name        string
		header, ref int
		chain       []Layout
		want        int64
	}{
		// java.lang.Object: header only. 12 → 16 with compressed oops.
		{"Object, compressed oops", 12, 4, []Layout{{}}, 16},
		{"Object, 8-byte refs", 16, 8, []Layout{{}}, 16},
		// java.lang.Integer: one int. 12 + 4 = 16.
		{"Integer", 12, 4, []Layout{{Prims: 4}, {}}, 16},
		// java.lang.Long: one long. 12 + 8 = 20 → 24.
		{"Long", 12, 4, []Layout{{Prims: 8}, {}}, 24},
		// java.lang.String (JDK 9+): value (ref), hash (int), coder
		// (byte), hashIsZero (boolean): 12 + 4 + 4 + 1 + 1 = 22 → 24.
		{"String", 12, 4, []Layout{{Refs: 1, Prims: 6}, {}}, 24},
		// The same without compressed oops: 16 + 8 + 6 = 30 → 32.
		{"String, 8-byte refs", 16, 8, []Layout{{Refs: 1, Prims: 6}, {}}, 32},
		// java.util.HashMap$Node: hash (int), key, value, next:
		// 12 + 4 + 3 × 4 = 28 → 32.
		{"HashMap$Node", 12, 4, []Layout{{Refs: 3, Prims: 4}, {}}, 32},
		// A subclass adds its fields to its super class's:
		// 12 + (1 ref) + (2 refs + 1 int) = 12 + 4 + 8 + 4 = 28 → 32.
		{"two levels", 12, 4, []Layout{{Refs: 1}, {Refs: 2, Prims: 4}, {}}, 32},
		// A 32-bit VM: 4-byte IDs and references, header 8.
		{"32-bit Object", 8, 4, []Layout{{}}, 8},
		{"32-bit Integer", 8, 4, []Layout{{Prims: 4}, {}}, 16},
	} {
		if got := Instance(c.header, c.ref, c.chain); got != c.want {
			t.Errorf("%s: Instance = %d, want %d", c.name, got, c.want)
		}
	}
}

func TestArray(t *testing.T) {
	for _, c := range []struct {
		name            string
		header, n, elem int64
		want            int64
	}{
		// byte[0]: 12 + 4 = 16.
		{"byte[0]", 12, 0, 1, 16},
		// byte[5]: 16 + 5 = 21 → 24.
		{"byte[5]", 12, 5, 1, 24},
		// int[3]: 16 + 12 = 28 → 32.
		{"int[3]", 12, 3, 4, 32},
		// long[1]: 16 + 8 = 24.
		{"long[1]", 12, 1, 8, 24},
		// Object[3], compressed oops: 16 + 12 = 28 → 32; without: 20 + 24 = 44 → 48.
		{"Object[3]", 12, 3, 4, 32},
		{"Object[3], 8-byte refs", 16, 3, 8, 48},
		// char[1000]: 16 + 2000 = 2016.
		{"char[1000]", 12, 1000, 2, 2016},
	} {
		if got := Array(c.header, c.n, c.elem); got != c.want {
			t.Errorf("%s: Array = %d, want %d", c.name, got, c.want)
		}
	}
}

func TestHeader(t *testing.T) {
	for _, c := range []struct {
		id, ref  int
		compact  bool
		override int
		want     int
	}{
		{8, 4, false, 0, 12}, // compressed oops
		{8, 8, false, 0, 16}, // -XX:-UseCompressedOops
		{4, 4, false, 0, 8},  // 32-bit
		{8, 4, true, 0, 8},   // compact object headers: the mark word alone
		{8, 8, true, 0, 8},   // the same without compressed oops
		{8, 4, false, 8, 8},  // --header-size 8
		{8, 4, true, 12, 12}, // --header-size wins over what the dump says
	} {
		if got := Header(c.id, c.ref, c.compact, c.override); got != c.want {
			t.Errorf("Header(%d, %d, %v, %d) = %d, want %d", c.id, c.ref, c.compact, c.override, got, c.want)
		}
	}
}

// Unsafe.ARRAY_BYTE_BASE_OFFSET is where a byte array's elements start:
// after the header and the 4-byte length. 12 only after an 8-byte header.
func TestCompactFromArrayBase(t *testing.T) {
	for _, c := range []struct {
		id   int
		base int64
		want bool
	}{
		{8, 12, true},  // 8 + 4: JDK 24+ -XX:+UseCompactObjectHeaders
		{8, 16, false}, // 12 + 4: the usual header
		{8, 20, false}, // 16 + 4: -XX:-UseCompressedClassPointers, JDK 21+
		{8, 24, false}, // the same, older JDKs aligning the elements to 8
		{4, 12, false}, // a 32-bit VM: 8 + 4, no compact headers there
	} {
		if got := CompactFromArrayBase(c.id, c.base); got != c.want {
			t.Errorf("CompactFromArrayBase(%d, %d) = %v, want %v", c.id, c.base, got, c.want)
		}
	}
}

func TestModel(t *testing.T) {
	seen := map[int]bool{}
	for _, ref := range []int{4, 8} {
		for _, compact := range []bool{false, true} {
			m := candidate(ref, compact)
			if m < 0 || m >= Models || seen[m] || ModelRef(m) != ref || ModelCompact(m) != compact {
				t.Errorf("candidate(%d, %v) = %d: ref %d, compact %v", ref, compact, m, ModelRef(m), ModelCompact(m))
			}
			seen[m] = true
		}
	}
}

func TestRefSize(t *testing.T) {
	// Class$Atomic's annotationTypeOffset − annotationDataOffset: 4 with
	// compressed oops (fields 4 bytes apart), 8 without.
	if r, ok := RefFromOffsets(20, 16); !ok || r != 4 {
		t.Errorf("RefFromOffsets(20, 16) = %d, %v; want 4", r, ok)
	}
	if r, ok := RefFromOffsets(32, 24); !ok || r != 8 {
		t.Errorf("RefFromOffsets(32, 24) = %d, %v; want 8", r, ok)
	}
	for _, c := range [][2]int64{{24, 24}, {16, 24}, {40, 24}} {
		if _, ok := RefFromOffsets(c[0], c[1]); ok {
			t.Errorf("RefFromOffsets(%d, %d): no reference size should be inferred", c[0], c[1])
		}
	}
	for _, c := range []struct {
		override, id, guess int
		want                int
	}{
		{0, 4, 0, 4}, {0, 4, 8, 4}, {0, 8, 4, 4}, {0, 8, 0, 8}, {8, 8, 4, 8}, {4, 8, 0, 4},
	} {
		if got, _ := RefSize(c.override, c.id, c.guess, "x"); got != c.want {
			t.Errorf("RefSize(%d, %d, %d) = %d, want %d", c.override, c.id, c.guess, got, c.want)
		}
	}
}

func TestWrittenSizes(t *testing.T) {
	if !WrittenSizes(8, 0, 0) {
		t.Error("Android (java.lang.Object 8 bytes): sizes as written")
	}
	if WrittenSizes(0, 0, 0) {
		t.Error("HotSpot (java.lang.Object 0): the field model")
	}
	if WrittenSizes(8, 12, 0) || WrittenSizes(8, 0, 4) {
		t.Error("a user's --header-size or --ref-size: the field model")
	}
}
