package retained

import (
	"context"
	"runtime/debug"
	"slices"
	"sync"

	"github.com/hprof2pprof/hprof2pprof/convert/hprof"
)

// shallow is the shallow size of object v.
func (s *scanner) shallow(v uint32) int64 {
	if z := s.size[v]; z != 1<<32-1 {
		return int64(z)
	}
	return s.big[v]
}

// analyse turns the graph into the dominator tree, retained sizes and the
// class-level paths, freeing each array as soon as it is done with.
func (s *scanner) analyse(ctx context.Context) (*Result, error) {
	n := len(s.size)
	s.phase("strong reach")
	allowed := s.strongReach()
	// Each phase takes seconds (minutes when the graph is paged from
	// disk): a cancelled context (Ctrl-C) stops between phases.
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	pre := alloc[uint32](s.a, n, n)
	s.phase("depth-first numbering")
	vertex, parent := dfs(s.a, s.roots, s.start, s.end, s.edges, pre, nil, nil, allowed)
	// Rounds: the class objects of what was reached, then of what those
	// reach, until no new class is reached.
	used := make([]bool, len(s.classes))
	for from := 1; ; {
		extra := s.classRoots(vertex[from:], pre, used)
		if len(extra) == 0 {
			break
		}
		from = len(vertex)
		vertex, parent = dfs(s.a, extra, s.start, s.end, s.edges, pre, vertex, parent, allowed)
		s.roots = append(s.roots, extra...)
	}
	free(s.a, allowed)
	allowed = nil
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m := len(vertex)
	s.phase("reverse graph")
	off, preds := predecessors(s.a, vertex, s.roots, s.start, s.end, s.edges, pre, s.in.GarbageHolds)
	free(s.a, s.start)
	free(s.a, s.end)
	free(s.a, s.edges)
	s.start, s.end, s.edges = nil, nil, nil
	release()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.phase("dominators")
	idom := dominators(s.a, parent, off, preds)
	free(s.a, parent)
	free(s.a, off)
	free(s.a, preds)
	parent, off, preds = nil, nil, nil
	release()
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	// Shallow sizes and classes by DFS number; unreachable totals.
	ret := alloc[int64](s.a, m, m)
	cls := alloc[uint32](s.a, m, m)
	for a := 1; a < m; a++ {
		v := vertex[a]
		ret[a] = s.shallow(v)
		cls[a] = s.cls[v]
	}
	st := &s.stats
	st.Reachable = m - 1
	st.Unreachable = n - (m - 1)
	for v := 0; v < n; v++ {
		if pre[v] == 0 {
			st.UnreachableBytes += s.shallow(uint32(v))
		}
	}
	for a := 1; a < m; a++ {
		st.ReachableBytes += ret[a]
	}
	free(s.a, s.size)
	free(s.a, s.cls)
	s.size, s.cls, s.big = nil, nil, nil

	s.phase("retained sizes and class paths")
	res := &Result{Stats: *st, maxDepth: s.in.MaxDepth}
	// The class-level paths need the shallow sizes, the retained sizes
	// and their per-class totals sum them up the tree: both at once.
	shallow := alloc[int64](s.a, m, m)
	copy(shallow, ret)
	var wg sync.WaitGroup
	wg.Go(func() {
		res.Paths, res.ClassNames, res.RootKinds = s.paths(vertex, idom, cls, shallow)
	})
	// Retained sizes: children after parents in DFS order (idom[a] < a).
	for a := m - 1; a >= 1; a-- {
		ret[idom[a]] += ret[a]
	}
	res.ByClass = s.byClass(idom, cls, ret)
	wg.Wait()
	free(s.a, shallow)
	shallow = nil
	if s.in.KeepIDs {
		res.ids = s.ix
		res.retained = make([]int64, n)
		for v := range res.retained {
			res.retained[v] = -1
			if a := pre[v]; a != 0 {
				res.retained[v] = ret[a]
			}
		}
	}
	s.ix = nil
	return res, nil
}

