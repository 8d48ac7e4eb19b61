package retained

import (
	"math/bits"

	"github.com/hprof2pprof/hprof2pprof/convert/retained/internal/mem"
)

// Per-object answers for callers that list objects (the heap tables):
// kept only with Input.KeepIDs, as Retained's sizes are.

// keepDominators keeps each reachable object's immediate dominator by
// dense object number (DFS numbers are turned back into objects).
func (r *Result) keepDominators(a *mem.Arena, pre, idom []uint32) {
	vertex := mem.Alloc[uint32](a, len(idom), len(idom))
	defer mem.Free(a, vertex)
	for v, a := range pre {
		if a != 0 {
			vertex[a] = uint32(v)
		}
	}
	r.idom = mem.AllocZeroed[uint32](a, len(pre))
	for v, a := range pre {
		if a != 0 && idom[a] != 0 {
			r.idom[v] = vertex[idom[a]] + 1
		}
	}
}

// Dominator returns the ID of the immediate dominator of the object with
// this ID: 0 with ok when the virtual root above the GC roots dominates
// it (a root, or an object reached from several roots), ok false when
// the object is not a reachable object of the dump or the IDs were not
// kept (Input.KeepIDs).
func (r *Result) Dominator(id uint64) (dom uint64, ok bool) {
	if r.ids == nil || r.idom == nil {
		return 0, false
	}
	v, found := r.ids.lookup(id)
	if !found || r.retained[v] < 0 {
		return 0, false
	}
	d := r.idom[v]
	if d == 0 {
		return 0, true
	}
	return r.ids.id(d - 1), true
}

// id is the ID with dense number v (the inverse of lookup).
func (x *idIndex) id(v uint32) uint64 {
	if x.dir == nil {
		return x.ids[v]
	}
	// The last block whose rank is at most v holds it.
	nb := len(x.dir) / 2
	lo, hi := 0, nb-1
	for lo < hi {
		m := (lo + hi + 1) >> 1
		if uint32(x.dir[2*m]) <= v {
			lo = m
		} else {
			hi = m - 1
		}
	}
	for b := lo; b < nb; b++ {
		e := x.dir[2*b]
		k := e >> 32
		if k == noBlock {
			continue
		}
		left := v - uint32(e)
		for w, word := range x.words[8*k : 8*k+8] {
			c := uint32(bits.OnesCount64(word))
			if left < c {
				for ; left > 0; left-- {
					word &= word - 1 // drop the lowest set bit
				}
				p := uint64(b)<<9 + uint64(w)<<6 + uint64(bits.TrailingZeros64(word))
				if x.kept != nil { // back from the two-level form's positions
					p = uint64(x.kept[p>>superShift])<<superShift | p&superMask
				}
				return x.min + p<<x.shift
			}
			left -= c
		}
	}
	return 0
}
