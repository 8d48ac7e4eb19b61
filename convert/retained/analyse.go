package retained

import (
	"context"
	"math/bits"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/hprof2pprof/hprof2pprof/convert/retained/internal/domtree"
	"github.com/hprof2pprof/hprof2pprof/convert/retained/internal/mem"
)

// analyse turns the graph into the dominator tree, retained sizes and the
// class-level paths, freeing each array as soon as it is done with, or
// handing its memory to a later one. The peak is while the reverse graph
// is built or the dominators computed (docs/retained.md, Memory): the
// forward graph is freed before the reverse graph is built, every other
// array by object number before the dominators are computed (the DFS
// numbers' memory becomes the run lengths).
func (s *scanner) analyse(ctx context.Context) (*Result, error) {
	s.phase("strong reach")
	// Beside strong reach (whose first walk takes every core,
	// domtree.ReachShared), what the first pass and the filling left
	// behind goes back to the system (the arrays to come are mapped apart
	// from the Go heap).
	released := make(chan struct{})
	go func() {
		defer close(released)
		debug.FreeOSMemory()
	}()
	if s.in.Paths {
		// The shortest paths, and what Input.Suspects needs of the graph,
		// while it is whole; the fields of their steps are named beside
		// the rest of the analysis (a pass over the dump that reads
		// nothing the analysis writes).
		s.phase("shortest paths")
		s.ha = s.holdArena()
		hw := s.startHolders()
		s.hold = hw.walk()
		if !s.keepOrder {
			mem.Free(s.ha, s.hold.order)
			s.hold.order = nil
		}
		if s.in.Suspects {
			s.rev = reverse(s.ha, &s.g, len(s.obj.w), hw.isWeak)
		}
		s.naming = make(chan error, 1)
		hold, ix := s.hold, s.ix
		go func() { s.naming <- s.fieldsPass(ctx, hold, ix) }()
	}
	allowed := s.strongReach()
	<-released
	// Each phase takes seconds (minutes when the graph is paged from
	// disk): a cancelled context (Ctrl-C) stops between phases.
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.phase("depth-first numbering")
	parent, log, pre := s.number(allowed)
	mem.Free(s.a, allowed)
	allowed = nil
	// The forward graph is done with: the arrays to come take its pages
	// while the kernel still has them at hand (see mem.AllocSmall). Each
	// array from here on that is written whole before it is read takes
	// the memory of one the analysis is done with instead (mem.Reuse), which
	// spares even that.
	mem.Free(s.a, s.g.Deg)
	mem.Free(s.a, s.g.Edges)
	s.g = domtree.Graph{}
	s.collect()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m := len(parent)
	s.phase("reverse graph")
	// Shallow sizes, classes and root kinds by DFS number, and the
	// unreachable totals, on the other core meanwhile (they read nothing
	// the reverse graph writes), and on this one too once the reverse
	// graph is built.
	move := s.byDFS(pre, m)
	var beside sync.WaitGroup
	beside.Go(move.work)
	off, preds := domtree.Predecessors(s.a, m, log)
	move.work() // the rest, if any: the two take turns by parts
	beside.Wait()
	d := move.finish()
	s.collect()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.phase("dominators")
	// The dominators' two new arrays take the memory of the log and of
	// the DFS numbers by object, which nothing reads any more, as it is
	// (mem.Reuse): pages already faulted in as far as those reached, which
	// need no zeroing either.
	// Mapped anew, they were faulted in from whatever pages the kernel
	// had at hand when they were first written, and the pages the last
	// phase gave back went first to the one faulted first: in a VM after
	// idle, memory fresh to the host for the other (bench-4g: the
	// forest written in 0.17–1.29 s, the run lengths faulted in in
	// 0.09–0.82 s, from one run to another).
	// The compression forest is used at random: memory even when the
	// rest spills, while it fits (mem.ReuseHot).
	forest := mem.ReuseHot[uint64](s.a, []uint64(log), m)
	log = nil
	// The class paths' run lengths (see paths) are written before they
	// are read.
	var run []uint32
	if s.in.KeepIDs {
		run = mem.Alloc[uint32](s.a, m, m)
	} else {
		run = mem.Reuse[uint32](s.a, pre, m)
		pre = nil
	}
	idom := domtree.Dominators(forest, parent, off, preds)
	idomMem := off // idom is off[1:]
	mem.Free(s.a, preds)
	spare := parent
	parent, off, preds = nil, nil, nil
	s.collect()
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	s.phase("retained sizes and class paths")
	res := &Result{Stats: s.stats, maxDepth: s.in.MaxDepth}
	// The class-level paths need the shallow sizes, the retained sizes
	// sum them up the tree: both at once. The paths also say which
	// objects no object of their class dominates (top), for the totals
	// by class.
	// Without the view (Input.NoView) neither is made.
	var top []uint64
	var at []int32
	var wg sync.WaitGroup
	// The totals by class follow the paths on this core, as far as the
	// paths have marked (marked: a multiple of 64, so no word of top the
	// paths still write is read).
	marked := markedChan(m)
	if s.in.NoView {
		mem.Free(s.a, spare)
	} else {
		top = mem.AllocZeroed[uint64](s.a, m/64+1)
		at = mem.Reuse[int32](s.a, spare, m) // path node by DFS number: paths writes it, byClassTop reads it
		wg.Go(func() {
			res.Paths, res.ClassNames, res.Roots = s.paths(idom, d, top, at, run, marked)
		})
	}
	// Added to at random (see mem.AllocHot). In memory, the retained sizes
	// take the forest's pages, written whole below: 8 bytes per object
	// the kernel need not fault in and zero again (bench-4g: 600 MB).
	ret := mem.ReuseHot[int64](s.a, forest, m)
	forest = nil
	ret[0] = 0
	for a := 1; a < m; a++ {
		ret[a] = d.obj.shallow(uint32(a))
	}
	// Retained sizes: children after parents in DFS order (idom[a] < a).
	for a := m - 1; a >= 1; a-- {
		ret[idom[a]] += ret[a]
	}
	if !s.in.NoView {
		var held nodeSums
		res.ByClass, held = s.byClassTop(idom, &d.obj, top, at, ret, marked)
		wg.Wait()
		held.addTo(res.Paths)
		mem.Free(s.a, top)
		mem.Free(s.a, at)
	}
	mem.Free(s.a, run)
	if res.ByClass == nil && !s.in.NoView {
		// Classes by DFS number, for the walk of the dominator tree.
		cls := mem.Alloc[uint32](s.a, m, m)
		for a := 1; a < m; a++ {
			cls[a] = d.obj.class(uint32(a))
		}
		res.ByClass = s.byClass(idom, cls, ret)
		mem.Free(s.a, cls)
	}
	mem.Free(s.a, d.obj.w)
	d.obj.w = nil
	if s.in.KeepIDs {
		res.ids = s.ix
		// For the paths (and not the rows), where their arrays are.
		ka := s.keepArena()
		res.retained = mem.Alloc[int64](ka, len(pre), len(pre))
		var both sync.WaitGroup
		both.Go(func() { res.keepDominators(ka, pre, idom) }) // beside it: they write apart
		for v := range res.retained {
			res.retained[v] = -1
			if a := pre[v]; a != 0 {
				res.retained[v] = ret[a]
			}
		}
		both.Wait()
	}
	mem.Free(s.a, ret)
	mem.Free(s.a, idomMem)
	s.ix = nil
	return res, nil
}