// strongReach marks the objects a strong path reaches (referents not
// followed), when some Reference has a referent; nil when none has. The
// dominator tree is then that of the graph with referents (the oracle
// counts a Reference as one more holder of its referent) restricted to
// these objects: a referent keeps no object alive, but sharing one
// with a Reference makes it no one's alone.
func (s *scanner) strongReach() []bool {
	if len(s.weak) == 0 {
		return nil
	}
	slices.Sort(s.weak)
	weak := slices.Compact(s.weak)
	s.weak = nil
	for _, v := range weak {
		s.end[v]--
	}
	seen := alloc[bool](s.a, len(s.size), len(s.size))
	reach(s.roots, s.start, s.end, s.edges, seen)
	// The class objects of reached objects are live too, and what their
	// statics reach: rounds until no new class is reached.
	used := make([]bool, len(s.classes))
	for {
		for v, ok := range seen {
			if c := s.cls[v]; ok && c&classObjFlag == 0 {
				used[c] = true
			}
		}
		var extra []uint32
		for i, c := range s.classes {
			if used[i] && c.node != noNode && !seen[c.node] {
				extra = append(extra, c.node)
			}
		}
		if len(extra) == 0 {
			break
		}
		reach(extra, s.start, s.end, s.edges, seen)
	}
	for _, v := range weak {
		s.end[v]++
	}
	return seen
}

// classRoots are the class objects not reached yet whose class has a
// reached object (used notes the classes of vertex and of earlier
// rounds): the oracle reaches them through its objects but no reference
// holds them, so they hang from the virtual root.
func (s *scanner) classRoots(vertex, pre []uint32, used []bool) []uint32 {
	for _, v := range vertex {
		if c := s.cls[v]; c&classObjFlag == 0 {
			used[c] = true
		}
	}
	var extra []uint32
	for i, c := range s.classes {
		if used[i] && c.node != noNode && pre[c.node] == 0 {
			extra = append(extra, c.node)
			s.rootKind[c.node] = classRootKind
		}
	}
	return extra
}

// release returns freed arrays to the operating system, so peak memory is
// that of the largest phase rather than of all phases together.
func release() { debug.FreeOSMemory() }

