package domtree

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

// TestReachShared checks the walk shared between cores against the
// one-core walk, on graphs big enough to be shared: long chains (one
// walker's stack to split), wide fans, cycles and unreached parts.
func TestReachShared(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	rng := rand.New(rand.NewPCG(7, 8))
	for round := range 6 {
		n := 1<<18 + rng.IntN(1<<16)
		adj := make([][]uint32, n)
		for v := range n {
			switch rng.IntN(10) {
			case 0: // unreferenced from here on
			case 1: // a fan
				for range rng.IntN(300) {
					adj[v] = append(adj[v], uint32(rng.IntN(n)))
				}
			default: // a chain, and now and then a jump back
				if v+1 < n {
					adj[v] = append(adj[v], uint32(v+1))
				}
				if rng.IntN(4) == 0 {
					adj[v] = append(adj[v], uint32(rng.IntN(v+1)))
				}
			}
		}
		g := build(adj)
		var roots []uint32
		for range 1 + round*3 {
			roots = append(roots, uint32(rng.IntN(n)))
		}
		want, got := NewBitset(nil, n), NewBitset(nil, n)
		Reach(roots, g, want, nil)
		ReachShared(roots, g, got)
		if !slices.Equal(want, got) {
			t.Fatalf("round %d (%d objects, %d roots): the shared walk marks other objects", round, n, len(roots))
		}
	}
}
