package retained

// dfs numbers the objects reachable from the roots in depth-first
// preorder. Number 0 is the virtual root above every GC root; objects get
// 1..m. It returns vertex (number → object) and parent (number → number
// of the DFS tree parent), fills pre (object → number, 0 = unreached),
// and rewrites the edges of reached objects to target numbers.
//
// With allowed, only objects it marks are entered; an edge to another
// object is rewritten to 0 (the virtual root, whose predecessors no one
// reads).
func dfs(a *arena, roots []uint32, start, end, edges, pre, vertex, parent []uint32, allowed []bool) ([]uint32, []uint32) {
	n := len(pre)
	if vertex == nil {
		// Capacity for every object; pages never reached are never touched.
		vertex = alloc[uint32](a, 1, n+1)
		parent = alloc[uint32](a, 1, n+1)
	}
	type frame struct{ v, k uint32 }
	var stack []frame
	visit := func(v, p uint32) {
		pre[v] = uint32(len(vertex))
		vertex = append(vertex, v)
		parent = append(parent, p)
		stack = append(stack, frame{v, start[v]})
	}
	for _, r := range roots {
		if pre[r] != 0 {
			continue
		}
		visit(r, 0)
		for len(stack) > 0 {
			top := len(stack) - 1
			v, k := stack[top].v, stack[top].k
			if k >= end[v] {
				stack = stack[:top]
				continue
			}
			stack[top].k = k + 1
			w := edges[k]
			if allowed != nil && !allowed[w] {
				edges[k] = 0
				continue
			}
			if pre[w] == 0 {
				visit(w, pre[v])
			}
			edges[k] = pre[w]
		}
	}
	return vertex, parent
}

// reach marks in seen what the roots reach, without changing the graph.
func reach(roots, start, end, edges []uint32, seen []bool) {
	var stack []uint32
	for _, r := range roots {
		if seen[r] {
			continue
		}
		seen[r] = true
		stack = append(stack[:0], r)
		for len(stack) > 0 {
			v := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, w := range edges[start[v]:end[v]] {
				if !seen[w] {
					seen[w] = true
					stack = append(stack, w)
				}
			}
		}
	}
}

// predecessors builds the reverse graph in DFS numbers: the predecessors
// of number a are preds[off[a]:off[a+1]]. Roots get the virtual root 0,
// and so, when garbage is set, do objects an unreachable object refers to
// (the oracle's model: see Input.GarbageHolds).
func predecessors(a *arena, vertex, roots, start, end, edges, pre []uint32, garbage bool) (off, preds []uint32) {
	m := len(vertex)
	off = alloc[uint32](a, m+1, m+1)
	for a := 1; a < m; a++ {
		v := vertex[a]
		for _, b := range edges[start[v]:end[v]] {
			off[b]++
		}
	}
	for _, r := range roots {
		off[pre[r]]++
	}
	if garbage {
		for v := range pre {
			if pre[v] == 0 {
				for _, w := range edges[start[v]:end[v]] {
					if pre[w] != 0 {
						off[pre[w]]++
					}
				}
			}
		}
	}
	// Exclusive prefix sums, shifted so off[a] is the end while filling.
	var sum uint32
	for a := 0; a < m; a++ {
		sum += off[a]
		off[a] = sum
	}
	off[m] = sum
	preds = alloc[uint32](a, int(sum), int(sum))
	for _, r := range roots {
		b := pre[r]
		off[b]--
		preds[off[b]] = 0
	}
	if garbage {
		for v := range pre {
			if pre[v] == 0 {
				for _, w := range edges[start[v]:end[v]] {
					if b := pre[w]; b != 0 {
						off[b]--
						preds[off[b]] = 0
					}
				}
			}
		}
	}
	for a := m - 1; a >= 1; a-- {
		v := vertex[a]
		for _, b := range edges[start[v]:end[v]] {
			off[b]--
			preds[off[b]] = uint32(a)
		}
	}
	return off, preds
}

// dominators computes the immediate dominator of every DFS number with
// the semi-NCA algorithm (Georgiadis; semidominators by Lengauer–Tarjan
// with path compression, then a walk up the DFS tree). parent is used as
// the compression forest and overwritten. idom[0] is 0.
func dominators(al *arena, parent, off, preds []uint32) (idom []uint32) {
	m := len(parent)
	idom = alloc[uint32](al, m, m)
	copy(idom, parent)
	semi := alloc[uint32](al, m, m)
	// best[v] is the smallest semidominator on v's compressed path: the
	// semi of the "label" vertex of Lengauer–Tarjan, kept by value so an
	// evaluation reads one array less.
	best := alloc[uint32](al, m, m)
	for a := range semi {
		semi[a] = uint32(a)
		best[a] = uint32(a)
	}
	anc := parent
	var stack []uint32
	eval := func(v, last uint32) uint32 {
		if anc[v] < last {
			return best[v]
		}
		stack = stack[:0]
		for {
			stack = append(stack, v)
			v = anc[v]
			if anc[v] < last {
				break
			}
		}
		p := v
		pb := best[p]
		for len(stack) > 0 {
			v = stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			anc[v] = anc[p]
			if vb := best[v]; pb < vb {
				best[v] = pb
			} else {
				pb = vb
			}
			p = v
		}
		return best[v]
	}
	for w := m - 1; w >= 1; w-- {
		s := anc[w] // the DFS parent: not compressed yet
		for _, v := range preds[off[w]:off[w+1]] {
			if u := eval(v, uint32(w)+1); u < s {
				s = u
			}
		}
		semi[w] = s
		best[w] = s
	}
	free(al, best)
	best = nil
	for w := 1; w < m; w++ {
		c := idom[w]
		for c > semi[w] {
			c = idom[c]
		}
		idom[w] = c
	}
	free(al, semi)
	return idom
}
