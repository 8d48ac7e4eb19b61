package retained

import (
	"context"
	"math/bits"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/hprof2pprof/hprof2pprof/convert/hprof"
	"github.com/hprof2pprof/hprof2pprof/convert/internal/idnote"
	"github.com/hprof2pprof/hprof2pprof/convert/retained/internal/mem"
)

// indexSegments builds the ID index from the in-memory segments: the
// caller's pass summed their IDs up (Input.SegmentObjects), which is
// enough to shape the dense index, and noted them (Input.SegmentIDs);
// without those notes the IDs are read again from the segments by
// several workers, each setting its objects' bits. So no ID list (8
// bytes per object) is held, but for IDs too sparse for the dense form,
// which are collected and sorted.
func (s *scanner) indexSegments(ctx context.Context) error {
	noted := s.in.SegmentIDs
	var reread func(fn func(seg int, id uint64)) error
	if len(noted) != s.in.Segments.Len() {
		noted = nil
		reread = func(fn func(int, uint64)) error { return s.eachSegment(ctx, fn) }
	}
	return s.indexSets(s.in.SegmentObjects, noted, reread)
}

// indexSets builds the ID index (buildIndex) and sizes the arrays of
// pass 2 for its objects.
func (s *scanner) indexSets(ranges []idnote.IDRange, noted []idnote.SegmentIDs, reread func(fn func(part int, id uint64)) error) error {
	x, dups, err := s.buildIndex(ranges, noted, reread)
	if err != nil {
		return err
	}
	return s.sized(x, dups)
}

// buildIndex builds the ID index from parts of the dump's objects (the
// segments, or the parts of a stream: Input.Noted), each summed up in
// ranges, from their notes, or when there are none (nil) from reread,
// which calls its function with each object's part and ID, several parts
// at a time. The notes are freed as they are indexed. It returns the
// index and the number of duplicate IDs.
func (s *scanner) buildIndex(ranges []idnote.IDRange, noted []idnote.SegmentIDs, reread func(fn func(part int, id uint64)) error) (*idIndex, int, error) {
	if err := checkLimits(ranges, s.maxEdges); err != nil {
		return nil, 0, err
	}
	sh := shapeOf(ranges)
	n := sh.n
	if n == 0 {
		x, dups := newIDIndex(nil)
		return x, dups, nil
	}
	// One level over the whole range while it is packed enough, else
	// two over the stretches that hold an ID (stretch.go), else the
	// sorted IDs.
	last := sh.span
	var top, kept []uint32
	if sh.span/denseBitsPerObject >= uint64(n) {
		if marks := newStretchMarks(sh.span, n); marks != nil {
			if err := sh.markStretches(marks, noted, reread); err != nil {
				return nil, 0, err
			}
			top, kept, last = marks.table(sh.span)
		}
		if !twoLevel(kept, n) {
			return sortedIndex(len(ranges), n, noted, reread)
		}
	}
	// Over the budget the index comes from files like the graph
	// (indexArena): the arena is chosen now, with the duplicates still
	// counted.
	s.chooseArena(n)
	ia := s.indexArena()
	flat := mem.Alloc[uint64](ia, denseWords(last), denseWords(last))
	if err := sh.setBits(flat, top, noted, reread); err != nil {
		return nil, 0, err
	}
	x := newDense(ia, flat, sh.lo, sh.shift) // flat becomes x.words
	x.top, x.kept = top, kept
	return x, n - int(x.n), nil
}

// idShape sums up the ID ranges of a dump's parts: n IDs from lo, all
// multiples of 1<<shift apart, the last span steps after lo.
type idShape struct {
	n     int
	lo    uint64
	shift uint
	span  uint64
}

// checkLimits refuses a dump whose objects (summed from ranges) or
// references (refs, a bound) the retained view cannot number, before
// anything is allocated for them.
func checkLimits(ranges []idnote.IDRange, refs int64) error {
	var n uint64
	for _, r := range ranges {
		n += uint64(r.N)
	}
	if n > MaxObjects {
		return errf(ErrTooLarge, "%d objects, over the %d it numbers (the heap view and the heap tables have no such limit)", n, int64(MaxObjects))
	}
	if refs > MaxReferences {
		return errf(ErrTooLarge, "up to %d references (null ones counted), over the %d it holds", refs, int64(MaxReferences))
	}
	return nil
}

// shapeOf sums up the ranges of the parts (n is 0 when they hold none).
func shapeOf(ranges []idnote.IDRange) idShape {
	n := 0
	lo, hi := ^uint64(0), uint64(0)
	var first, diff uint64
	for _, r := range ranges {
		if r.N == 0 {
			continue
		}
		if n == 0 {
			first = r.First
		}
		n += r.N
		lo, hi = min(lo, r.Lo), max(hi, r.Hi)
		diff |= r.Diff | (r.First ^ first)
	}
	if n == 0 {
		return idShape{}
	}
	shift := uint(0)
	if diff != 0 {
		shift = uint(bits.TrailingZeros64(diff))
	}
	return idShape{n: n, lo: lo, shift: shift, span: (hi - lo) >> shift}
}

// markStretches marks in marks the stretches of the range that hold an
// ID: from the notes, or read again.
func (sh idShape) markStretches(marks stretchMarks, noted []idnote.SegmentIDs, reread func(fn func(part int, id uint64)) error) error {
	if noted != nil {
		for i := range noted {
			marks.markSet(&noted[i], sh.lo, sh.shift)
		}
		return nil
	}
	lo, shift, span := sh.lo, sh.shift, sh.span
	return reread(func(_ int, id uint64) {
		// An ID out of the summed-up range (an input changed
		// since) is left out: the filling reports it.
		if p := (id - lo) >> shift; id >= lo && p <= span {
			marks.markAtomic(p)
		}
	})
}

