package domtree

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// build makes a Graph of adjacency lists, as convert/retained fills one.
func build(adj [][]uint32) *Graph {
	n := len(adj)
	g := &Graph{Start: make([]uint32, n), Deg: make([]uint8, n), Wide: map[uint32]uint32{}}
	for v := range adj {
		g.Start[v] = uint32(len(g.Edges))
		g.Edges = append(g.Edges, adj[v]...)
		g.SetEnd(uint32(v), uint32(len(g.Edges)), &g.Wide)
	}
	return g
}

// Answers by node: the immediate dominator, or one of these.
const (
	virtualRoot = -1 // dominated by no node: the roots, and nodes several roots reach
	unreached   = -2
)

// idomOf runs the numbering, the reverse graph and semi-NCA from the
// roots over the nodes allowed holds (nil: all), and returns the
// immediate dominator of every node.
func idomOf(adj [][]uint32, roots []uint32, allowed Bitset) []int {
	n := len(adj)
	g := build(adj)
	numbered := NewBitset(nil, n)
	parent, log := DFS(nil, roots, g, numbered, allowed, nil, make(EdgeLog, 0, len(g.Edges)+len(roots)), nil)
	pre := g.Start // the numbers, where numbered is set
	for _, r := range roots {
		log = log.Add(0, pre[r])
	}
	off, preds := Predecessors(nil, len(parent), log)
	idom := Dominators(make([]uint64, len(parent)), parent, off, preds)
	vertex := make([]int, len(idom))
	for v := range n {
		if numbered.Has(uint32(v)) {
			vertex[pre[v]] = v
		}
	}
	out := make([]int, n)
	for v := range n {
		switch {
		case !numbered.Has(uint32(v)):
			out[v] = unreached
		case idom[pre[v]] == 0:
			out[v] = virtualRoot
		default:
			out[v] = vertex[idom[pre[v]]]
		}
	}
	return out
}

// dataflowIdom computes the same by the textbook's iterative dataflow:
// with a virtual root r above the roots, Dom(r) = {r} and Dom(v) = {v} ∪
// the intersection of Dom(p) over v's reached predecessors, repeated
// until nothing changes; v's immediate dominator is the strict dominator
// with the most dominators of its own.
func dataflowIdom(adj [][]uint32, roots []uint32, allowed func(int) bool) []int {
	n := len(adj)
	r := n // the virtual root
	preds := make([][]int, n+1)
	for v := range adj {
		if !allowed(v) {
			continue
		}
		for _, w := range adj[v] {
			if allowed(int(w)) {
				preds[w] = append(preds[w], v)
			}
		}
	}
	for _, x := range roots {
		preds[x] = append(preds[x], r)
	}
	// What the roots reach, over allowed nodes.
	reached := make([]bool, n+1)
	reached[r] = true
	stack := []int{}
	for _, x := range roots {
		if !reached[x] {
			reached[x] = true
			stack = append(stack, int(x))
		}
	}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, w := range adj[v] {
			if allowed(int(w)) && !reached[w] {
				reached[w] = true
				stack = append(stack, int(w))
			}
		}
	}
	dom := make([][]bool, n+1)
	for v := range dom {
		dom[v] = make([]bool, n+1)
		for d := range dom[v] {
			dom[v][d] = v != r || d == r // all, but {r} for the root
		}
	}
	for changed := true; changed; {
		changed = false
		for v := range n {
			if !reached[v] {
				continue
			}
			next := make([]bool, n+1)
			first := true
			for _, p := range preds[v] {
				if !reached[p] {
					continue
				}
				for d := range next {
					if first {
						next[d] = dom[p][d]
					} else {
						next[d] = next[d] && dom[p][d]
					}
				}
				first = false
			}
			next[v] = true
			if !slices.Equal(next, dom[v]) {
				dom[v], changed = next, true
			}
		}
	}
	count := func(s []bool) int {
		k := 0
		for _, b := range s {
			if b {
				k++
			}
		}
		return k
	}
	out := make([]int, n)
	for v := range n {
		out[v] = unreached
		if !reached[v] {
			continue
		}
		best, most := r, -1
		for d := range n + 1 {
			if d != v && dom[v][d] && count(dom[d]) > most {
				best, most = d, count(dom[d])
			}
		}
		out[v] = best
		if best == r {
			out[v] = virtualRoot
		}
	}
	return out
}