// paths merges objects into class-level dominator paths: an object's path
// is its immediate dominator's path plus its class, except that an
// object of the same class as its dominator's frame stays on that frame
// (runs collapse), and past the depth limit an object whose class is on
// the stack already stays on its dominator's frame: every stack names
// each class of the object's dominator chain, so a class's cumulative
// value is exact at any depth.
func (s *scanner) paths(vertex, idom, cls []uint32, shallow []int64) ([]Path, []string, []string) {
	m := len(vertex)
	// Class names, interned: two classes of one name share frames.
	nameIdx := map[string]int32{}
	var names []string
	intern := func(n string) int32 {
		if i, ok := nameIdx[n]; ok {
			return i
		}
		i := int32(len(names))
		names = append(names, n)
		nameIdx[n] = i
		return i
	}
	objName := make([]int32, len(s.classes))
	clsName := make([]int32, len(s.classes))
	for i, c := range s.classes {
		objName[i] = intern(c.name)
		clsName[i] = intern(c.name + ".class")
	}
	name := func(c uint32) int32 {
		if c&classObjFlag != 0 {
			return clsName[c&^classObjFlag]
		}
		return objName[c]
	}
	var kinds []string
	kindIdx := map[hprof.SubTag]int32{}

	paths := []Path{{Parent: -1, Class: -1}}
	child := map[uint64]int32{}
	// The child of each path node last asked for: siblings in DFS order
	// are mostly of one class, so this spares most map lookups.
	lastClass, lastChild := []int32{-1}, []int32{0}
	node := func(parent int32, class int32) int32 {
		if lastClass[parent] == class {
			return lastChild[parent]
		}
		k := uint64(uint32(parent))<<32 | uint64(uint32(class))
		i, ok := child[k]
		if !ok {
			i = int32(len(paths))
			paths = append(paths, Path{Parent: parent, Class: class, Depth: paths[parent].Depth + 1, MaxRun: 1})
			lastClass, lastChild = append(lastClass, -1), append(lastChild, 0)
			child[k] = i
		}
		lastClass[parent], lastChild[parent] = class, i
		return i
	}
	// onPath reports whether class c names a frame of node p's stack;
	// asked only past the depth cap, so answers are kept per node.
	seen := map[uint64]bool{}
	onPath := func(p, c int32) bool {
		k := uint64(uint32(p))<<32 | uint64(uint32(c))
		if v, ok := seen[k]; ok {
			return v
		}
		found := false
		for j := p; paths[j].Depth > 1; j = paths[j].Parent {
			if paths[j].Class == c {
				found = true
				break
			}
		}
		seen[k] = found
		return found
	}
	at := alloc[int32](s.a, m, m)   // path node by DFS number
	run := alloc[uint32](s.a, m, m) // length of the same-class run ending here
	defer free(s.a, at)
	defer free(s.a, run)
	for a := 1; a < m; a++ {
		c := name(cls[a])
		d := idom[a]
		var p int32
		if d == 0 {
			t, ok := s.rootKind[vertex[a]]
			if !ok {
				t = severalRootsKind // reached from several roots, not one itself
			}
			ki, ok := kindIdx[t]
			if !ok {
				ki = int32(len(kinds))
				kinds = append(kinds, rootKindName(t))
				kindIdx[t] = ki
			}
			p = node(0, ki)
			run[a] = 1
			at[a] = node(p, c)
		} else {
			p = at[d]
			pp := &paths[p]
			switch {
			case pp.Class == c && pp.Depth > 1:
				run[a] = 1
				if name(cls[d]) == c {
					run[a] = run[d] + 1
				}
				at[a] = p
				if int64(run[a]) > pp.MaxRun {
					pp.MaxRun = int64(run[a])
				}
			case int(pp.Depth) > s.in.MaxDepth && onPath(p, c):
				// Past the depth cap a class already on the stack adds
				// no frame: the stack keeps every class of the chain
				// once, so each class's cumulative value stays exact.
				pp.Capped = true
				run[a] = 1
				at[a] = p
			default:
				run[a] = 1
				at[a] = node(p, c)
			}
		}
		q := &paths[at[a]]
		q.Objects++
		q.Bytes += shallow[a]
	}
	return paths, names, kinds
}

// byClass sums, per class ID, the retained sizes of its objects that no
// object of the same class dominates. Class objects are not instances of
// their class and count for no class, as in the oracle.
func (s *scanner) byClass(idom, cls []uint32, ret []int64) map[uint64]int64 {
	m := len(idom)
	// Dominator tree children, then a depth-first walk keeping a count
	// of the open objects of each class.
	first := alloc[uint32](s.a, m+1, m+1)
	defer free(s.a, first)
	for a := 1; a < m; a++ {
		first[idom[a]+1]++
	}
	for a := 1; a <= m; a++ {
		first[a] += first[a-1]
	}
	kids := alloc[uint32](s.a, m, m)
	defer free(s.a, kids)
	fill := alloc[uint32](s.a, m, m)
	copy(fill, first[:m])
	for a := 1; a < m; a++ {
		d := idom[a]
		kids[fill[d]] = uint32(a)
		fill[d]++
	}
	free(s.a, fill)
	fill = nil
	open := make([]int32, len(s.classes))
	sum := make([]int64, len(s.classes))
	type frame struct{ a, k uint32 }
	stack := []frame{{0, first[0]}}
	for len(stack) > 0 {
		top := len(stack) - 1
		a, k := stack[top].a, stack[top].k
		if k < first[a+1] {
			stack[top].k++
			b := kids[k]
			if c := cls[b]; c&classObjFlag == 0 {
				if open[c] == 0 {
					sum[c] += ret[b]
				}
				open[c]++
			}
			stack = append(stack, frame{b, first[b]})
			continue
		}
		stack = stack[:top]
		if c := cls[a]; a != 0 && c&classObjFlag == 0 {
			open[c]--
		}
	}
	out := map[uint64]int64{}
	for i, c := range s.classes {
		if sum[i] > 0 && c.id != 0 {
			out[c.id] = sum[i]
		}
	}
	return out
}
