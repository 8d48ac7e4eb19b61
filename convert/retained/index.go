package retained

import (
	"math/bits"
	"slices"

	"github.com/hprof2pprof/hprof2pprof/convert/retained/internal/mem"
)

// idIndex maps object IDs to dense object numbers: the rank of the ID in
// sorted order. It has two forms:
//
//   - dense (dir != nil), for IDs that are addresses packed in a range
//     not much larger than the objects (every HotSpot dump): one bit per
//     possible ID (IDs step by 1<<shift, the alignment all of them share),
//     in blocks of 512 bits (one cache line). Only blocks with an ID are
//     kept; two directory words per block give the IDs before it, where
//     its bits are, and the IDs before each of its words. A lookup reads
//     the directory entry and one word of bits, and counts the bits of
//     that word only (no loop over the block's words, whose varying
//     length the processor mispredicts); the index costs 16 bytes per 512
//     possible IDs and 64 per block with an ID (1.2 bytes per object on
//     bench-1g, whose heap has wide gaps; 0.9 on bench-4g), and needs no
//     sort.
//   - dense in two levels (top != nil), for IDs that cluster in stretches
//     far apart (a ZGC heap; a small heap in a big reservation): the same
//     over only the stretches of the range that hold an ID (stretch.go).
//   - sparse (ids != nil): the sorted IDs, with a bucket table over the ID
//     range narrowing each lookup to a few entries; 8 bytes per object
//     plus 4 per bucket.
type idIndex struct {
	min   uint64
	shift uint

	dir   []uint64 // dense: per block b, at 2b the IDs before it (low 32 bits) and its index in words (high 32), or noBlock; at 2b+1 subRanks
	words []uint64 // dense: the bits of the blocks with an ID, 8 words each
	n     uint32   // dense: IDs in all
	top   []uint32 // two-level dense: by stretch of the range, its place among the kept ones, or noSuper
	kept  []uint32 // two-level dense: the kept stretches, in order

	ids    []uint64 // sparse: sorted, distinct
	bucket []uint32 // sparse: bucket b holds ids[bucket[b]:bucket[b+1]]
}

// noBlock marks a block without IDs in idIndex.dir.
const noBlock = 1<<32 - 1

// denseWords is the length of a bitmap for positions 0..span, in whole
// 512-bit blocks, as newDense takes it.
func denseWords(span uint64) int { return int((span/64 + 1 + 7) &^ 7) }

// newDense makes the dense form from a bitmap of whole blocks (bit p:
// ID lo + p<<shift), keeping only the blocks with an ID; its directory
// comes from a (nil: the heap). The kept blocks are moved down in flat
// itself, which becomes the index's words: the caller must not free
// flat, and frees the index's words instead. A copy would take as much
// memory again, fresh pages the kernel faults in and zeroes (bench-4g:
// 64 MB).
func newDense(a *mem.Arena, flat []uint64, lo uint64, shift uint) *idIndex {
	nb := len(flat) / 8
	x := &idIndex{min: lo, shift: shift, dir: mem.Alloc[uint64](a, 2*nb, 2*nb)}
	var r uint32
	kept := 0
	for b := range nb {
		blk := flat[8*b : 8*b+8]
		if !anySet(blk) {
			x.dir[2*b] = uint64(noBlock)<<32 | uint64(r)
			continue
		}
		x.dir[2*b] = uint64(kept)<<32 | uint64(r)
		x.dir[2*b+1] = subRanks(blk)
		for _, w := range blk {
			r += uint32(bits.OnesCount64(w))
		}
		if kept < b { // blocks only move down: a block is read before it is overwritten
			copy(flat[8*kept:8*kept+8], blk)
		}
		kept++
	}
	x.words = flat[:8*kept]
	x.n = r
	return x
}

// subRanks packs the IDs of a block before each of its words 1 to 7
// (at most 448: 9 bits each) into one word, word j's at bit 9(j-1).
func subRanks(blk []uint64) uint64 {
	var sub uint64
	var c uint64
	for j := 1; j < 8; j++ {
		c += uint64(bits.OnesCount64(blk[j-1]))
		sub |= c << (9 * (j - 1))
	}
	return sub
}

