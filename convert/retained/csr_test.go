package retained

import (
	"errors"
	"strings"
	"testing"
)

// TestDegree checks every degree around the byte's limit: where the
// references end, hiding the last one and showing it again, and that a
// filled object never reads as one the second pass missed (a 0 byte).
func TestDegree(t *testing.T) {
	const n = 300
	g := &csr{start: make([]uint32, n), deg: make([]uint8, n), wide: map[uint32]uint32{}}
	for v := range uint32(n) {
		if g.deg[v] != 0 {
			t.Fatalf("object %d reads as filled before it is", v)
		}
		g.start[v] = 1000 * v
		g.setEnd(v, 1000*v+v, &g.wide)
	}
	for v := range uint32(n) {
		if g.deg[v] == 0 {
			t.Fatalf("degree %d: reads as never filled", v)
		}
		if got := g.end(v) - g.start[v]; got != v {
			t.Fatalf("degree %d: reads %d", v, got)
		}
		if v == 0 {
			continue
		}
		g.addDeg(v, -1)
		if got := g.end(v) - g.start[v]; got != v-1 || g.deg[v] == 0 {
			t.Fatalf("degree %d less one: reads %d (byte %d)", v, got, g.deg[v])
		}
		g.addDeg(v, +1)
		if got := g.end(v) - g.start[v]; got != v {
			t.Fatalf("degree %d shown again: reads %d", v, got)
		}
	}
}

// TestFinishGraphMissing checks that objects the first pass found and
// the second never filled are reported (the input changed between them).
func TestFinishGraphMissing(t *testing.T) {
	g := csr{start: make([]uint32, 4), deg: make([]uint8, 4), wide: map[uint32]uint32{}}
	for _, v := range []uint32{0, 2} {
		g.setEnd(v, 0, &g.wide) // filled, no references
	}
	s := &scanner{g: g}
	err := s.finishGraph()
	if !errors.Is(err, ErrChanged) || !strings.Contains(err.Error(), "2 objects") {
		t.Fatalf("two objects never filled: %v", err)
	}
	s.g.setEnd(1, 0, &s.g.wide)
	s.g.setEnd(3, 0, &s.g.wide)
	if err := s.finishGraph(); err != nil {
		t.Fatalf("all filled: %v", err)
	}
}
