package domtree

import (
	"slices"
	"testing"
)

// TestTopSums: on a tree worked out by hand, each class sums the nodes
// no node of its class dominates; a node of no class (flagged) neither
// counts nor ends a run of its dominator's class.
func TestTopSums(t *testing.T) {
	const none = 1 << 31
	//   0 ─┬─ 1 (A, 10) ── 2 (A, 6) ── 3 (B, 4) ── 4 (A, 1)
	//      ├─ 5 (B, 7) ── 6 (none, 3) ── 7 (B, 2)
	//      └─ 8 (A, 5)
	idom := []uint32{0, 0, 1, 2, 3, 0, 5, 6, 0}
	cls := []uint32{0, 0, 0, 1, 0, 1, none, 1, 0}
	ret := []int64{0, 10, 6, 4, 1, 7, 3, 2, 5}
	got := TopSums(nil, idom, cls, ret, 2, none)
	if want := []int64{10 + 5, 4 + 7}; !slices.Equal(got, want) {
		t.Errorf("TopSums = %v, want %v", got, want)
	}
}
