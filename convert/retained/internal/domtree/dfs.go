package domtree

import "github.com/hprof2pprof/hprof2pprof/convert/retained/internal/mem"

// DFS numbers the nodes reachable from the roots in depth-first
// preorder. Number 0 is the virtual root above every root; nodes get
// 1..m. It returns parent (number → number of the DFS tree parent),
// extending the parent of an earlier call (nil for the first), and the
// log extended by every other edge between numbered nodes (see
// EdgeLog), for Predecessors. A node's number takes the place of where
// its edges start (g.Start), which the walk reads once, as it reaches the
// node, and sets it in numbered; nodes allowed does not hold (nil: all
// are allowed) are not entered, and edges to them are left out: they
// keep nothing alive. The graph's edges are only read, so they can be
// freed as soon as the numbering is done. warm, when set, is told now
// and then how far parent (array 0) and the log (array 1, as words) are
// written.
func DFS(a *mem.Arena, roots []uint32, g *Graph, numbered, allowed Bitset, parent []uint32, log EdgeLog, warm *mem.Warmer) ([]uint32, EdgeLog) {
	n := len(g.Start)
	if parent == nil {
		// Capacity for every node; pages never reached are never touched.
		parent = mem.Alloc[uint32](a, 1, n+1)
	}
	type frame struct{ a, k, end uint32 }
	var stack []frame
	edges, starts := g.Edges, g.Start
	// One loop, no closure for a visit: a closure's captured slices live
	// in memory, and its indirect call spills every register (the walk's
	// own work per node is a few instructions around two cache misses).
	for _, r := range roots {
		if numbered.Has(r) {
			continue
		}
		v, p := r, uint32(0) // the node to visit and its DFS parent's number
		for {
			a := uint32(len(parent))
			if a&0xffff == 0 {
				warm.Wrote(0, len(parent))
				warm.Wrote(1, 2*len(log))
			}
			start, end := starts[v], g.End(v)
			starts[v] = a
			numbered.Set(v)
			parent = append(parent, p)
			stack = append(stack, frame{a, start, end})
			// On to the next node to visit, popping the nodes whose
			// edges are all seen.
			next := false
			for len(stack) > 0 {
				top := &stack[len(stack)-1]
				k := top.k
				if k >= top.end {
					stack = stack[:len(stack)-1]
					continue
				}
				top.k = k + 1
				w := edges[k]
				if numbered.Has(w) {
					log = log.Add(top.a, starts[w])
				} else if allowed == nil || allowed.Has(w) {
					v, p, next = w, top.a, true
					break
				}
			}
			if !next {
				break
			}
		}
	}
	return parent, log
}

// EdgeLog holds edges in DFS numbers, target in the high word and source
// in the low one, as DFS meets them: the edges that are not DFS tree
// edges (whose source, the target's DFS parent, is where the dominators
// start from anyway; a second edge from the parent is no other candidate
// either), which are a minority in a heap (bench-1g: 9.6 M of 28.6 M),
// and the virtual root's edges to the roots. Predecessors turns it into
// the reverse graph once the forward graph is freed: the two are never
// in memory together.
type EdgeLog []uint64

// Add appends the edge from number src to number dst. The log's capacity
// is a bound on its edges, set when it is allocated.
func (l EdgeLog) Add(src, dst uint32) EdgeLog {
	return append(l, uint64(dst)<<32|uint64(src))
}

// Predecessors builds the reverse graph in DFS numbers, for m numbers,
// from the edges of log: the predecessors of number a are
// preds[off[a]:off[a+1]], in no particular order. Both arrays are in
// small pages, to take those of the references just freed (mem.AllocSmall):
// the dominators read them in order.
func Predecessors(a *mem.Arena, m int, log EdgeLog) (off, preds []uint32) {
	off = mem.AllocSmall[uint32](a, m+1, m+1)
	for _, e := range log {
		off[e>>32]++
	}
	// Prefix sums, shifted so off[a] is the end while filling.
	var sum uint32
	for a := 0; a < m; a++ {
		sum += off[a]
		off[a] = sum
	}
	off[m] = sum
	preds = mem.AllocSmall[uint32](a, int(sum), int(sum))
	for _, e := range log {
		b := e >> 32
		off[b]--
		preds[off[b]] = uint32(e)
	}
	return off, preds
}
