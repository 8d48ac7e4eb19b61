package retained

import (
	"maps"
	"math/rand/v2"
	"testing"

	"github.com/hprof2pprof/hprof2pprof/convert/hprof"
)

// TestByClassTopAgainstWalk compares the totals by class taken from the
// marks of paths (byClassTop) with the walk of the dominator tree that
// keeps open objects per class (byClass), on random dominator trees whose
// classes share names now and then (one class in two loaders), with long
// runs of one class, and past the depth cap; and each path node's longest
// run with the runs along the dominator chains.
func TestByClassTopAgainstWalk(t *testing.T) {
	defer func(e int) { markEvery = e }(markEvery)
	markEvery = 64
	rng := rand.New(rand.NewPCG(7, 8))
	for iter := range 400 {
		nc := 1 + rng.IntN(6)
		s := &scanner{in: Input{MaxDepth: 1 + rng.IntN(8)}}
		for c := range nc {
			name := string(rune('A' + c))
			if c > 0 && rng.IntN(3) == 0 {
				name = s.classes[rng.IntN(c)].name // shares a name
			}
			s.classes = append(s.classes, layout{id: uint64(0x100 + 8*c), name: name, node: noNode})
		}
		m := 2 + rng.IntN(300)
		idom := make([]uint32, m)
		d := &dfsOrder{obj: objWords{w: make([]uint32, m), wide: map[uint32]wideObj{}}, rootKind: map[uint32]Root{}}
		cls := make([]uint32, m)
		size := make([]int64, m)
		for a := 1; a < m; a++ {
			switch r := rng.IntN(10); {
			case r == 0 || a == 1:
				idom[a] = 0
				d.rootKind[uint32(a)] = Root{Kind: hprof.RootJNIGlobal}
			case r < 6:
				idom[a] = uint32(a - 1) // chains
			default:
				idom[a] = uint32(1 + rng.IntN(a-1))
			}
			cls[a] = uint32(rng.IntN(nc))
			if rng.IntN(12) == 0 {
				cls[a] |= classObjFlag
			}
			size[a] = int64(rng.IntN(100))
			if rng.IntN(20) == 0 {
				size[a] = 4095 + int64(rng.IntN(3)) // wide
			}
			w, ok := packObj(cls[a], size[a])
			if !ok {
				d.obj.wide[uint32(a)] = wideObj{cls[a], size[a]}
			}
			d.obj.w[a] = w
		}
		ret := make([]int64, m)
		for a := 1; a < m; a++ {
			ret[a] = size[a]
		}
		for a := m - 1; a >= 1; a-- {
			ret[idom[a]] += ret[a]
		}
		top := make([]uint64, m/64+1)
		// As in analyse: the totals follow the paths on another
		// goroutine, told every 64 objects how far they are marked.
		marked := markedChan(m)
		done := make(chan struct{})
		at := make([]int32, m)
		var paths []Path
		go func() {
			defer close(done)
			paths, _, _ = s.paths(idom, d, top, at, make([]uint32, m), marked)
		}()
		got, held := s.byClassTop(idom, &d.obj, top, at, ret, marked)
		<-done
		// Every object once on its own node, and the nodes' sums the
		// objects' shallow sizes.
		held.addTo(paths)
		var objs, bytes, want0 int64
		for _, p := range paths {
			objs += p.Objects
			bytes += p.Bytes
		}
		for a := 1; a < m; a++ {
			want0 += size[a]
		}
		if objs != int64(m-1) || bytes != want0 {
			t.Fatalf("iter %d: paths hold %d objects, %d bytes; want %d, %d", iter, objs, bytes, m-1, want0)
		}
		// The longest run of each node, from the chains: an object
		// goes on its dominator's run when both are of the node's class
		// (by name) and on that node.
		cn := s.classNames()
		runLen := make([]int64, m)
		wantRun := make([]int64, len(paths))
		for i := 1; i < len(wantRun); i++ { // the virtual root has none
			wantRun[i] = 1
		}
		for a := 1; a < m; a++ {
			p, c := at[a], cn.of(cls[a])
			if paths[p].Class != c {
				continue
			}
			runLen[a] = 1
			if dom := idom[a]; dom != 0 && at[dom] == p && cn.of(cls[dom]) == c {
				runLen[a] = runLen[dom] + 1
			}
			wantRun[p] = max(wantRun[p], runLen[a])
		}
		for i, p := range paths {
			if p.MaxRun != wantRun[i] {
				t.Fatalf("iter %d: node %d: longest run %d, the chains say %d", iter, i, p.MaxRun, wantRun[i])
			}
		}
		want := s.byClass(idom, cls, ret)
		if got == nil {
			t.Fatalf("iter %d: byClassTop gave up on %d objects", iter, m)
		}
		if !maps.Equal(got, want) {
			t.Fatalf("iter %d: by class %v, the tree walk says %v", iter, got, want)
		}
	}
}

// TestObjWords checks the word of an object against what was packed, at
// the edges of what a word holds.
func TestObjWords(t *testing.T) {
	o := objWords{wide: map[uint32]wideObj{}}
	var objs []wideObj
	for _, c := range []uint32{0, 1, 77, wideClass - 1, wideClass, wideClass + 5, 1<<31 - 1} {
		for _, flag := range []uint32{0, classObjFlag} {
			for _, z := range []int64{0, 1, 16, wideSize - 1, wideSize, wideSize + 1, 1 << 32, 1 << 40} {
				objs = append(objs, wideObj{c | flag, z})
			}
		}
	}
	for i, x := range objs {
		w, ok := packObj(x.cls, x.size)
		if !ok {
			o.wide[uint32(i)] = x
		}
		o.w = append(o.w, w)
	}
	for i, x := range objs {
		if c, z := o.class(uint32(i)), o.shallow(uint32(i)); c != x.cls || z != x.size {
			t.Errorf("class 0x%x size %d: read back 0x%x, %d", x.cls, x.size, c, z)
		}
	}
}
