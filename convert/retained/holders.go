package retained

import (
	"slices"

	"github.com/hprof2pprof/hprof2pprof/convert/retained/internal/domtree"
)

// The paths view and the suspects report need, for each reachable
// object, the reference that keeps it alive on a shortest strong path
// from a GC root: a breadth-first tree over the graph without the
// Reference.referent edges (weak, soft, phantom and final referents hold
// nothing). Class objects start paths of their own: an object a static
// field holds is shown under its class and field, not under how the
// class itself is held (its loader). So the walk goes in rounds: first
// from the root records' objects, then from the class objects met so far
// (as references, as roots, or as the class of an object reached), until
// no new class object is met; a class object is never entered from a
// reference.

// holdTree is the breadth-first tree, by dense object number.
type holdTree struct {
	// parent is the number of the object whose reference reached each
	// object, plus one; 0 for a start (a root or a class object) and for
	// an object not reached.
	parent []uint32
	// order is every reached object in the order the walk reached it:
	// each after its parent.
	order []uint32
	// start is the root of each start that is a root record's object;
	// a class object started for its statics has none.
	start map[uint32]Root
	// slot is the field of its parent that holds each object (see
	// fieldSlot); set by the fields pass.
	slot []int32
	// statics names the static fields that hold an object on the tree:
	// class number << 32 | the static's index → its name.
	statics map[uint64]string
}

// holders walks the strong graph breadth first (see holdTree). The
// referents are hidden for the walk and shown again after it.
func (s *scanner) holders() *holdTree {
	n := len(s.obj.w)
	slices.Sort(s.weak)
	s.weak = slices.Compact(s.weak)
	for _, v := range s.weak {
		s.g.AddDeg(v, -1)
	}
	defer func() {
		for _, v := range s.weak {
			s.g.AddDeg(v, +1)
		}
	}()
	h := &holdTree{parent: make([]uint32, n), order: make([]uint32, 0, n), start: map[uint32]Root{}}
	seen := domtree.NewBitset(nil, n)
	used := make([]bool, len(s.classes))
	var classes []uint32 // class objects met, not yet started
	meet := func(v uint32) bool {
		if s.obj.class(v)&classObjFlag != 0 {
			classes = append(classes, v)
			return false
		}
		return true
	}
	roots := slices.Clone(s.roots)
	sortRoots(roots, s.rootKind)
	for _, r := range roots {
		if !seen.Has(r) && meet(r) {
			seen.Set(r)
			h.start[r] = s.rootKind[r]
			h.order = append(h.order, r)
		}
	}
	for head := 0; ; {
		for ; head < len(h.order); head++ {
			v := h.order[head]
			if c := s.obj.class(v); c&classObjFlag == 0 && !used[c] {
				used[c] = true
				if node := s.classes[c].node; node != noNode {
					classes = append(classes, node)
				}
			}
			for _, w := range s.g.Out(v) {
				if !seen.Has(w) && meet(w) {
					seen.Set(w)
					h.parent[w] = v + 1
					h.order = append(h.order, w)
				}
			}
		}
		if len(classes) == 0 {
			break
		}
		slices.Sort(classes)
		for _, c := range slices.Compact(classes) {
			if !seen.Has(c) {
				seen.Set(c)
				h.order = append(h.order, c)
			}
		}
		classes = classes[:0]
	}
	return h
}
