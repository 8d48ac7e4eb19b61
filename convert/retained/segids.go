package retained

import (
	"math/bits"
	"slices"

	"github.com/hprof2pprof/hprof2pprof/convert/retained/internal/mem"
)

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
	set := SegmentIDs{Lo: lo, Shift: shift, Bits: mem.AllocZeroed[uint64](nil, int(span/64+1))}
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

// each calls fn with every ID of the set.
func (set *SegmentIDs) each(fn func(id uint64)) {
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

// orInto sets the set's IDs in the dense bitmap words (IDs lo + p<<shift;
// the two-level form's when top is set, see stretchPos): word by word when
// the set's bits have the same step, else one by one.
func (set *SegmentIDs) orInto(words []uint64, lo uint64, shift uint, top []uint32) {
	if len(set.Bits) == 0 || set.Shift != shift {
		set.each(func(id uint64) {
			p := stretchPos(top, (id-lo)>>shift)
			words[p>>6] |= 1 << (p & 63)
		})
		return
	}
	off := (set.Lo - lo) >> shift
	w0, b := off>>6, off&63
	for i, word := range set.Bits {
		if word == 0 {
			continue
		}
		// A part without an ID may fall in a stretch the two-level form
		// leaves out: only parts with one are written.
		if low := word << b; low != 0 {
			words[stretchWord(top, w0+uint64(i))] |= low
		}
		if b != 0 {
			if high := word >> (64 - b); high != 0 {
				words[stretchWord(top, w0+uint64(i)+1)] |= high
			}
		}
	}
}
