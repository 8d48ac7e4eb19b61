package retained

import "slices"

// idIndex maps object IDs to dense object numbers: the rank of the ID in
// sorted order. A bucket table over the ID range narrows each lookup to a
// few entries, so a lookup costs about one cache miss more than an array
// access and the index costs 8 bytes per object plus 4 per bucket.
type idIndex struct {
	ids    []uint64 // sorted, distinct
	min    uint64
	shift  uint
	bucket []uint32 // bucket b holds ids[bucket[b]:bucket[b+1]]
}

// newIDIndex sorts ids in place and indexes them. Duplicates are removed;
// the returned count says how many there were.
func newIDIndex(ids []uint64) (*idIndex, int) {
	ids = sortRuns(ids)
	n := len(ids)
	ids = slices.Compact(ids)
	dups := n - len(ids)
	x := &idIndex{ids: ids}
	if len(ids) == 0 {
		x.bucket = []uint32{0, 0}
		return x, dups
	}
	x.min = ids[0]
	span := ids[len(ids)-1] - x.min
	// About one bucket per two objects.
	target := uint64(len(ids)/2 + 1)
	for x.shift = 0; x.shift < 63 && span>>x.shift >= target; x.shift++ {
	}
	nb := int(span>>x.shift) + 1
	x.bucket = make([]uint32, nb+1)
	b := 0
	for i, id := range ids {
		k := int((id - x.min) >> x.shift)
		for b <= k {
			x.bucket[b] = uint32(i)
			b++
		}
	}
	for ; b <= nb; b++ {
		x.bucket[b] = uint32(len(ids))
	}
	return x, dups
}

// lookup returns the dense number of id.
func (x *idIndex) lookup(id uint64) (uint32, bool) {
	if id < x.min {
		return 0, false
	}
	k := (id - x.min) >> x.shift
	if k >= uint64(len(x.bucket)-1) {
		return 0, false
	}
	lo, hi := x.bucket[k], x.bucket[k+1]
	for lo < hi {
		m := (lo + hi) >> 1
		if v := x.ids[m]; v < id {
			lo = m + 1
		} else if v > id {
			hi = m
		} else {
			return m, true
		}
	}
	return 0, false
}

// sortRuns sorts ids by merging its ascending runs, bottom-up. Heap dumps
// list objects mostly in address order (CLASS DUMPs first, then a few
// long runs), so this is a few passes over the data instead of a full
// sort. It returns the sorted slice, ids or a buffer of the same length.
func sortRuns(ids []uint64) []uint64 {
	var runs []int // start of each run, then len(ids)
	for i := range ids {
		if i == 0 || ids[i] < ids[i-1] {
			runs = append(runs, i)
		}
	}
	runs = append(runs, len(ids))
	if len(runs) <= 2 {
		return ids
	}
	if len(runs) > len(ids)/64 {
		slices.Sort(ids) // no useful runs: an ordinary sort needs no buffer
		return ids
	}
	src, dst := ids, make([]uint64, len(ids))
	for len(runs) > 2 {
		next := runs[:0:0]
		for r := 0; r+1 < len(runs); r += 2 {
			lo, mid := runs[r], runs[r+1]
			hi := mid
			if r+2 < len(runs) {
				hi = runs[r+2]
			}
			next = append(next, lo)
			i, j, k := lo, mid, lo
			for i < mid && j < hi {
				if src[j] < src[i] {
					dst[k] = src[j]
					j++
				} else {
					dst[k] = src[i]
					i++
				}
				k++
			}
			k += copy(dst[k:], src[i:mid])
			copy(dst[k:], src[j:hi])
		}
		next = append(next, len(ids))
		runs = next
		src, dst = dst, src
	}
	return src
}
