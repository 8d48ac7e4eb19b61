package retained

import (
	"context"
	"math/bits"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/hprof2pprof/hprof2pprof/convert/hprof"
)

// indexSegments builds the ID index from the in-memory segments: the
// caller's pass summed their IDs up (Input.SegmentObjects), which is
// enough to shape the dense index; the IDs themselves are read again from
// the segments by several workers, each setting its objects' bits. So no
// ID list (8 bytes per object) is ever held. IDs too sparse for the
// dense form are collected per segment and sorted, as newObjectIndex does.
func (s *scanner) indexSegments(ctx context.Context) error {
	n := 0
	lo, hi := ^uint64(0), uint64(0)
	var first, diff uint64
	for _, r := range s.in.SegmentObjects {
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
	if uint64(n) >= uint64(classObjFlag) {
		return errf(ErrTooLarge, "%d objects", n)
	}
	if s.maxEdges >= 1<<32-1 {
		return errf(ErrTooLarge, "up to %d references", s.maxEdges)
	}
	if n == 0 {
		ix, dups := newIDIndex(nil)
		return s.sized(ix, dups)
	}
	shift := uint(0)
	if diff != 0 {
		shift = uint(bits.TrailingZeros64(diff))
	}
	span := (hi - lo) >> shift
	if span/denseBitsPerObject >= uint64(n) {
		chunks := make([][]uint64, s.in.Segments.Len())
		err := s.eachSegment(ctx, func(i int, id uint64) { chunks[i] = append(chunks[i], id) })
		if err != nil {
			return err
		}
		return s.index(chunks)
	}
	nw := (span/64 + 1 + 7) &^ 7 // whole blocks
	x := &idIndex{min: lo, shift: shift, words: make([]uint64, nw), ranks: make([]uint32, nw/8+1)}
	err := s.eachSegment(ctx, func(_ int, id uint64) {
		p := (id - lo) >> shift
		atomic.OrUint64(&x.words[p>>6], 1<<(p&63))
	})
	if err != nil {
		return err
	}
	var r uint32
	for b := range nw / 8 {
		x.ranks[b] = r
		for _, w := range x.words[8*b : 8*b+8] {
			r += uint32(bits.OnesCount64(w))
		}
	}
	x.ranks[nw/8] = r
	return s.sized(x, n-int(r))
}

// eachSegment calls fn with the ID of every object of every segment,
// several segments at a time (fn must be safe for that), stopping each
// segment at its first damage as the caller's pass did.
func (s *scanner) eachSegment(ctx context.Context, fn func(seg int, id uint64)) error {
	segs := s.in.Segments
	ns := segs.Len()
	next := make(chan int)
	errs := make([]error, ns)
	var wg sync.WaitGroup
	for range max(1, min(runtime.GOMAXPROCS(0), ns)) {
		wg.Go(func() {
			var buf []byte
			for i := range next {
				errs[i] = segs.Body(i, &buf, func(rec hprof.Record, body []byte) {
					hb := hprof.NewHeapBytes(body, rec, s.idSize)
					for {
						sub, _, err := hb.Next()
						if err != nil {
							return
						}
						switch sub.Tag {
						case hprof.InstanceDump, hprof.ObjArrayDump, hprof.PrimArrayDump, hprof.PrimArrayNoData, hprof.ClassDump:
							fn(i, sub.ID)
						}
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