// number is the depth-first numbering (see domtree.DFS) from the roots, then
// from the class objects of what was reached, over the graph restricted
// to the objects allowed holds (nil: all). It returns the DFS parents,
// the log of the other edges, with an edge from the virtual root to each
// root, and pre (object → number, 0 = unreached), which takes the
// memory of the graph's starts: the graph's references are not read
// again (but by the GarbageHolds pass here).
func (s *scanner) number(allowed domtree.Bitset) ([]uint32, domtree.EdgeLog, []uint32) {
	n := len(s.g.Start)
	// The most telling roots first (rootRank): an object several roots
	// reach is named by the first whose walk numbers it.
	sortRoots(s.roots, s.rootKind)
	// Classes with a reached object, noted as the DFS reaches them: a
	// class object becomes a root only when no reference reached it by
	// the end of the round that found its class (strongReach's own
	// rounds find the same classes, but not when).
	used := make([]bool, len(s.classes))
	numbered := domtree.NewBitset(s.a, n)
	// The parents are written in order, and so are the semidominators
	// and the class paths' nodes that take their memory later: small
	// pages (mem.AllocSmall), which a VM's kernel takes from blocks it has
	// not handed back to the host. The log, whose memory becomes the
	// compression forest (used at random), stays in huge pages.
	parent := mem.AllocSmall[uint32](s.a, 1, n+1)
	// The log's bound: each reference once (from a reached object, or
	// with GarbageHolds from an unreached one), and an edge from the
	// virtual root to each root (class roots: at most one per class).
	log := domtree.EdgeLog(mem.Alloc[uint64](s.a, 0, len(s.g.Edges)+len(s.roots)+len(s.classes)))
	warm := s.a.WarmAhead(parent, mem.AsWords(log))
	// The first round notes its classes after it, in one pass in object
	// order: noting them as the walk reaches each object cost a cache
	// miss per object (its word), a fifth of the walk's time.
	parent, log = domtree.DFS(s.a, s.roots, &s.g, numbered, allowed, parent, log, warm)
	s.obj.noteSeen(used, numbered)
	// Rounds: the class objects of what was reached, then of what those
	// reach, until no new class is reached. Each round's classes are
	// noted after it as well, from the objects it numbered (fresh: the
	// marks it added).
	var fresh domtree.Bitset
	for {
		extra := s.classRoots(numbered, allowed, used)
		if len(extra) == 0 {
			break
		}
		if fresh == nil {
			fresh = mem.Alloc[uint64](s.a, len(numbered), len(numbered))
		}
		copy(fresh, numbered)
		parent, log = domtree.DFS(s.a, extra, &s.g, numbered, allowed, parent, log, warm)
		for i, w := range numbered {
			fresh[i] = w &^ fresh[i]
		}
		s.obj.noteSeen(used, fresh)
		s.roots = append(s.roots, extra...)
	}
	mem.Free(s.a, fresh)
	warm.Finish()
	pre := s.g.Start // numbers where numbered is set
	s.starts = make([]uint32, 0, len(s.roots))
	for _, r := range s.roots {
		log = log.Add(0, pre[r]) // every root is numbered
		s.starts = append(s.starts, pre[r])
	}
	slices.Sort(s.starts)
	if s.in.GarbageHolds {
		// What an unreachable object refers to hangs from the virtual
		// root too (the oracle's model: see Input.GarbageHolds).
		for v := range uint32(n) {
			if !numbered.Has(v) {
				for _, w := range s.g.Out(v) {
					if numbered.Has(w) {
						log = log.Add(0, pre[w])
					}
				}
			}
		}
	}
	for i, w := range numbered {
		// 0 for each object not numbered (unreached), as the rest of
		// the analysis says it.
		for w != ^uint64(0) {
			v := i*64 + bits.TrailingZeros64(^w)
			if v >= n {
				break
			}
			pre[v] = 0
			w |= w + 1 // the lowest zero bit set
		}
	}
	mem.Free(s.a, numbered)
	s.g.Start = nil
	return parent, log, pre
}

