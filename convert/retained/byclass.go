package retained

import "github.com/hprof2pprof/hprof2pprof/convert/retained/internal/domtree"

// The totals by class: the retained sizes of each class's objects that
// no object of the same class dominates (Result.ByClass), from the marks
// the class paths set, or from a walk of the dominator tree.

// byClassTop sums, per class ID, the retained sizes of its objects that
// no object of the same class dominates, from the marks of paths (top:
// no object of the same name dominates it). Where two classes share a
// name (one class in two loaders) an unmarked object of either is looked
// up its dominator chain, at most maxChainWalk steps; nil when that is
// not enough (byClass answers then). Class objects are not instances of
// their class and count for no class, as in the oracle. It reads the
// marks and path nodes (at) of objects below what marked last said
// only, waiting for paths to say more. On the way it sums up the objects
// and bytes of each path node, work taken off paths, which is longer.
func (s *scanner) byClassTop(idom []uint32, obj *objWords, top []uint64, at []int32, ret []int64, marked <-chan int) (map[uint64]int64, nodeSums) {
	shared := make([]bool, len(s.classes))
	byName := make(map[string]int, len(s.classes))
	for i, c := range s.classes {
		if j, ok := byName[c.name]; ok {
			shared[i], shared[j] = true, true
		}
		byName[c.name] = i
	}
	sum := make([]int64, len(s.classes))
	var held nodeSums
	gaveUp := false
	lim := 0
	for a := 1; a < len(idom); a++ {
		for a >= lim {
			lim = <-marked
		}
		held.add(at[a], obj.shallow(uint32(a)))
		c := obj.class(uint32(a))
		if c&classObjFlag != 0 || gaveUp {
			continue
		}
		if top[a>>6]&(1<<(a&63)) == 0 {
			if !shared[c] {
				continue
			}
			// An object of the same name dominates it: of this class?
			d, steps := idom[a], 0
			for ; d != 0 && obj.class(d) != c; d = idom[d] {
				if steps++; steps > maxChainWalk {
					gaveUp = true
					break
				}
			}
			if d != 0 {
				continue
			}
		}
		sum[c] += ret[a]
	}
	if gaveUp {
		return nil, held
	}
	return s.classTotals(sum), held
}

// nodeSums are the objects and shallow bytes of each path node (by its
// index in the paths), summed apart from the paths.
type nodeSums struct{ objects, bytes []int64 }

// add counts one object of size bytes at node i.
func (h *nodeSums) add(i int32, size int64) {
	if int(i) >= len(h.objects) {
		n := max(2*len(h.objects), int(i)+1, 64)
		h.objects = append(h.objects, make([]int64, n-len(h.objects))...)
		h.bytes = append(h.bytes, make([]int64, n-len(h.bytes))...)
	}
	h.objects[i]++
	h.bytes[i] += size
}

// addTo adds the sums to the paths' nodes.
func (h *nodeSums) addTo(paths []Path) {
	for i := range min(len(h.objects), len(paths)) {
		paths[i].Objects += h.objects[i]
		paths[i].Bytes += h.bytes[i]
	}
}

// markEvery is how often paths tells byClassTop how far it has marked:
// a multiple of 64 (a word of marks); tests make it small.
var markEvery = 1 << 16

// markedChan is the channel paths tells byClassTop on, for m objects:
// room for every message, so paths never waits (byClassTop may stop
// reading early).
func markedChan(m int) chan int { return make(chan int, m/markEvery+2) }

// maxChainWalk bounds the dominator chain walks of byClassTop.
const maxChainWalk = 256

// classTotals keys per-class sums by class ID, leaving out zeros.
func (s *scanner) classTotals(sum []int64) map[uint64]int64 {
	out := map[uint64]int64{}
	for i, c := range s.classes {
		if sum[i] > 0 && c.id != 0 {
			out[c.id] = sum[i]
		}
	}
	return out
}

// byClass sums, per class ID, the retained sizes of its objects that no
// object of the same class dominates, by a walk of the dominator tree
// (cls: the classes by DFS number). Class objects are not instances of
// their class and count for no class, as in the oracle.
func (s *scanner) byClass(idom, cls []uint32, ret []int64) map[uint64]int64 {
	return s.classTotals(domtree.TopSums(s.a, idom, cls, ret, len(s.classes), classObjFlag))
}