// TestDominatorsByHand checks small graphs whose dominators are worked
// out by hand, and the dataflow answer on each.
func TestDominatorsByHand(t *testing.T) {
	const R, U = virtualRoot, unreached
	for _, c := range []struct {
		name  string
		adj   [][]uint32
		roots []uint32
		want  []int
	}{
		{"diamond", [][]uint32{{1, 2}, {3}, {3}, {4}, nil}, []uint32{0}, []int{R, 0, 0, 0, 3}},
		{"two roots share", [][]uint32{{2}, {2}, {3}, nil}, []uint32{0, 1}, []int{R, R, R, 2}},
		{"loop", [][]uint32{{1}, {2}, {1, 3}, nil}, []uint32{0}, []int{R, 0, 1, 2}},
		{"unreached holder", [][]uint32{{1}, nil, {1}}, []uint32{0}, []int{R, 0, U}},
		{"self edge and back edge", [][]uint32{{0, 1}, {1, 2, 0}, {0}}, []uint32{0}, []int{R, 0, 1}},
		// Lengauer and Tarjan's example: R=0, A..L = 1..12.
		{"Lengauer-Tarjan", [][]uint32{
			0: {1, 2, 3}, 1: {4}, 2: {1, 4, 5}, 3: {6, 7}, 4: {12}, 5: {8},
			6: {9}, 7: {9, 10}, 8: {5, 11}, 9: {11}, 10: {9}, 11: {9, 0}, 12: {8},
		}, []uint32{0}, []int{R, 0, 0, 0, 0, 0, 3, 3, 0, 0, 7, 0, 4}},
	} {
		all := func(int) bool { return true }
		if got := idomOf(c.adj, c.roots, nil); !slices.Equal(got, c.want) {
			t.Errorf("%s: semi-NCA gives %v, want %v", c.name, got, c.want)
		}
		if got := dataflowIdom(c.adj, c.roots, all); !slices.Equal(got, c.want) {
			t.Errorf("%s: the dataflow gives %v, want %v", c.name, got, c.want)
		}
	}
}

// TestDominatorsAllowed: a node the walk may not enter keeps nothing
// alive; the diamond without one side is a chain through the other.
func TestDominatorsAllowed(t *testing.T) {
	adj := [][]uint32{{1, 2}, {3}, {3}, {4}, nil}
	allowed := NewBitset(nil, len(adj))
	for _, v := range []uint32{0, 2, 3, 4} {
		allowed.Set(v)
	}
	want := []int{virtualRoot, unreached, 0, 2, 3}
	if got := idomOf(adj, []uint32{0}, allowed); !slices.Equal(got, want) {
		t.Errorf("semi-NCA gives %v, want %v", got, want)
	}
	if got := dataflowIdom(adj, []uint32{0}, func(v int) bool { return allowed.Has(uint32(v)) }); !slices.Equal(got, want) {
		t.Errorf("the dataflow gives %v, want %v", got, want)
	}
}

// TestDominatorsDataflow compares semi-NCA with the iterative dataflow
// on random graphs, with and without nodes the walk may not enter.
func TestDominatorsDataflow(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for iter := range 300 {
		n := 1 + rng.IntN(60)
		adj := make([][]uint32, n)
		for v := range adj {
			for k := rng.IntN(4); k > 0; k-- {
				adj[v] = append(adj[v], uint32(rng.IntN(n)))
			}
		}
		roots := []uint32{uint32(rng.IntN(n))}
		if r := uint32(rng.IntN(n)); iter%2 == 0 && r != roots[0] {
			roots = append(roots, r)
		}
		var allowed Bitset
		ok := func(int) bool { return true }
		if iter%3 == 0 {
			allowed = NewBitset(nil, n)
			for v := range uint32(n) {
				if slices.Contains(roots, v) || rng.IntN(4) != 0 {
					allowed.Set(v)
				}
			}
			ok = func(v int) bool { return allowed.Has(uint32(v)) }
		}
		got, want := idomOf(adj, roots, allowed), dataflowIdom(adj, roots, ok)
		if !slices.Equal(got, want) {
			t.Fatalf("iter %d: semi-NCA gives %v, the dataflow %v (adj %v roots %v)", iter, got, want, adj, roots)
		}
	}
}

// TestReachByHand: Reach marks what the roots reach, once each, through
// cycles, and not what only an unreached node refers to.
func TestReachByHand(t *testing.T) {
	adj := [][]uint32{{1, 2}, {2, 0}, {2}, {1, 4}, nil, {5}}
	g := build(adj)
	seen := NewBitset(nil, len(adj))
	var order []uint32
	Reach([]uint32{0, 0}, g, seen, func(v uint32) { order = append(order, v) })
	slices.Sort(order)
	if want := []uint32{0, 1, 2}; !slices.Equal(order, want) {
		t.Fatalf("marked %v, want %v", order, want)
	}
	for v := range uint32(len(adj)) {
		if seen.Has(v) != (v <= 2) {
			t.Errorf("node %d marked %v", v, seen.Has(v))
		}
	}
	shared := NewBitset(nil, len(adj))
	ReachShared([]uint32{0}, g, shared)
	if !slices.Equal(shared, seen) {
		t.Errorf("ReachShared marks %b, Reach %b", shared, seen)
	}
}