// dfsOrder is what the analysis keeps of each object once the dominators
// are computed, by DFS number.
type dfsOrder struct {
	obj      objWords // class and shallow size
	rootKind map[uint32]Root
	// starts are the DFS numbers of the roots, ascending: the numbers
	// from one up to the next are what the walk from it numbered.
	starts []uint32
}

// firstRoot is the DFS number of the root whose walk numbered a: the
// walk from each root numbers what it reaches first, in one run.
func (d *dfsOrder) firstRoot(a uint32) uint32 {
	i, found := slices.BinarySearch(d.starts, a)
	if !found {
		i--
	}
	if i < 0 {
		return 0
	}
	return d.starts[i]
}

// wordMove moves the classes, shallow sizes and root kinds to DFS
// numbers and counts the reachable and unreachable objects and bytes
// (byDFS).
type wordMove struct {
	s    *scanner
	pre  []uint32
	d    *dfsOrder
	next atomic.Int64 // the first object of the next part

	mu             sync.Mutex
	reach, unreach int64 // shallow bytes
}

// byDFSPart is how many objects a work takes at a time.
const byDFSPart = 1 << 16

// byDFS starts the move to DFS numbers (m of them): work, called on any
// number of goroutines at once, moves parts of the objects until none is
// left; finish, once every work has returned, returns the result and
// frees the words by object number (their huge pages go to the
// dominators' forest). The words by DFS number are written
// at random: in huge pages, although nothing freed then has such pages to
// give (in the small pages the references leave, the misses of the
// translation lookaside buffer cost more: bench-4g's reverse graph 0.86 s
// instead of 0.62 s, three runs each).
func (s *scanner) byDFS(pre []uint32, m int) *wordMove {
	b := &wordMove{s: s, pre: pre, d: &dfsOrder{
		obj:      objWords{w: mem.Alloc[uint32](s.a, m, m), wide: map[uint32]wideObj{}},
		rootKind: make(map[uint32]Root, len(s.rootKind)),
	}}
	b.d.obj.w[0] = 0 // the virtual root; every other number is written by work
	return b
}

