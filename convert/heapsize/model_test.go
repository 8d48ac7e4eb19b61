package heapsize

import "testing"

// TestDecide: one model per dump from its evidence and the user's
// overrides, and the line the heap view's comments give it (the rules are
// Header, RefSize and WrittenSizes; this checks they are applied together).
func TestDecide(t *testing.T) {
	for _, c := range []struct {
		name          string
		e             Evidence
		o             Overrides
		ref, header   int
		written       bool
		candidate     int
		inst, objArr3 int64
		describe      string
	}{
		{"compressed oops", Evidence{IDSize: 8, RefGuess: 4, RefFrom: "java.lang.Class$Atomic"}, Overrides{}, 4, 12, false, 0, 24, 32,
			"size model: reference 4 bytes (from static offsets in java.lang.Class$Atomic), object header 12, array header 16, 8-byte alignment"},
		{"no evidence", Evidence{IDSize: 8}, Overrides{}, 8, 16, false, 1, 32, 48,
			"size model: reference 8 bytes (the ID size; no JDK class told otherwise), object header 16, array header 20, 8-byte alignment"},
		{"compact headers", Evidence{IDSize: 8, RefGuess: 4, RefFrom: "x", Compact: true}, Overrides{}, 4, 8, false, 2, 24, 24,
			"size model: reference 4 bytes (from static offsets in x), object header 8 (compact object headers: jdk.internal.misc.Unsafe.ARRAY_BYTE_BASE_OFFSET is 12), array header 12, 8-byte alignment"},
		{"--header-size over compact", Evidence{IDSize: 8, RefGuess: 4, RefFrom: "x", Compact: true}, Overrides{Header: 12}, 4, 12, false, 0, 24, 32,
			"size model: reference 4 bytes (from static offsets in x), object header 12, array header 16, 8-byte alignment"},
		{"Android", Evidence{IDSize: 4, ObjectSize: 8}, Overrides{}, 4, 8, true, 0, 20, 24,
			"size model: instances as the CLASS DUMP gives them (Android object sizes, java.lang.Object 8 bytes, not aligned); arrays: header 12, reference 4 bytes, 8-byte alignment"},
		{"Android, --ref-size", Evidence{IDSize: 4, ObjectSize: 8}, Overrides{Ref: 8}, 8, 12, false, 1, 32, 40,
			"size model: reference 8 bytes (set by --ref-size), object header 12, array header 16, 8-byte alignment"},
	} {
		m := Decide(c.e, c.o)
		// An instance of one reference and 5 primitive bytes, written as
		// 20 bytes; an array of 3 references.
		if m.Ref() != c.ref || m.Header() != c.header || m.Written() != c.written || m.Candidate() != c.candidate ||
			m.Instance(1, 5, 20) != c.inst || m.RefArray(3) != c.objArr3 {
			t.Errorf("%s: ref %d, header %d, written %v, candidate %d, instance %d, Object[3] %d", c.name,
				m.Ref(), m.Header(), m.Written(), m.Candidate(), m.Instance(1, 5, 20), m.RefArray(3))
		}
		if got := m.Describe(); got != c.describe {
			t.Errorf("%s: Describe = %q, want %q", c.name, got, c.describe)
		}
		// The candidate's arrays are the model's.
		if cm := Candidates(c.e.IDSize, c.o)[m.Candidate()]; cm.RefArray(3) != m.RefArray(3) || cm.Array(5, 2) != m.Array(5, 2) {
			t.Errorf("%s: candidate %d sizes arrays differently", c.name, m.Candidate())
		}
	}
}
