package domtree

import "github.com/hprof2pprof/hprof2pprof/convert/retained/internal/mem"

// TopSums sums, per class, the values in ret of the nodes that no node of
// the same class dominates: the retained sizes of each class's "top"
// objects. idom is the dominator tree by DFS number (idom[a] < a, 0 the
// virtual root), cls each number's class, below classes; a number whose
// class has a bit of none set counts for no class (and stops no run),
// nor does number 0.
func TopSums(a *mem.Arena, idom, cls []uint32, ret []int64, classes int, none uint32) []int64 {
	m := len(idom)
	// Dominator tree children, then a depth-first walk keeping a count
	// of the open nodes of each class.
	first := mem.Alloc[uint32](a, m+1, m+1)
	defer mem.Free(a, first)
	for v := 1; v < m; v++ {
		first[idom[v]]++
	}
	for v := 1; v <= m; v++ {
		first[v] += first[v-1] // the end of v's children, for now
	}
	kids := mem.Alloc[uint32](a, m, m)
	defer mem.Free(a, kids)
	// Filled from the end, first[d] counts down to where d's children
	// start, which is where d-1's end.
	for v := m - 1; v >= 1; v-- {
		d := idom[v]
		first[d]--
		kids[first[d]] = uint32(v)
	}
	open := make([]int32, classes)
	sum := make([]int64, classes)
	type frame struct{ a, k uint32 }
	stack := []frame{{0, first[0]}}
	for len(stack) > 0 {
		top := len(stack) - 1
		v, k := stack[top].a, stack[top].k
		if k < first[v+1] {
			stack[top].k++
			b := kids[k]
			if c := cls[b]; c&none == 0 {
				if open[c] == 0 {
					sum[c] += ret[b]
				}
				open[c]++
			}
			stack = append(stack, frame{b, first[b]})
			continue
		}
		stack = stack[:top]
		if c := cls[v]; v != 0 && c&none == 0 {
			open[c]--
		}
	}
	return sum
}
