// Package idnote holds the object IDs a heap dump's first pass notes
// for the retained view, so that the view needs no pass to find them:
// per segment, their range (IDRange) and the IDs themselves as a bitmap
// or a list (SegmentIDs); per dump read as a stream, the same by parts
// (IDNotes, NotedIDs). The first pass (convert/internal/heapdump) writes
// them and the retained view (convert/retained) reads them; neither
// imports the other for it.
package idnote

import (
	"math/bits"
	"slices"
)

// IDRange sums up the object IDs of one segment: enough to size and
// shape the ID index before the IDs are read again.
type IDRange struct {
	N      int    // objects
	Lo, Hi uint64 // smallest and largest ID
	First  uint64 // the first ID
	Diff   uint64 // OR of id ^ First over the IDs: their common low bits are 0
}

// Add notes one object ID.
func (r *IDRange) Add(id uint64) {
	if r.N == 0 {
		r.Lo, r.Hi, r.First = id, id, id
	}
	r.N++
	r.Lo, r.Hi = min(r.Lo, id), max(r.Hi, id)
	r.Diff |= id ^ r.First
}

// NotedIDs are the object IDs of a dump read as a stream, noted by parts
// (IDNotes: a record or a stretch of one, any order) as
// retained.Input's SegmentObjects and SegmentIDs note a segment's, and a
// bound on their references (as its SegmentRefs counts them).
type NotedIDs struct {
	IDs  IDNotes
	Refs int64
}

// SegmentIDs are the object IDs of one segment as the caller's pass
// noted them, so that the ID index is built without reading the segments
// again: a bitmap over their range (bit p: ID Lo + p<<Shift), or, when
// the IDs are spread too thinly for one (the CLASS DUMPs of a HotSpot
// dump, spread over the whole heap), the IDs themselves. HotSpot writes a
// segment's objects from one stretch of the heap, so the bitmaps of all
// segments take about one bit per 8 bytes of heap in use.
type SegmentIDs struct {
	Lo    uint64
	Shift uint
	Bits  []uint64
	IDs   []uint64
}

// NewSegmentIDs notes the object IDs of one segment (any order,
// duplicates allowed). ids is not kept.
func NewSegmentIDs(ids []uint64) SegmentIDs {
	var r IDRange
	for _, id := range ids {
		r.Add(id)
	}
	return SegmentIDsIn(ids, r)
}

// SegmentIDsIn is NewSegmentIDs for ids that r, summed up over them (or
// over more IDs, such as the segment's cut objects too), covers: the
// bitmap takes its shape from r, without a pass over ids for it.
func SegmentIDsIn(ids []uint64, r IDRange) SegmentIDs {
	if len(ids) == 0 || r.N == 0 {
		return SegmentIDs{}
	}
	// The IDs share their low bits with r.First up to its lowest
	// differing bit: the step of the bitmap.
	var shift uint
	if r.Diff != 0 {
		shift = uint(bits.TrailingZeros64(r.Diff))
	}
	span := (r.Hi - r.Lo) >> shift
	if span/64 >= uint64(len(ids)) {
		// A bitmap would take more than the IDs' 8 bytes each.
		return SegmentIDs{IDs: slices.Clone(ids)}
	}
	lo := r.Lo
	set := SegmentIDs{Lo: lo, Shift: shift, Bits: zeroed(int(span/64 + 1))}
	for _, id := range ids {
		p := (id - lo) >> shift
		set.Bits[p>>6] |= 1 << (p & 63)
	}
	return set
}

// IDNotes notes the object IDs of a dump read as a stream, by parts, as
// they come: a part ends with its record (Flush) or after idPart IDs
// (HotSpot writes a record's objects in address order, so a part is a
// stretch of the heap), and is summed up (Ranges) and noted (Sets) as a
// segment's are: about a bit per 8 bytes of heap, where a list of the
// IDs takes 8 bytes per object.
type IDNotes struct {
	Ranges []IDRange
	Sets   []SegmentIDs

	ids []uint64 // the part being noted, and its summary
	r   IDRange
}

const idPart = 1 << 20

// Add notes the object ID id.
func (n *IDNotes) Add(id uint64) {
	if len(n.ids) == idPart {
		n.Flush()
	}
	n.ids = append(n.ids, id)
	n.r.Add(id)
}

// Flush ends the part being noted.
func (n *IDNotes) Flush() {
	if len(n.ids) == 0 {
		return
	}
	n.Sets = append(n.Sets, SegmentIDsIn(n.ids, n.r))
	n.Ranges = append(n.Ranges, n.r)
	n.ids, n.r = n.ids[:0], IDRange{}
}

// Each calls fn with every ID of the set.
func (set *SegmentIDs) Each(fn func(id uint64)) {
	for _, id := range set.IDs {
		fn(id)
	}
	for w, word := range set.Bits {
		for word != 0 {
			p := uint64(w)<<6 + uint64(bits.TrailingZeros64(word))
			word &= word - 1
			fn(set.Lo + p<<set.Shift)
		}
	}
}

// zeroed is a zeroed array whose pages are written before the bits are
// ORed in: a fresh page read first is mapped to the kernel's zero page,
// and the write after it faults a second time.
func zeroed(n int) []uint64 {
	b := make([]uint64, n)
	clear(b)
	return b
}
