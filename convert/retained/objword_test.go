package retained

import (
	"math/rand/v2"
	"testing"

	"github.com/hprof2pprof/hprof2pprof/convert/retained/internal/domtree"
)

// TestNoteSeen checks the classes noted in one pass (split between the
// cores for big arrays), from marks, against noting each marked object's
// class one by one: class objects, wide objects and unmarked objects
// mixed in.
func TestNoteSeen(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 1, 63, 64, 65, 1000, 3<<20 + 17} {
		const classes = 700
		o := objWords{w: make([]uint32, n), wide: map[uint32]wideObj{}}
		seen := domtree.NewBitset(nil, n)
		for v := range n {
			cls, size := uint32(rng.IntN(classes)), int64(16+8*rng.IntN(40))
			switch rng.IntN(50) {
			case 0:
				cls |= classObjFlag
			case 1:
				size = 1 << 20 // wide
			}
			w, ok := packObj(cls, size)
			if !ok {
				o.wide[uint32(v)] = wideObj{cls, size}
			}
			o.w[v] = w
			if rng.IntN(4) != 0 {
				seen.Set(uint32(v))
			}
		}
		// Few classes reached only once, so a split could miss them.
		for c := range classes {
			if v := rng.IntN(n + 1); v < n && rng.IntN(4) == 0 {
				o.w[v], _ = packObj(uint32(c), 24)
				delete(o.wide, uint32(v))
			}
		}
		want := make([]bool, classes)
		for v := range uint32(n) {
			if seen.Has(v) {
				o.noteClass(want, v)
			}
		}
		got := make([]bool, classes)
		o.noteSeen(got, seen)
		for c := range classes {
			if got[c] != want[c] {
				t.Fatalf("n=%d: class %d noted %v, want %v", n, c, got[c], want[c])
			}
		}
	}
}
