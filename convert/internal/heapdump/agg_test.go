package heapdump

import (
	"math"
	"testing"

	"github.com/hprof2pprof/hprof2pprof/convert/heapsize"
	"github.com/hprof2pprof/hprof2pprof/convert/hprof"
)

// The heap view's counters are 64-bit: the workers' counts of a dump of
// more than 2^32 objects merge without wrapping, and arrays of 2^32-1
// elements (the most an HPROF length holds) sum past 2^32 elements.
func TestCountsPast32Bits(t *testing.T) {
	const class = 0x7000_0000
	worker := func() *Agg {
		a := NewAgg(8, func(uint32) bool { return false })
		a.instance(class, 1).Count = 3 << 30 // as if 3×2^30 instances were counted
		a.objArray(class+8, 1, math.MaxUint32)
		a.primArray(hprof.TypeLong, 1, math.MaxUint32)
		return a
	}
	a := worker()
	a.Merge(worker())
	m := heapsize.Decide(heapsize.Evidence{IDSize: 8, Unsafe: "jdk.internal.misc.Unsafe", IntBase: 16, ObjScale: 4, JDK15: true}, heapsize.Overrides{})
	seen := 0
	a.Each(func(k Key, acc *Acc) {
		seen++
		switch {
		case k.Class == class:
			if acc.Count != 3<<31 {
				t.Errorf("instances: %d, want %d", acc.Count, int64(3)<<31)
			}
		case k.Class == class+8:
			// two arrays of 2^32-1 references: 16 + 4×(2^32-1) → 2^34 + 16 each
			if got, want := m.ArrayBytes(acc.Arrays, 0), int64(2)*(1<<34+16); acc.Count != 2 || got != want {
				t.Errorf("object arrays: %d, %d bytes; want 2, %d", acc.Count, got, want)
			}
		case k.Prim == hprof.TypeLong:
			// 16 + 8×(2^32-1) = 2^35 + 8 each
			if got, want := m.ArrayBytes(acc.Arrays, 8), int64(2)*(1<<35+8); acc.Count != 2 || got != want {
				t.Errorf("long arrays: %d, %d bytes; want 2, %d", acc.Count, got, want)
			}
		default:
			t.Errorf("unexpected group %+v", k)
		}
	})
	if seen != 3 {
		t.Errorf("%d groups, want 3", seen)
	}
}
