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
		if got := Array(c.header+4, c.n, c.elem); got != c.want { // the header and the length
			t.Errorf("%s: Array = %d, want %d", c.name, got, c.want)
		}
	}
}

// Unsafe.ARRAY_INT_BASE_OFFSET is where an int array's elements start:
// after the header and the 4-byte length.
func TestHeaderFromBase(t *testing.T) {
	for _, c := range []struct {
		id   int
		base int64
		ok   bool
		want int
	}{
		{8, 16, true, 12}, // compressed class pointers: 12 + 4
		{8, 12, true, 8},  // compact object headers (JDK 24+): 8 + 4
		{8, 20, true, 16}, // uncompressed class pointers, JDK 22+: 16 + 4
		{8, 24, true, 16}, // the same before JDK 22, elements aligned to 8
		{4, 12, true, 8},  // a 32-bit VM: 8 + 4
		{4, 16, false, 0}, // not a 32-bit VM's
		{8, 10, false, 0}, // not a multiple of 4
		{8, 40, false, 0}, // larger than any header
	} {
		b, ok := ArrayBase(c.id, c.base)
		if ok != c.ok || (ok && HeaderFromBase(c.id, b) != c.want) {
			t.Errorf("ArrayBase(%d, %d) = %d, %v; want %v, header %d", c.id, c.base, b, ok, c.ok, c.want)
		}
	}
}

// ArraySums must give, for every model, the sum of the arrays' sizes
// taken one by one (Array).
func TestArraySums(t *testing.T) {
	for _, elem := range []int64{0, 1, 2, 4, 8} {
		for _, base := range []int{12, 16, 20, 24} {
			for _, ref := range []int{4, 8} {
				m := Model{base: base, ref: ref}
				var s ArraySums
				var want int64
				for n := int64(0); n < 40; n += 1 + n/7 {
					add, e := elem, elem
					if elem == 0 {
						add, e = 4, int64(ref)
					}
					s.Add(n, add)
					want += Array(int64(base), n, e)
				}
				var merged ArraySums
				merged.Merge(s)
				if got := m.ArrayBytes(merged, elem); got != want {
					t.Errorf("elem %d, base %d, ref %d: ArrayBytes %d, one by one %d", elem, base, ref, got, want)
				}
			}
		}
	}
}

// Injected: the fields HotSpot adds, by JDK (told by declared fields),
// and @Contended padding.
func TestInjected(t *testing.T) {
	has := func(names ...string) func(string) bool {
		return func(n string) bool {
			for _, x := range names {
				if x == n {
					return true
				}
			}
			return false
		}
	}
	for _, c := range []struct {
		class     string
		declares  func(string) bool
		want      Layout
		contended bool
	}{
		{"java.lang.String", has(), Layout{}, false},
		{"java.lang.ClassLoader", has(), Layout{Prims: 8}, false},
		{"java.lang.invoke.MemberName", has("method"), Layout{Prims: 8}, false}, // JDK 11+: vmindex
		{"java.lang.invoke.MemberName", has(), Layout{Prims: 16}, false},        // JDK 8: vmtarget too
		{"java.lang.invoke.ResolvedMethodName", has(), Layout{Refs: 1, Prims: 8}, false},
		{"java.lang.invoke.ResolvedMethodName", has("vmholder"), Layout{Prims: 8}, false},
		{"java.lang.Thread", has("threadLocalRandomSeed"), Layout{Prims: 256}, true}, // JDK 17: one group
		{"java.lang.Thread", has("threadLocalRandomSeed", "holder"), Layout{Prims: 15}, false},
		{"java.util.concurrent.atomic.Striped64$Cell", has(), Layout{Prims: 256}, true},
		{"java.util.concurrent.SubmissionPublisher$BufferedSubscription", has(), Layout{Prims: 384}, true},
	} {
		got, contended := Injected(8, c.class, c.declares)
		if got != c.want || contended != c.contended {
			t.Errorf("%s: %+v %v, want %+v %v", c.class, got, contended, c.want, c.contended)
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
