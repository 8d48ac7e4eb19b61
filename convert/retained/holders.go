package retained

import (
	"slices"

	"github.com/hprof2pprof/hprof2pprof/convert/retained/internal/domtree"
	"github.com/hprof2pprof/hprof2pprof/convert/retained/internal/mem"
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
	// slot is the field of its parent that holds each object (the slot
	// constants in fields.go); set by the fields pass.
	slot []int32
	// statics names the static fields that hold an object on the tree:
	// class number << 32 | the static's index → its name.
	statics map[uint64]string
}

// holdWalk is a breadth-first walk about to start (startHolders), with
// the starts it takes from the scanner's roots, most telling first.
type holdWalk struct {
	s      *scanner
	h      *holdTree
	isWeak domtree.Bitset // objects whose last edge is a referent
	seen   domtree.Bitset
	used   []bool
	starts []uint32 // the root records' objects, most telling first
	// classStarts are the class objects among them: they start in the
	// rounds of class objects.
	classStarts []uint32
}

// startHolders readies the walk (see holdTree).
func (s *scanner) startHolders() *holdWalk {
	n := len(s.obj.w)
	hw := &holdWalk{s: s, isWeak: domtree.NewBitset(nil, n), seen: domtree.NewBitset(nil, n), used: make([]bool, len(s.classes)),
		h: &holdTree{parent: mem.AllocZeroed[uint32](s.ha, n), order: mem.Alloc[uint32](s.ha, 0, n), start: map[uint32]Root{}}}
	slices.Sort(s.weak)
	s.weak = slices.Compact(s.weak)
	for _, v := range s.weak {
		hw.isWeak.Set(v)
	}
	roots := slices.Clone(s.roots)
	sortRoots(roots, s.rootKind)
	for _, r := range roots {
		if s.obj.class(r)&classObjFlag != 0 {
			hw.classStarts = append(hw.classStarts, r)
		} else {
			hw.starts = append(hw.starts, r)
			if _, ok := hw.h.start[r]; !ok {
				hw.h.start[r] = s.rootKind[r]
			}
		}
	}
	return hw
}

// walk walks the strong graph breadth first (see holdTree): the graph
// is only read, the referents left out by isWeak.
func (hw *holdWalk) walk() *holdTree {
	s, h, seen := hw.s, hw.h, hw.seen
	classes := slices.Clone(hw.classStarts) // class objects met, not yet started
	for _, r := range hw.starts {
		if !seen.Has(r) {
			seen.Set(r)
			h.order = append(h.order, r)
		}
	}
	for head := 0; ; {
		for ; head < len(h.order); head++ {
			v := h.order[head]
			if c := s.obj.class(v); c&classObjFlag == 0 && !hw.used[c] {
				hw.used[c] = true
				if node := s.classes[c].node; node != noNode {
					classes = append(classes, node)
				}
			}
			out := s.g.Out(v)
			if hw.isWeak.Has(v) && len(out) > 0 {
				out = out[:len(out)-1]
			}
			for _, w := range out {
				if seen.Has(w) {
					continue
				}
				if s.obj.class(w)&classObjFlag != 0 {
					classes = append(classes, w)
					continue
				}
				seen.Set(w)
				h.parent[w] = v + 1
				h.order = append(h.order, w)
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
