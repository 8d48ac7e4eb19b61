package domtree

import (
	"runtime"
	"sync/atomic"

	"github.com/hprof2pprof/hprof2pprof/convert/retained/internal/mem"
)

// Dominators computes the immediate dominator of every DFS number with
// the semi-NCA algorithm (Georgiadis; semidominators by Lengauer–Tarjan
// with path compression, then a walk up the DFS tree). parent is
// overwritten (with the semidominators), and so is off: idom is off[1:]
// (the semidominators' pass reads each offset for the last time just
// before it keeps the parent there), for the caller to free as off.
// idom[0] is 0. forest is the compression forest, len(parent) words
// (see below) the caller maps (mem.AllocHot: it is used at random) and may
// reuse or free afterwards; its contents on entry do not matter.
func Dominators(forest []uint64, parent, off, preds []uint32) (idom []uint32) {
	m := len(parent)
	// The compression forest: for number v, its ancestor in the low word
	// and, in the high word, best: the smallest semidominator on v's
	// compressed path (the semi of the "label" vertex of Lengauer–Tarjan,
	// kept by value). Both are read at once at every step of an
	// evaluation, which is a random walk over the numbers: one word
	// spares a cache miss per step. best is set when v is done; only
	// numbers above the current one are evaluated (a smaller one is its
	// own answer), so it needs no setting up.
	for v, p := range parent {
		forest[v] = uint64(p)
	}
	semi := parent // the parents are in the forest now: parent's memory takes the semidominators
	main := &semiEval{forest: forest}
	// Numbers with many predecessors (objects many others refer to: on
	// bench-4g, 5,000 numbers hold 24.5 M of the 38.9 M predecessors, and
	// take two thirds of this loop) have their predecessors evaluated on
	// two cores, half each (semiEval.shared).
	// The helper starts with the first such number.
	var helper *semiHelper
	share := mem.CanStoreShared && runtime.GOMAXPROCS(0) > 1
	defer func() { // on a panic
		if helper != nil {
			helper.stop()
		}
	}()
	for w := m - 1; w >= 1; w-- {
		s := uint32(forest[w]) // the DFS parent: not compressed yet
		ps := preds[off[w]:off[w+1]]
		// off[w+1] is read no more: it keeps the parent for the walk
		// up the tree below (idom[w] is off[w+1]).
		off[w+1] = s
		if share && len(ps) >= sharedPreds {
			if helper == nil {
				helper = startSemiHelper(forest)
			}
			half := len(ps) / 2
			q := helper.hand(semiJob{ps: ps[half:], w: uint32(w), s: s})
			main.shared = true
			s = helper.wait(q, main.semi(ps[:half], uint32(w), s))
			main.shared = false
		} else if len(ps) > 0 { // most numbers have none: no call
			s = main.semi(ps, uint32(w), s)
		}
		semi[w] = s
		forest[w] = uint64(s)<<32 | forest[w]&0xffffffff
	}
	if helper != nil {
		helper.stop()
		helper = nil
	}
	runtime.KeepAlive(main.touched)
	idom = off[1 : m+1]
	idom[0] = 0
	for w := 1; w < m; w++ {
		c := idom[w]
		for c > semi[w] {
			c = idom[c]
		}
		idom[w] = c
	}
	return idom
}

// sharedPreds is how many predecessors a number needs for them to be
// evaluated on two cores, so that a half is far more work than handing
// it over (a guess: the dumps we have show numbers with a few
// predecessors or with thousands; a variable for the tests).
var sharedPreds = 512

// semiEval evaluates predecessors over the compression forest, with its
// own stack: one per goroutine.
type semiEval struct {
	forest  []uint64
	stack   []uint32
	touched uint64 // see touch
	// shared: another goroutine evaluates predecessors of the same number
	// at once. Evaluations only compress paths then (no number is linked
	// meanwhile), and every word a compression writes is a function of the
	// path alone: the ancestor at its top and the smallest semidominator
	// from the word's number up to there. So whichever goroutine writes a
	// word, and whenever the other reads it, the reader sees a consistent
	// shortcut of the same path, and the results are those of one
	// goroutine doing all. (The paths may end up compressed differently,
	// as each half stops at a semidominator of 0, which no evaluation
	// can tell: a path's answer is the same, shortcut or not.) A word
	// must only be written whole, in one store, which mem.StoreShared does
	// (Go's own stores are that too, but the Go memory model gives a
	// racing program no such promise).
	shared bool
}

