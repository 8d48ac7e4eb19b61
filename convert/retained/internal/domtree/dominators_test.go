package domtree

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hprof2pprof/hprof2pprof/convert/retained/internal/mem"
)

// reachable marks what the roots reach in a graph given as adjacency
// lists, without passing through the node cut (-1: none).
func reachable(adj [][]uint32, roots []uint32, cut int) []bool {
	seen := make([]bool, len(adj))
	stack := []uint32{}
	for _, r := range roots {
		if int(r) != cut && !seen[r] {
			seen[r] = true
			stack = append(stack, r)
		}
	}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, w := range adj[v] {
			if int(w) != cut && !seen[w] {
				seen[w] = true
				stack = append(stack, w)
			}
		}
	}
	return seen
}

// TestDominatorsBruteForce compares semi-NCA with the definition: d
// dominates v when every path from the roots to v passes through d.
func TestDominatorsBruteForce(t *testing.T) {
	dominatorsBruteForce(t, rand.New(rand.NewPCG(1, 2)), 500, 40, 140)
}

// TestDominatorsShared is TestDominatorsBruteForce with the predecessors
// of numbers that many refer to evaluated on two cores at once
// (semiEval.shared): small graphs with every such number shared, then
// larger ones, whose evaluations race for the same paths.
func TestDominatorsShared(t *testing.T) {
	if !mem.CanStoreShared {
		t.Skip("the dominators stay on one core on this platform")
	}
	defer func(n int) { sharedPreds = n }(sharedPreds)
	sharedPreds = 4
	dominatorsBruteForce(t, rand.New(rand.NewPCG(3, 4)), 300, 40, 140)
	sharedPreds = 64
	dominatorsBruteForce(t, rand.New(rand.NewPCG(5, 6)), 6, 2000, 3000)
}

// dominatorsBruteForce checks iters random graphs of up to n objects;
// some have a node that up to hot others refer to.
func dominatorsBruteForce(t *testing.T, rng *rand.Rand, iters, maxN, hot int) {
	for iter := 0; iter < iters; iter++ {
		n := 1 + rng.IntN(maxN)
		adj := make([][]uint32, n)
		for v := range adj {
			k := rng.IntN(4)
			if rng.IntN(25) == 0 {
				k = 250 + rng.IntN(20) // a wide degree, around the byte's limit
			}
			for ; k > 0; k-- {
				adj[v] = append(adj[v], uint32(rng.IntN(n)))
			}
		}
		for hubs := rng.IntN(8) - 6 + maxN/500; hubs >= 0; hubs-- {
			// A node many others refer to: more predecessors than the
			// dominators' batches and prefetches take at once.
			h := uint32(rng.IntN(n))
			for k := hot/4 + rng.IntN(hot-hot/4); k > 0; k-- {
				v := rng.IntN(n)
				adj[v] = append(adj[v], h)
			}
		}
		var roots []uint32
		for k := 1 + rng.IntN(3); k > 0; k-- {
			if r := uint32(rng.IntN(n)); !slices.Contains(roots, r) {
				roots = append(roots, r)
			}
		}
		g := build(adj)
		// A third of the graphs have objects the walk may not enter (as
		// strong reach leaves objects only referents reach): the
		// answer is then that of the graph without them.
		var allowed Bitset
		blocked := make([]bool, n)
		if iter%3 == 2 {
			allowed = NewBitset(nil, n)
			for v := range uint32(n) {
				if slices.Contains(roots, v) || rng.IntN(4) != 0 {
					allowed.Set(v)
				} else {
					blocked[v] = true
				}
			}
		}
		numbered := NewBitset(nil, n)
		parent, log := DFS(nil, roots, g, numbered, allowed, nil, make(EdgeLog, 0, len(g.Edges)+len(roots)), nil)
		pre := g.Start // the numbers, where numbered is set
		for v := range uint32(n) {
			if !numbered.Has(v) {
				pre[v] = 0
			}
		}
		for _, r := range roots {
			log = log.Add(0, pre[r])
		}
		off, preds := Predecessors(nil, len(parent), log)
		// The forest's memory comes from an array the analysis is done
		// with: its contents on entry must not matter.
		forest := make([]uint64, len(parent))
		for i := range forest {
			forest[i] = rng.Uint64()
		}
		idom := Dominators(forest, parent, off, preds)
		vertex := make([]uint32, len(parent))
		for v, a := range pre {
			if a != 0 {
				vertex[a] = uint32(v)
			}
		}

		// The graph without the blocked objects.
		for v := range adj {
			if blocked[v] {
				adj[v] = nil
			}
			adj[v] = slices.DeleteFunc(adj[v], func(w uint32) bool { return blocked[w] })
		}
		all := reachable(adj, roots, -1)
		// doms[v] = the objects whose removal cuts v off.
		doms := make([][]int, n)
		for d := 0; d < n; d++ {
			r := reachable(adj, roots, d)
			for v := 0; v < n; v++ {
				if v != d && all[v] && !r[v] {
					doms[v] = append(doms[v], d)
				}
			}
		}
		for v := 0; v < n; v++ {
			if !all[v] {
				if pre[v] != 0 {
					t.Fatalf("iter %d: object %d unreachable but numbered", iter, v)
				}
				continue
			}
			// The immediate dominator is the strict dominator that all
			// others dominate; none means the virtual root.
			want := -1
			for _, d := range doms[v] {
				ok := true
				for _, e := range doms[v] {
					if e != d && !slices.Contains(doms[d], e) {
						ok = false
					}
				}
				if ok {
					want = d
				}
			}
			got := -1
			if a := idom[pre[v]]; a != 0 {
				got = int(vertex[a])
			}
			if got != want {
				t.Fatalf("iter %d: idom(%d) = %d, want %d (adj %v roots %v)", iter, v, got, want, adj, roots)
			}
		}
	}
}