// setBits sets the bit of each ID in flat, the dense index's words (of
// the stretches top keeps, when top is not nil): from the notes, which
// are freed as they go, or read again.
func (sh idShape) setBits(flat []uint64, top []uint32, noted []idnote.SegmentIDs, reread func(fn func(part int, id uint64)) error) error {
	if noted != nil {
		for i := range noted {
			orInto(&noted[i], flat, sh.lo, sh.shift, top)
			noted[i] = idnote.SegmentIDs{} // freed as it goes
		}
		return nil
	}
	lo, shift, span := sh.lo, sh.shift, sh.span
	return reread(func(_ int, id uint64) {
		p := (id - lo) >> shift
		if id < lo || p > span {
			return // as in markStretches
		}
		p, ok := keptPos(top, p)
		if !ok {
			return
		}
		atomic.OrUint64(&flat[p>>6], 1<<(p&63))
	})
}

// sortedIndex indexes the n IDs of the parts in the sparse form (sorted):
// from their notes, or read again (see buildIndex), a part's IDs apart
// while several parts are read at once.
func sortedIndex(parts, n int, noted []idnote.SegmentIDs, reread func(fn func(int, uint64)) error) (*idIndex, int, error) {
	all := make([]uint64, 0, n)
	if noted != nil {
		for i := range noted {
			noted[i].Each(func(id uint64) { all = append(all, id) })
			noted[i] = idnote.SegmentIDs{}
		}
	} else {
		chunks := make([][]uint64, parts)
		if err := reread(func(i int, id uint64) { chunks[i] = append(chunks[i], id) }); err != nil {
			return nil, 0, err
		}
		for _, c := range chunks {
			all = append(all, c...)
		}
	}
	x, dups := newIDIndex(all)
	return x, dups, nil
}

// indexArena is where the dense ID index's arrays come from: the
// spilling arena's files, or else the heap. Not anonymous mappings: the
// Go heap has the pages the first pass gave back, where fresh mappings
// cost a fault and the kernel's zeroing per page. Nor files when the
// index is kept after the analysis (KeepIDs), which outlives the arena.
func (s *scanner) indexArena() *mem.Arena {
	if s.in.KeepIDs || s.a == nil || s.a.Anon() {
		return nil
	}
	return s.a
}

// freeIndex frees the ID index once the lookups are done (KeepIDs
// keeps it).
func (s *scanner) freeIndex() {
	if x := s.ix; x != nil {
		ia := s.indexArena()
		mem.Free(ia, x.dir)
		mem.Free(ia, x.words)
	}
	s.ix = nil
}

// eachSegment calls fn with the ID of every object of every segment,
// several segments at a time (fn must be safe for that), stopping each
// segment at its first damage as the caller's pass did.
func (s *scanner) eachSegment(ctx context.Context, fn func(seg int, id uint64)) error {
	segs := s.in.Segments
	return overSegments(ctx, segs, s.idSize, max(1, min(runtime.GOMAXPROCS(0), segs.Len())), func() subVisit {
		return func(seg int, sub *hprof.SubRecord, _ []byte) {
			if sub.Tag.IsObject() {
				fn(seg, sub.ID)
			}
		}
	})
}

// subVisit is called with each sub-record of segment seg and its
// payload (an instance's field bytes, an object array's elements).
type subVisit func(seg int, sub *hprof.SubRecord, data []byte)

// overSegments reads the segments, workers at a time, handing each
// sub-record to the visit of the worker that reads it (newVisit makes
// one per worker, for its own state). A segment ends at its first
// damage, as the first pass's did; a segment that cannot be had at all
// is the error returned, after every other was read.
func overSegments(ctx context.Context, segs Segments, idSize, workers int, newVisit func() subVisit) error {
	ns := segs.Len()
	next := make(chan int)
	errs := make([]error, ns)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			var buf []byte
			visit := newVisit()
			for i := range next {
				errs[i] = segs.Body(i, &buf, func(rec hprof.Record, body []byte) {
					hb := hprof.NewHeapBytes(body, rec, idSize)
					for {
						sub, err := hb.Next()
						if err != nil {
							return
						}
						data, err := hb.Payload()
						if err != nil {
							return // cut short: pass 2 stops before it too
						}
						visit(i, sub, data)
					}
				})
			}
		})
	}
	var err error
	for i := range ns {
		if err = ctx.Err(); err != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if err != nil {
		return err
	}
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// sized takes the ID index and sizes the arrays of pass 2.
func (s *scanner) sized(ix *idIndex, dups int) error {
	s.ix = ix
	s.stats.Duplicates = dups
	n := ix.len()
	s.stats.Objects = n
	if !s.arenaChosen {
		s.chooseArena(n)
	}
	s.obj.w = mem.Alloc[uint32](s.a, n, n)
	s.g.Start = mem.Alloc[uint32](s.a, n, n)
	s.g.Deg = mem.Alloc[uint8](s.a, n, n)
	// The bound counts null references too; untouched capacity costs
	// address space, not memory (a spilled file reserves its blocks).
	s.g.Edges = mem.AllocSmall[uint32](s.a, 0, int(s.maxEdges))
	for i := range s.classes {
		if c := &s.classes[i]; c.id != 0 {
			if node, ok := ix.lookup(c.id); ok {
				c.node = node
			}
		}
	}
	return nil
}
