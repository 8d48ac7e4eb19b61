package retained

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hprof2pprof/hprof2pprof/convert/internal/idnote"
)

// checkRanks requires index x to number the IDs of want (sorted,
// distinct) by their rank, and to give each number's ID back.
func checkRanks(t *testing.T, iter int, x *idIndex, want []uint64) {
	t.Helper()
	for i, id := range want {
		if got, ok := x.lookup(id); !ok || int(got) != i {
			t.Fatalf("iter %d: lookup(0x%x) = %d %v, want %d", iter, id, got, ok, i)
		}
		if back := x.id(uint32(i)); back != id {
			t.Fatalf("iter %d: id(%d) = 0x%x, want 0x%x", iter, i, back, id)
		}
	}
}

func TestIDIndex(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for iter := 0; iter < 200; iter++ {
		n := rng.IntN(2000)
		ids := make([]uint64, 0, n)
		// Mostly ascending runs with some shuffled heads, like a dump.
		base := rng.Uint64N(1 << 40)
		for i := 0; i < n; i++ {
			if rng.IntN(50) == 0 {
				base = rng.Uint64N(1 << 40)
			}
			base += 8 + uint64(rng.IntN(64))*8
			ids = append(ids, base)
		}
		if n > 3 {
			ids = append(ids, ids[1], ids[n/2]) // duplicates
		}
		want := slices.Clone(ids)
		slices.Sort(want)
		want = slices.Compact(want)
		x, _ := newIDIndex(slices.Clone(ids))
		if !slices.Equal(x.ids, want) {
			t.Fatalf("iter %d: sorted IDs differ", iter)
		}
		checkRanks(t, iter, x, want)
		for _, id := range want {
			if _, ok := x.lookup(id + 1); ok && !slices.Contains(want, id+1) {
				t.Fatalf("iter %d: lookup(0x%x) found a missing ID", iter, id+1)
			}
		}
		if _, ok := x.lookup(0); ok && !slices.Contains(want, 0) {
			t.Fatal("found 0")
		}
	}
}

