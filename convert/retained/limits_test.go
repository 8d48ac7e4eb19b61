package retained

import (
	"errors"
	"strings"
	"testing"

	"github.com/hprof2pprof/hprof2pprof/convert/internal/idnote"
)

// A dump past the 32-bit limits is refused by the index build, before
// anything is allocated for it: shown with ranges that claim more than
// 2^31 objects over sparse IDs (no object exists, nothing is read).
func TestLimitsRefusedUpFront(t *testing.T) {
	// Segments of 2^30 objects each, IDs spread over 2^40 bytes apiece.
	seg := func(i uint64) idnote.IDRange {
		lo := 0x10_0000_0000 + i<<40
		return idnote.IDRange{N: 1 << 30, Lo: lo, Hi: lo + 1<<40 - 8, First: lo, Diff: 8}
	}
	for _, c := range []struct {
		name   string
		ranges []idnote.IDRange
		refs   int64
		want   string // in the error
	}{
		{"2^31 objects", []idnote.IDRange{seg(0), seg(1)}, 0, "2147483648 objects, over the 2147483647"},
		{"2^32 objects", []idnote.IDRange{seg(0), seg(1), seg(2), seg(3)}, 0, "4294967296 objects"},
		{"2^32-1 references", []idnote.IDRange{{N: 1, Lo: 8, Hi: 8, First: 8}}, 1<<32 - 1, "up to 4294967295 references"},
		{"2^40 references", []idnote.IDRange{{N: 1, Lo: 8, Hi: 8, First: 8}}, 1 << 40, "over the 4294967294"},
	} {
		s, err := newScanner(Input{})
		if err != nil {
			t.Fatal(err)
		}
		s.maxEdges = c.refs
		x, _, err := s.buildIndex(c.ranges, nil, func(func(int, uint64)) error {
			t.Errorf("%s: the IDs were read", c.name)
			return nil
		})
		s.closeArena()
		if !errors.Is(err, ErrTooLarge) || x != nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: index %v, error %v; want ErrTooLarge saying %q", c.name, x != nil, err, c.want)
		}
	}
}

// At the limits exactly, the counts pass; the sum of the ranges is taken
// in 64 bits, so that no platform's int wraps it.
func TestLimitsAtTheEdge(t *testing.T) {
	r := []idnote.IDRange{{N: MaxObjects / 2}, {N: MaxObjects - MaxObjects/2}}
	if err := checkLimits(r, MaxReferences); err != nil {
		t.Errorf("at the limits: %v", err)
	}
	if err := checkLimits(append(r, idnote.IDRange{N: 1}), 0); !errors.Is(err, ErrTooLarge) {
		t.Errorf("one object over: %v", err)
	}
	if err := checkLimits(r[:1], MaxReferences+1); !errors.Is(err, ErrTooLarge) {
		t.Errorf("one reference over: %v", err)
	}
}
