package domtree

import "testing"

// TestDegree checks every degree around the byte's limit: where the
// references end, hiding the last one and showing it again, and that a
// filled object never reads as one the second pass missed (a 0 byte).
func TestDegree(t *testing.T) {
	const n = 300
	g := &Graph{Start: make([]uint32, n), Deg: make([]uint8, n), Wide: map[uint32]uint32{}}
	for v := range uint32(n) {
		if g.Deg[v] != 0 {
			t.Fatalf("object %d reads as filled before it is", v)
		}
		g.Start[v] = 1000 * v
		g.SetEnd(v, 1000*v+v, &g.Wide)
	}
	for v := range uint32(n) {
		if g.Deg[v] == 0 {
			t.Fatalf("degree %d: reads as never filled", v)
		}
		if got := g.End(v) - g.Start[v]; got != v {
			t.Fatalf("degree %d: reads %d", v, got)
		}
		if v == 0 {
			continue
		}
		g.AddDeg(v, -1)
		if got := g.End(v) - g.Start[v]; got != v-1 || g.Deg[v] == 0 {
			t.Fatalf("degree %d less one: reads %d (byte %d)", v, got, g.Deg[v])
		}
		g.AddDeg(v, +1)
		if got := g.End(v) - g.Start[v]; got != v {
			t.Fatalf("degree %d shown again: reads %d", v, got)
		}
	}
}