// work moves parts of the objects until none is left (see byDFS).
func (b *wordMove) work() {
	from, to := &b.s.obj, &b.d.obj
	var reach, unreach int64
	var wide map[uint32]wideObj
	for {
		lo := int(b.next.Add(byDFSPart) - byDFSPart)
		if lo >= len(b.pre) {
			break
		}
		hi := min(lo+byDFSPart, len(b.pre))
		for v, a := range b.pre[lo:hi] {
			v += lo
			if a == 0 {
				unreach += from.shallow(uint32(v))
				continue
			}
			w := from.w[v]
			to.w[a] = w
			if isWide(w) {
				if wide == nil {
					wide = map[uint32]wideObj{}
				}
				wide[a] = from.wide[uint32(v)]
			}
			reach += from.shallow(uint32(v))
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.reach += reach
	b.unreach += unreach
	for a, o := range wide {
		to.wide[a] = o
	}
}

// finish returns the move's result once every work has returned.
func (b *wordMove) finish() *dfsOrder {
	s, d := b.s, b.d
	for v, t := range s.rootKind {
		if a := b.pre[v]; a != 0 {
			d.rootKind[a] = t
		}
	}
	d.starts, s.starts = s.starts, nil
	st := &s.stats
	m := len(d.obj.w)
	st.ReachableBytes += b.reach
	st.UnreachableBytes += b.unreach
	st.Reachable = m - 1
	st.Unreachable = len(b.pre) - (m - 1)
	if s.in.Paths {
		s.objByNum = objWords{w: mem.Alloc[uint32](s.ha, len(s.obj.w), len(s.obj.w)), wide: s.obj.wide}
		copy(s.objByNum.w, s.obj.w)
	}
	mem.Free(s.a, s.obj.w)
	s.obj, s.rootKind = objWords{}, nil
	return d
}

// strongReach marks the objects a strong path reaches (referents not
// followed), when some Reference has a referent; nil when none has. The
// dominator tree is then that of the graph with referents (the oracle
// counts a Reference as one more holder of its referent) restricted to
// these objects: a referent keeps no object alive, but sharing one
// with a Reference makes it no one's alone.
func (s *scanner) strongReach() domtree.Bitset {
	if len(s.weak) == 0 {
		return nil
	}
	slices.Sort(s.weak)
	weak := slices.Compact(s.weak)
	s.weak = nil
	for _, v := range weak {
		s.g.AddDeg(v, -1)
	}
	seen := domtree.NewBitset(s.a, len(s.obj.w))
	domtree.ReachShared(s.roots, &s.g, seen)
	// The class objects of reached objects are live too, and what their
	// statics reach: rounds until no new class is reached. The first
	// round looks at every object; the others at those the round before
	// reached (few: what statics hold).
	used := make([]bool, len(s.classes))
	note := func(v uint32) { s.obj.noteClass(used, v) }
	s.obj.noteSeen(used, seen)
	for {
		var extra []uint32
		for i, c := range s.classes {
			if used[i] && c.node != noNode && !seen.Has(c.node) {
				extra = append(extra, c.node)
			}
		}
		if len(extra) == 0 {
			break
		}
		domtree.Reach(extra, &s.g, seen, note)
	}
	for _, v := range weak {
		s.g.AddDeg(v, +1)
	}
	return seen
}

// classRoots are the class objects not reached yet (numbered, allowed:
// see domtree.DFS) whose class has a reached object (used, as number
// notes it): the oracle reaches them through its objects but no
// reference holds them, so they hang from the virtual root.
func (s *scanner) classRoots(numbered, allowed domtree.Bitset, used []bool) []uint32 {
	var extra []uint32
	for i, c := range s.classes {
		if used[i] && c.node != noNode && !numbered.Has(c.node) && (allowed == nil || allowed.Has(c.node)) {
			extra = append(extra, c.node)
			s.rootKind[c.node] = Root{Kind: classRootKind}
		}
	}
	return extra
}

// collect makes the arrays freed so far reusable when they are on the Go
// heap (no anonymous mappings here: s.a is nil): the collector would only
// find them once the heap doubled, so the next phase's arrays take their
// pages and peak memory is that of the largest phase rather than of
// several together. The pages stay with the process: returning them to
// the system would cost a page fault each when the next array takes them.
func (s *scanner) collect() {
	if s.a == nil {
		runtime.GC()
	}
}
