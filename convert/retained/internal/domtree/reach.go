package domtree

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Reach marks in seen what the roots reach, without changing the graph.
// When marked is set, it is called with each node Reach marks.
func Reach(roots []uint32, g *Graph, seen Bitset, marked func(uint32)) {
	var stack []uint32
	for _, r := range roots {
		if seen.Has(r) {
			continue
		}
		seen.Set(r)
		stack = append(stack[:0], r)
		for len(stack) > 0 {
			v := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if marked != nil {
				marked(v)
			}
			for _, w := range g.Out(v) {
				if !seen.Has(w) {
					seen.Set(w)
					stack = append(stack, w)
				}
			}
		}
	}
}

// ReachShared is Reach on every core: each walker marks with an atomic
// OR (the walker whose OR set the bit goes on from the object), so the
// walks share one bitmap and no object is taken twice. A walk is a chain
// of cache misses (where an object's references are, then the references);
// several walkers have several misses on the way at once. A walker whose
// stack runs dry takes half of another's: the objects waiting at the
// bottom of its stack, which lead to the most.
func ReachShared(roots []uint32, g *Graph, seen Bitset) {
	workers := runtime.GOMAXPROCS(0)
	if workers < 2 || len(seen) < 1<<12 {
		Reach(roots, g, seen, nil)
		return
	}
	var start []uint32
	for _, r := range roots {
		if !seen.Has(r) {
			seen.Set(r)
			start = append(start, r)
		}
	}
	p := &walkPool{workers: workers, batches: [][]uint32{start}}
	p.more = sync.NewCond(&p.mu)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() { p.walk(g, seen) })
	}
	wg.Wait()
}

// walkPool is the work the walkers share: stacks of objects to go on from.
type walkPool struct {
	mu      sync.Mutex
	more    *sync.Cond
	batches [][]uint32
	workers int
	done    bool
	// Walkers waiting for a batch; changed under mu, read without it by
	// the walkers deciding whether to hand work over.
	hungry atomic.Int32
}

// shareAbove is how deep a walker's stack must be before it hands half
// of it to a hungry walker.
const shareAbove = 64

func (p *walkPool) walk(g *Graph, seen Bitset) {
	var stack []uint32
	for {
		if len(stack) == 0 {
			var ok bool
			if stack, ok = p.take(); !ok {
				return
			}
		}
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, w := range g.Out(v) {
			// Two walkers may both find w unmarked and both walk it:
			// the second walk only finds marks already set. That race
			// is rare; asking the OR for the word it replaced, to
			// exclude it, makes it a compare-and-swap loop instead of
			// one locked OR, a tenth of the walk's time.
			word, bit := &seen[w>>6], uint64(1)<<(w&63)
			if atomic.LoadUint64(word)&bit == 0 {
				atomic.OrUint64(word, bit)
				stack = append(stack, w)
			}
		}
		if len(stack) > shareAbove && p.hungry.Load() > 0 {
			stack = p.give(stack)
		}
	}
}

// give hands the bottom half of stack to the pool and returns the rest.
func (p *walkPool) give(stack []uint32) []uint32 {
	half := len(stack) / 2
	batch := append([]uint32(nil), stack[:half]...)
	rest := stack[:copy(stack, stack[half:])]
	p.mu.Lock()
	p.batches = append(p.batches, batch)
	p.mu.Unlock()
	p.more.Signal()
	return rest
}

// take waits for a batch, which becomes the caller's stack; false when
// every walker is waiting and no batch is left: the walk is done.
func (p *walkPool) take() ([]uint32, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.batches) == 0 {
		if p.done || int(p.hungry.Load()) == p.workers-1 {
			p.done = true
			p.more.Broadcast()
			return nil, false
		}
		p.hungry.Add(1)
		p.more.Wait()
		p.hungry.Add(-1)
	}
	b := p.batches[len(p.batches)-1]
	p.batches = p.batches[:len(p.batches)-1]
	return b, true
}