// semi returns the smallest of s and the evaluations of the predecessors
// ps of number w.
func (e *semiEval) semi(ps []uint32, w, s uint32) uint32 {
	forest := e.forest
	// Numbers with many predecessors (objects many others refer to:
	// on bench-1g, 4,800 numbers hold 5.9 M of the 9.6 M
	// predecessors) take most of the time, in cache misses on the
	// predecessors' forest words. While one batch is evaluated, the
	// words of the batch after next and the ancestors' words of the
	// next one are prefetched (without waiting for them: see
	// mem.PrefetchWords): bench-1g 0.43 → 0.38–0.40 s, bench-4g
	// 1.81 → 1.59–1.71 s.
	// Prefetching ahead across numbers, or all of a long list at once,
	// was slower: a compression path's deeper steps miss anyway, and
	// thousands of prefetches at once only wait for one another.
	if len(ps) > touchBatch {
		mem.PrefetchWords(&forest[0], ps[touchBatch:min(len(ps), 3*touchBatch)], w)
	}
	// A semidominator of 0 (the virtual root) is the least there is:
	// the predecessors left can only tie it.
	for len(ps) > 0 && s != 0 {
		batch := ps[:min(len(ps), touchBatch)]
		ps = ps[len(batch):]
		if len(ps) > 2*touchBatch {
			mem.PrefetchWords(&forest[0], ps[2*touchBatch:min(len(ps), 3*touchBatch)], w)
		}
		if len(ps) > 0 {
			mem.PrefetchLinks(&forest[0], ps[:min(len(ps), touchBatch)], w)
		}
		if len(batch) > 1 {
			e.touched ^= touch(forest, batch)
		}
		for _, v := range batch {
			if v <= w {
				// Not evaluated yet (or the virtual root): itself.
				s = min(s, v)
			} else if u := e.eval(v, w+1); u < s {
				s = u
			}
		}
	}
	return s
}

// eval returns the smallest semidominator on v's path up the linked
// forest, whose numbers are those from last on, compressing the path.
func (e *semiEval) eval(v, last uint32) uint32 {
	forest := e.forest
	f := forest[v]
	if uint32(f) < last {
		return uint32(f >> 32)
	}
	stack := e.stack[:0]
	for {
		stack = append(stack, v)
		v = uint32(f)
		f = forest[v]
		if uint32(f) < last {
			break
		}
	}
	// v is the top of the path, f its word; walking back down, each
	// node is linked to v's ancestor and takes the smaller best.
	top, pb := f&0xffffffff, f>>32
	for i := len(stack) - 1; i >= 0; i-- {
		v = stack[i]
		pb = min(pb, forest[v]>>32)
		if e.shared {
			mem.StoreShared(&forest[v], pb<<32|top)
		} else {
			forest[v] = pb<<32 | top
		}
	}
	e.stack = stack
	return uint32(pb)
}

// semiHelper evaluates half the predecessors of the numbers that have
// many, on another goroutine. It waits for them spinning, not parked: a
// number's half takes some 100 µs on bench-4g, and with a parked one
// (channels) the loop was slower than on one core: 1.86 s against 1.67.
type semiHelper struct {
	job  semiJob
	seq  atomic.Uint32 // jobs handed over: job holds the last
	res  atomic.Uint64 // the last job done: its seq (high word) and result
	quit atomic.Bool
}

type semiJob struct {
	ps   []uint32
	w, s uint32
}

func startSemiHelper(forest []uint64) *semiHelper {
	h := &semiHelper{}
	go func() {
		e := &semiEval{forest: forest, shared: true}
		done := uint32(0)
		for spins := 0; ; spins++ {
			if q := h.seq.Load(); q != done {
				done = q
				h.res.Store(uint64(q)<<32 | uint64(e.semi(h.job.ps, h.job.w, h.job.s)))
				continue
			}
			if h.quit.Load() {
				break
			}
			if spins&63 == 0 {
				runtime.Gosched()
			}
		}
		runtime.KeepAlive(e.touched)
	}()
	return h
}

// hand gives the helper j to evaluate; wait, with what hand returned,
// waits for it and returns the smaller of its result and s.
func (h *semiHelper) hand(j semiJob) uint32 {
	h.job = j
	return h.seq.Add(1)
}

func (h *semiHelper) wait(q, s uint32) uint32 {
	for spins := 1; ; spins++ {
		if r := h.res.Load(); uint32(r>>32) == q {
			return min(s, uint32(r))
		}
		if spins&63 == 0 {
			runtime.Gosched() // in case the helper waits for a processor
		}
	}
}

func (h *semiHelper) stop() { h.quit.Store(true) }

// touchBatch is how many predecessors touch reads ahead.
const touchBatch = 16

// touch reads the forest words of the numbers in batch and of their
// ancestors: loads that do not depend on one another, so the processor
// has them all on the way at once, where an evaluation waits for each
// in turn. The evaluations then find them in the cache. The caller keeps
// the result alive (runtime.KeepAlive), or the loads would be dropped.
func touch(forest []uint64, batch []uint32) uint64 {
	var x uint64
	for _, v := range batch {
		x ^= forest[v]
	}
	for _, v := range batch {
		x ^= forest[uint32(forest[v])]
	}
	return x
}
