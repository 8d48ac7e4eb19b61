package retained

import (
	"github.com/hprof2pprof/hprof2pprof/convert/retained/internal/domtree"
)

// paths merges objects into class-level dominator paths: an object's path
// is its immediate dominator's path plus its class, except that an
// object of the same class as its dominator's frame stays on that frame
// (runs collapse), and past the depth limit an object whose class is on
// the stack already stays on its dominator's frame: every stack names
// each class of the object's dominator chain, so a class's cumulative
// value is exact at any depth.
//
// It also sets in top the bit of every object whose class names no frame
// of its dominator's stack: no object of its class (name) dominates it.
//
// at and run, by DFS number, are written whole: at is the path node of
// each object (read by byClassTop after it), run the length of the
// same-class run ending there, or 0 for an object whose class differs
// from its frame's (one the depth cap kept on its dominator's frame), so
// that no run goes on through it.
//
// The loop is one pass over the numbers in DFS order, a serial part of
// the last phase (bench-4g: 76 M objects): its state is in locals and a
// domtree.PathTree, not in closures, whose captured variables the
// compiler keeps in memory and reloads at every use.
func (s *scanner) paths(idom []uint32, d *dfsOrder, top []uint64, at []int32, run []uint32, marked chan<- int) (paths []Path, names []string, roots []Root) {
	m := len(idom)
	cn := s.classNames()
	t := domtree.NewPathTree()
	kindIdx := map[Root]int32{}
	maxDepth := s.in.MaxDepth
	obj := &d.obj
	at[0], run[0] = 0, 0 // the virtual root; the loop writes every other number
	for a := 1; a < m; a++ {
		c := cn.of(obj.class(uint32(a)))
		dom := idom[a]
		var q int32
		r := uint32(1)
		if dom == 0 {
			kt, ok := d.rootKind[uint32(a)]
			if !ok {
				// Reached from several roots, not one itself: named by
				// the root the depth-first numbering found it from.
				kt = severalOf(d.rootKind[d.firstRoot(uint32(a))])
				if cls := obj.class(uint32(a)); cls&classObjFlag != 0 {
					kt = Root{Kind: severalRootsKind, Class: s.classes[cls&^classObjFlag].name}
				}
			}
			ki, ok := kindIdx[kt]
			if !ok {
				ki = int32(len(roots))
				roots = append(roots, kt)
				kindIdx[kt] = ki
			}
			q = t.Node(t.Node(0, ki), c)
			top[a>>6] |= 1 << (a & 63)
		} else {
			p := at[dom]
			pp := &t.Nodes[p]
			switch {
			case pp.Class == c && pp.Depth > 1:
				// A run goes on when the dominator is of this class
				// too: on a frame of its own class, so not run 0.
				if rd := run[dom]; rd != 0 {
					r = rd + 1
				}
				q = p
				if int64(r) > pp.MaxRun {
					pp.MaxRun = int64(r)
				}
			case int(pp.Depth) > maxDepth && t.OnPath(p, c):
				// Past the depth cap a class already on the stack adds
				// no frame: the stack keeps every class of the chain
				// once, so each class's cumulative value stays exact.
				pp.Capped = true
				q = p
				r = 0
			default:
				q = t.Node(p, c)
				if !t.Dup[q] {
					top[a>>6] |= 1 << (a & 63)
				}
			}
		}
		at[a], run[a] = q, r
		if a&(markEvery-1) == markEvery-1 {
			marked <- a + 1
		}
	}
	marked <- m
	return pathsOf(t.Nodes), cn.names, roots
}

// classNames are the names of the classes, interned: two classes of one
// name (one class in two loaders) share frames.
type classNames struct {
	names         []string
	obj, classObj []int32 // by class number: the name of its objects, of its class object
}

func (s *scanner) classNames() *classNames {
	cn := &classNames{obj: make([]int32, len(s.classes)), classObj: make([]int32, len(s.classes))}
	idx := map[string]int32{}
	intern := func(n string) int32 {
		if i, ok := idx[n]; ok {
			return i
		}
		i := int32(len(cn.names))
		cn.names = append(cn.names, n)
		idx[n] = i
		return i
	}
	for i, c := range s.classes {
		cn.obj[i] = intern(c.name)
		cn.classObj[i] = intern(c.name + ".class")
	}
	return cn
}

// of returns the name of class number c (flagged for class objects).
func (cn *classNames) of(c uint32) int32 {
	if c&classObjFlag != 0 {
		return cn.classObj[c&^classObjFlag]
	}
	return cn.obj[c]
}

// pathsOf is the tree's nodes as Paths; their objects and bytes are
// summed apart (nodeSums).
func pathsOf(nodes []domtree.PathNode) []Path {
	out := make([]Path, len(nodes))
	for i, n := range nodes {
		out[i] = Path{Parent: n.Parent, Class: n.Class, Depth: n.Depth, MaxRun: n.MaxRun, Capped: n.Capped}
	}
	return out
}
