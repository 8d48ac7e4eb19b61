package retained

import (
	"math/rand/v2"
	"testing"
)

// TestNoteNumbered checks the classes noted in one pass (split between
// the cores for big arrays), from DFS numbers and from strong reach's
// flags, against noting each numbered object's class one by one: class objects, wide objects, unnumbered objects and
// objects outside the strong reach mixed in.
func TestNoteNumbered(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 1, 63, 64, 65, 1000, 3<<20 + 17} {
		const classes = 700
		o := objWords{w: make([]uint32, n), wide: map[uint32]wideObj{}}
		pre := make([]uint32, n)
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
			switch rng.IntN(8) {
			case 0:
				pre[v] = 0
			case 1:
				pre[v] = outside
			default:
				pre[v] = uint32(1 + rng.IntN(n))
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
		for v, a := range pre {
			if a != 0 && a != outside {
				o.noteClass(want, uint32(v))
			}
		}
		got := make([]bool, classes)
		o.noteNumbered(got, pre)
		// noteSeen, strong reach's twin, from the same objects as flags.
		seen := newBitset(nil, n)
		for v, a := range pre {
			if a != 0 && a != outside {
				seen.set(uint32(v))
			}
		}
		gotSeen := make([]bool, classes)
		o.noteSeen(gotSeen, seen)
		for c := range classes {
			if got[c] != want[c] || gotSeen[c] != want[c] {
				t.Fatalf("n=%d: class %d noted %v (from flags %v), want %v", n, c, got[c], gotSeen[c], want[c])
			}
		}
	}
}
