package retained

import (
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hprof2pprof/hprof2pprof/convert/internal/idnote"
)

// TestSegmentIDs notes segments' IDs as the first pass does and ORs them
// into a dense bitmap, against setting each ID's bit: segments packed,
// spread thinly (the IDs kept as they are), with a coarser step than the
// bitmap's and at every bit offset. Every other segment is noted as the
// first pass notes it: its shape from a range summed over its IDs and
// over one more that is not kept (an object its span cuts). The same sets
// also mark their stretches and fill the two-level form's bitmap
// (stretch.go), against each ID's bit there, with segments far apart in
// every fourth case.
func TestSegmentIDs(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	multi := 0 // cases with IDs in several stretches
	for iter := range 300 {
		shift := uint(rng.IntN(4))
		lo := rng.Uint64N(1<<40) << shift
		var segs [][]uint64
		var all []uint64
		for range 1 + rng.IntN(6) {
			step := uint64(1+rng.IntN(4)) << shift
			switch iter % 4 {
			case 1:
				step <<= 1 + rng.IntN(2) // a coarser step than the dump's
			case 2:
				step = uint64(1+rng.IntN(1<<14)) << shift // spread thinly
			}
			at := 1 << 16
			if iter%4 == 3 {
				at = 1 << 26 // segments in stretches far apart
			}
			id := lo + uint64(rng.IntN(at))<<shift
			var seg []uint64
			for range rng.IntN(400) {
				seg = append(seg, id)
				id += step * uint64(1+rng.IntN(3))
			}
			rng.Shuffle(len(seg), func(i, j int) { seg[i], seg[j] = seg[j], seg[i] })
			if len(seg) > 2 {
				seg = append(seg, seg[1]) // a duplicate
			}
			segs = append(segs, seg)
			all = append(all, seg...)
		}
		if len(all) == 0 {
			continue
		}
		min0 := slices.Min(all)
		var or uint64
		for _, id := range all {
			or |= id - min0
		}
		gs := uint(0)
		if or != 0 {
			gs = uint(bits.TrailingZeros64(or))
		}
		n := (slices.Max(all)-min0)>>gs/64 + 2
		want, got := make([]uint64, n), make([]uint64, n)
		for _, id := range all {
			p := (id - min0) >> gs
			want[p>>6] |= 1 << (p & 63)
		}
		span := (slices.Max(all) - min0) >> gs
		marks := newStretchMarks(span, len(all))
		if marks == nil {
			t.Fatalf("iter %d: no stretch table for a span of %d", iter, span)
		}
		var sets []idnote.SegmentIDs
		for k, seg := range segs {
			set := idnote.NewSegmentIDs(seg)
			if k%2 == 1 && len(seg) > 0 {
				var r idnote.IDRange
				for _, id := range seg {
					r.Add(id)
				}
				r.Add(seg[0] + uint64(1+rng.IntN(1<<10))<<shift) // cut: in the range, not in the IDs
				set = idnote.SegmentIDsIn(seg, r)
			}
			orInto(&set, got, min0, gs, nil)
			marks.markSet(&set, min0, gs)
			sets = append(sets, set)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("iter %d: the noted segments set other bits than their IDs", iter)
		}
		// The marked stretches are those with an ID; each ID's bit in the
		// two-level bitmap is where stretchPos puts it.
		wantMarks := make(stretchMarks, len(marks))
		for _, id := range all {
			wantMarks.mark((id - min0) >> gs)
		}
		if !slices.Equal(marks, wantMarks) {
			t.Fatalf("iter %d: the sets marked other stretches than their IDs'", iter)
		}
		top, kept, last := marks.table(span)
		want2, got2 := make([]uint64, last/64+1), make([]uint64, last/64+1)
		for _, id := range all {
			p := stretchPos(top, (id-min0)>>gs)
			want2[p>>6] |= 1 << (p & 63)
		}
		for k := range sets {
			orInto(&sets[k], got2, min0, gs, top)
		}
		if !slices.Equal(got2, want2) {
			t.Fatalf("iter %d: the two-level bitmap differs from the IDs' bits", iter)
		}
		if len(kept) > 1 {
			multi++
		}
	}
	if multi < 20 {
		t.Fatalf("only %d cases with IDs in several stretches", multi)
	}
}
