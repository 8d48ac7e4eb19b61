package retained

import "github.com/hprof2pprof/hprof2pprof/convert/internal/idnote"

// orInto sets set's IDs in the dense bitmap words (IDs lo + p<<shift;
// the two-level form's when top is set, see stretchPos): word by word when
// the set's bits have the same step, else one by one.
func orInto(set *idnote.SegmentIDs, words []uint64, lo uint64, shift uint, top []uint32) {
	if len(set.Bits) == 0 || set.Shift != shift {
		set.Each(func(id uint64) {
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
