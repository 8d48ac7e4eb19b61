package retained

import (
	"github.com/hprof2pprof/hprof2pprof/convert/retained/internal/domtree"
	"github.com/hprof2pprof/hprof2pprof/convert/retained/internal/mem"
)

// revGraph is the strong graph reversed (referents left out): who refers
// to each object, for the suspects' paths, which search back from their
// objects to the roots.
type revGraph struct {
	off  []uint32 // the referrers of v are from[off[v]:off[v+1]]
	from []uint32
}

func (r *revGraph) in(v uint32) []uint32 { return r.from[r.off[v]:r.off[v+1]] }

// reverse builds the reversed strong graph of g; isWeak marks the
// objects whose last edge is a referent.
func reverse(a *mem.Arena, g *domtree.Graph, n int, isWeak domtree.Bitset) *revGraph {
	out := func(v uint32) []uint32 {
		e := g.Out(v)
		if isWeak.Has(v) && len(e) > 0 {
			e = e[:len(e)-1]
		}
		return e
	}
	r := &revGraph{off: mem.AllocZeroed[uint32](a, n+1)}
	for v := range uint32(n) {
		for _, w := range out(v) {
			r.off[w+1]++
		}
	}
	for v := 1; v <= n; v++ {
		r.off[v] += r.off[v-1]
	}
	r.from = mem.Alloc[uint32](a, int(r.off[n]), int(r.off[n]))
	at := mem.Alloc[uint32](a, n, n)
	defer mem.Free(a, at)
	copy(at, r.off[:n])
	for v := range uint32(n) {
		for _, w := range out(v) {
			r.from[at[w]] = v
			at[w]++
		}
	}
	return r
}
