package retained

import (
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSegmentIDs notes segments' IDs as the first pass does and ORs them
// into a dense bitmap, against setting each ID's bit: segments packed,
// spread thinly (the IDs kept as they are), with a coarser step than the
// bitmap's and at every bit offset. Every other segment is noted as the
// first pass notes it: its shape from a range summed over its IDs and
// over one more that is not kept (an object its span cuts).
func TestSegmentIDs(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
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
			id := lo + uint64(rng.IntN(1<<16))<<shift
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
		for k, seg := range segs {
			set := NewSegmentIDs(seg)
			if k%2 == 1 && len(seg) > 0 {
				var r IDRange
				for _, id := range seg {
					r.Add(id)
				}
				r.Add(seg[0] + uint64(1+rng.IntN(1<<10))<<shift) // cut: in the range, not in the IDs
				set = SegmentIDsIn(seg, r)
			}
			set.orInto(got, min0, gs)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("iter %d: the noted segments set other bits than their IDs", iter)
		}
	}
}