// subRank is the IDs of a block before its word wi, from its subRanks:
// 0 for word 0, where the shift is past the word's width.
func subRank(sub uint64, wi uint64) uint32 {
	return uint32(sub>>(9*wi-9)) & 511
}

func anySet(ws []uint64) bool {
	for _, w := range ws {
		if w != 0 {
			return true
		}
	}
	return false
}

// denseBitsPerObject bounds the dense form: at most this many bits per
// object (16 bytes per object of bits and ranks), else the sparse form.
const denseBitsPerObject = 128

// len is the number of distinct IDs.
func (x *idIndex) len() int {
	if x.dir != nil {
		return int(x.n)
	}
	return len(x.ids)
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
	if x.dir != nil {
		d := id - x.min
		p := d >> x.shift
		if p<<x.shift != d {
			return 0, false
		}
		if x.top != nil {
			var ok bool
			if p, ok = keptPos(x.top, p); !ok {
				return 0, false
			}
		}
		b := 2 * (p >> 9)
		if b+1 >= uint64(len(x.dir)) {
			return 0, false
		}
		e, sub := x.dir[b], x.dir[b+1]
		k := e >> 32
		if k == noBlock {
			return 0, false
		}
		wi := (p >> 6) & 7
		w := x.words[8*k+wi]
		bit := uint64(1) << (p & 63)
		if w&bit == 0 {
			return 0, false
		}
		return uint32(e) + subRank(sub, wi) + uint32(bits.OnesCount64(w&(bit-1))), true
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

// idCursor is where the last lookupNext found its ID (dense form).
type idCursor struct {
	p  uint64 // its position
	r  uint32 // its number
	wi int    // its word in idIndex.words
	ok bool
}

// lookupNext is lookup for IDs that mostly ascend in small steps (the
// objects of a heap record, in dump order): an ID in the same bitmap
// word as the last one's, after it, is numbered from the last one with
// one population count.
func (x *idIndex) lookupNext(id uint64, c *idCursor) (uint32, bool) {
	if x.dir == nil || id < x.min {
		return x.lookup(id)
	}
	d := id - x.min
	p := d >> x.shift
	if c.ok && p > c.p && p>>6 == c.p>>6 && p<<x.shift == d {
		w := x.words[c.wi]
		bit := uint64(1) << (p & 63)
		if w&bit == 0 {
			return 0, false
		}
		// The bits after the last one's, before this one's.
		between := w & (bit - 1) &^ (uint64(2)<<(c.p&63) - 1)
		r := c.r + 1 + uint32(bits.OnesCount64(between))
		c.p, c.r = p, r
		return r, true
	}
	r, ok := x.lookup(id)
	if ok {
		// The cursor keeps the position in the whole range: an ID in the
		// same word is in the same stretch.
		k := x.dir[2*(stretchPos(x.top, p)>>9)] >> 32
		*c = idCursor{p: p, r: r, wi: int(8*k + (p>>6)&7), ok: true}
	}
	return r, ok
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

// classHash maps class object IDs to class numbers: an open-addressing
// table at most half full, so a lookup is a multiply and one or two
// probes (every object's class is looked up while the graph is filled).
type classHash struct {
	keys  []uint64 // 0: empty (no class object has ID 0)
	vals  []uint32
	shift uint
}

func newClassHash(ids []uint64) *classHash {
	size := 16
	for size < 2*len(ids) {
		size *= 2
	}
	h := &classHash{keys: make([]uint64, size), vals: make([]uint32, size), shift: uint(64 - bits.TrailingZeros(uint(size)))}
	for i, id := range ids {
		if id == 0 {
			continue
		}
		for j := h.slot(id); ; j = (j + 1) & (size - 1) {
			if h.keys[j] == 0 || h.keys[j] == id {
				h.keys[j], h.vals[j] = id, uint32(i)
				break
			}
		}
	}
	return h
}

func (h *classHash) slot(id uint64) int { return int((id * 0x9E3779B97F4A7C15) >> h.shift) }

// lookup returns the class number of a class object ID.
func (h *classHash) lookup(id uint64) (uint32, bool) {
	if id == 0 {
		return 0, false
	}
	mask := len(h.keys) - 1
	for j := h.slot(id); ; j = (j + 1) & mask {
		switch h.keys[j] {
		case id:
			return h.vals[j], true
		case 0:
			return 0, false
		}
	}
}