// objectIndex is buildIndex over chunks as the parts: from their notes
// (idnote.NewSegmentIDs), or read again when noted is false.
func objectIndex(t *testing.T, chunks [][]uint64, noted bool) (*idIndex, int) {
	t.Helper()
	s, err := newScanner(Input{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.closeArena()
	ranges := make([]idnote.IDRange, len(chunks))
	var sets []idnote.SegmentIDs
	for i, c := range chunks {
		for _, id := range c {
			ranges[i].Add(id)
		}
		if noted {
			sets = append(sets, idnote.NewSegmentIDs(c))
		}
	}
	reread := func(fn func(int, uint64)) error {
		for i, c := range chunks {
			for _, id := range c {
				fn(i, id)
			}
		}
		return nil
	}
	if noted {
		reread = nil
	}
	x, dups, err := s.buildIndex(ranges, sets, reread)
	if err != nil {
		t.Fatal(err)
	}
	return x, dups
}

// TestObjectIndex checks every form of buildIndex against a sort, from
// noted IDs and from IDs read again (the same form both ways): packed IDs
// (dense form), packed IDs in stretches with wide gaps between them
// (dense form with blocks left out), packed clusters far apart (dense
// form in two levels) and IDs spread over a huge range (sparse).
func TestObjectIndex(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	gaps, twos := 0, 0
	for iter := 0; iter < 200; iter++ {
		n := rng.IntN(3000)
		spread := iter%4 == 3
		gappy := iter%4 == 2
		clustered := iter%8 == 5
		if clustered {
			n = 3000 * (2 + rng.IntN(2)) // clusters of 3,000: over 2,048 per stretch (denseBitsPerObject)
		}
		var chunks [][]uint64
		var all []uint64
		base := rng.Uint64N(1<<40) &^ 7
		for i := 0; i < n; i++ {
			if i%97 == 0 {
				chunks = append(chunks, nil)
			}
			step := 16 + uint64(rng.IntN(8))*8
			if clustered {
				step = 8 + uint64(rng.IntN(2))*8
				if i > 0 && i%3000 == 0 {
					step = rng.Uint64N(1<<34) &^ 7 // on to a cluster gigabytes away
				}
			}
			if spread {
				step = uint64(rng.IntN(1 << 30))
			}
			if gappy && i%20 == 19 {
				step += 8 << 10 // two 512-ID blocks or more without an ID
			}
			base += step
			id := base
			if rng.IntN(40) == 0 && len(all) > 0 {
				id = all[rng.IntN(len(all))] // a duplicate, out of order
			}
			chunks[len(chunks)-1] = append(chunks[len(chunks)-1], id)
			all = append(all, id)
		}
		want := slices.Clone(all)
		slices.Sort(want)
		want = slices.Compact(want)
		reread, rdups := objectIndex(t, chunks, false)
		x, dups := objectIndex(t, chunks, true)
		if (reread.dir != nil) != (x.dir != nil) || (reread.top != nil) != (x.top != nil) || rdups != dups {
			t.Fatalf("iter %d: IDs read again indexed in another form than noted ones", iter)
		}
		// The forms are the same both ways: counted once.
		if gappy && x.dir != nil && len(x.words)/8 < len(x.dir)/2 {
			gaps++
		}
		if clustered && x.top != nil {
			twos++
		}
		for _, x := range []*idIndex{x, reread} {
			if dups != len(all)-len(want) || x.len() != len(want) {
				t.Fatalf("iter %d: %d duplicates, %d IDs; want %d, %d", iter, dups, x.len(), len(all)-len(want), len(want))
			}
			if !spread && !clustered && n > 100 && x.dir == nil {
				t.Fatalf("iter %d: packed IDs not in the dense form", iter)
			}
			if spread && x.dir != nil {
				t.Fatalf("iter %d: IDs spread over a huge range in a dense form", iter)
			}
			checkRanks(t, iter, x, want)
			for _, id := range want {
				for _, miss := range []uint64{id + 1, id + 8, id - 8, id + 1<<20} {
					if _, ok := x.lookup(miss); ok && !slices.Contains(want, miss) {
						t.Fatalf("iter %d: lookup(0x%x) found a missing ID", iter, miss)
					}
				}
			}
			for _, miss := range []uint64{0, ^uint64(0)} {
				if _, ok := x.lookup(miss); ok && !slices.Contains(want, miss) {
					t.Fatalf("iter %d: found 0x%x", iter, miss)
				}
			}
			// lookupNext answers as lookup does, for the IDs in dump order
			// (mostly ascending, some out of order and repeated) with
			// misses between them.
			var c idCursor
			for _, id := range all {
				for _, q := range []uint64{id, id + 8, id + 1, id} {
					got, ok := x.lookupNext(q, &c)
					want, wok := x.lookup(q)
					if got != want || ok != wok {
						t.Fatalf("iter %d: lookupNext(0x%x) = %d %v, lookup %d %v", iter, q, got, ok, want, wok)
					}
				}
			}
		}
	}
	if gaps == 0 {
		t.Fatal("no gappy ID set left a block out of the dense form")
	}
	if twos < 20 {
		t.Fatalf("only %d of 25 clustered ID sets in the two-level form", twos)
	}
}

func TestClassHash(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for iter := range 50 {
		n := rng.IntN(5000)
		seen := map[uint64]bool{}
		var ids []uint64
		for len(ids) < n {
			id := rng.Uint64N(1<<36) &^ 7
			if iter%5 == 0 {
				id = 8 * uint64(len(ids)+1) // consecutive
			}
			if id != 0 && !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
		h := newClassHash(ids)
		for i, id := range ids {
			if got, ok := h.lookup(id); !ok || got != uint32(i) {
				t.Fatalf("lookup(0x%x) = %d %v, want %d", id, got, ok, i)
			}
			if _, ok := h.lookup(id + 8); ok && !seen[id+8] {
				t.Fatalf("lookup(0x%x) found a missing ID", id+8)
			}
		}
		if _, ok := h.lookup(0); ok {
			t.Fatal("found 0")
		}
	}
}
