package retained

import (
	"math/bits"
	"sync/atomic"

	"github.com/hprof2pprof/hprof2pprof/convert/internal/idnote"
)

// The dense ID index in two levels, for IDs that cluster in stretches far
// apart: the pages of a ZGC heap lie anywhere in a range it reserves many
// times the heap's size, and a small heap in a big reservation has the
// JDK's archived objects at the reservation's top. One bit per possible
// ID over the whole range would cost more than the sorted IDs, but most
// of the range holds none. So the bitmap keeps only the stretches of
// 1<<superShift possible IDs that hold one, one after another, and a
// table by stretch of the range (top) says where each kept one went, or
// that none did. Positions keep their order, so the numbers are the same
// ranks as in either other form; a lookup reads one word of the table
// more, a small one (4 bytes per 2 MB of the range at 8-byte steps).
const (
	superShift = 18 // 2 MB of heap at 8-byte steps: a ZGC small page, a G1 region or part of one
	superMask  = 1<<superShift - 1
	noSuper    = 1<<32 - 1 // top: a stretch without an ID
	superWords = superShift - 6
)

// stretchMarks marks the stretches of a range that hold an ID.
type stretchMarks []uint64

// newStretchMarks returns marks for positions 0..span, or nil when the
// table by stretch would take more than a byte per object of the n (with
// 1 MB to spare: 512 GB of range at 8-byte steps), for IDs spread too
// widely for any bitmap.
func newStretchMarks(span uint64, n int) stretchMarks {
	ns := span>>superShift + 1
	if ns*4 > uint64(n)+1<<20 {
		return nil
	}
	return make(stretchMarks, ns/64+1)
}

func (m stretchMarks) mark(p uint64) {
	s := p >> superShift
	m[s>>6] |= 1 << (s & 63)
}

// markAtomic is mark for several goroutines at once.
func (m stretchMarks) markAtomic(p uint64) {
	s := p >> superShift
	atomic.OrUint64(&m[s>>6], 1<<(s&63))
}

// markSet marks the stretches of a segment's noted IDs (IDs lo +
// p<<shift): a bitmap's word spans at most two stretches, so its lowest
// and highest IDs mark both.
func (m stretchMarks) markSet(set *idnote.SegmentIDs, lo uint64, shift uint) {
	if len(set.Bits) == 0 || set.Shift != shift {
		set.Each(func(id uint64) { m.mark((id - lo) >> shift) })
		return
	}
	off := (set.Lo - lo) >> shift
	for i, w := range set.Bits {
		if w != 0 {
			q := off + uint64(i)<<6
			m.mark(q + uint64(bits.TrailingZeros64(w)))
			m.mark(q + 63 - uint64(bits.LeadingZeros64(w)))
		}
	}
}

// table numbers the marked stretches of positions 0..span in order: top
// by stretch (noSuper for the others), the kept stretches in order, and
// the last position of the bitmap over them.
func (m stretchMarks) table(span uint64) (top, kept []uint32, last uint64) {
	top = make([]uint32, span>>superShift+1)
	for s := range top {
		if m[s>>6]>>(s&63)&1 == 0 {
			top[s] = noSuper
			continue
		}
		top[s] = uint32(len(kept))
		kept = append(kept, uint32(s))
	}
	return top, kept, uint64(len(kept))<<superShift - 1
}

// twoLevel reports whether the two-level form of n IDs over the kept
// stretches is within the dense form's bound (denseBitsPerObject).
func twoLevel(kept []uint32, n int) bool {
	return len(kept) > 0 && (uint64(len(kept))<<superShift)/denseBitsPerObject < uint64(n)
}

// keptPos is position p of the whole range in the two-level bitmap, if a
// kept stretch holds it; p itself without a table (one level).
func keptPos(top []uint32, p uint64) (uint64, bool) {
	if top == nil {
		return p, true
	}
	s := p >> superShift
	if s >= uint64(len(top)) || top[s] == noSuper {
		return 0, false
	}
	return uint64(top[s])<<superShift | p&superMask, true
}

// stretchPos is keptPos for a position known to be in a kept stretch.
func stretchPos(top []uint32, p uint64) uint64 {
	if top == nil {
		return p
	}
	return uint64(top[p>>superShift])<<superShift | p&superMask
}

// stretchWord is stretchPos for the bitmap word w.
func stretchWord(top []uint32, w uint64) uint64 {
	if top == nil {
		return w
	}
	return uint64(top[w>>superWords])<<superWords | w&(1<<superWords-1)
}
