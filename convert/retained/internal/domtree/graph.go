package domtree

import "github.com/hprof2pprof/hprof2pprof/convert/retained/internal/mem"

// Graph is a directed graph by dense node number in compressed sparse
// rows: the edges out of node v are Edges[Start[v] : Start[v]+degree]. A
// degree takes one byte per node, kept plus one, so that 0 says the node
// has not been filled (yet); 254 or more edges (large object arrays) are
// counted in Wide, one entry per such node.
type Graph struct {
	Start []uint32
	Deg   []uint8           // edges of each node plus one (0: not filled); WideDeg: see Wide
	Wide  map[uint32]uint32 // edges of the nodes with WideDeg
	Edges []uint32
}

// WideDeg is the degree byte of a node whose degree is in Graph.Wide.
const WideDeg = 255

// End returns where node v's edges end.
func (g *Graph) End(v uint32) uint32 {
	d := uint32(g.Deg[v]) - 1
	if d == WideDeg-1 {
		d = g.Wide[v]
	}
	return g.Start[v] + d
}

// Out returns node v's edges.
func (g *Graph) Out(v uint32) []uint32 {
	return g.Edges[g.Start[v]:g.End(v)]
}

// SetEnd notes that node v's edges end at end; a wide degree goes to
// *wide (Wide itself, or a filler's own map, merged into Wide later).
func (g *Graph) SetEnd(v, end uint32, wide *map[uint32]uint32) {
	d := end - g.Start[v]
	if d < WideDeg-1 {
		g.Deg[v] = uint8(d + 1)
		return
	}
	g.Deg[v] = WideDeg
	if *wide == nil {
		*wide = map[uint32]uint32{}
	}
	(*wide)[v] = d
}

// AddDeg changes node v's degree by one (-1, then +1): hiding its last
// edge and showing it again.
func (g *Graph) AddDeg(v uint32, by int) {
	if g.Deg[v] == WideDeg {
		g.Wide[v] = uint32(int(g.Wide[v]) + by)
		return
	}
	g.Deg[v] = uint8(int(g.Deg[v]) + by)
}

// Bitset is one bit per node: an eighth of a []bool, so that a walk's
// marks for a graph of tens of millions of nodes stay in the cache.
type Bitset []uint64

// NewBitset returns a bitset for n nodes, none set, from a.
func NewBitset(a *mem.Arena, n int) Bitset { return mem.AllocZeroed[uint64](a, n/64+1) }

// Has reports whether v is set.
func (b Bitset) Has(v uint32) bool { return b[v>>6]&(1<<(v&63)) != 0 }

// Set sets v.
func (b Bitset) Set(v uint32) { b[v>>6] |= 1 << (v & 63) }
