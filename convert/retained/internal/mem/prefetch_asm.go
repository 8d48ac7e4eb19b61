//go:build amd64 || arm64

package mem

// prefetchIndexed asks the processor to bring base[i] into its cache,
// for each i in idx above above, without waiting for it; with link, it
// reads base[i] (best already in the cache) and fetches the word its low
// half names instead, base[uint32(base[i])]. A prefetch instruction
// retires at once, where a load that misses holds up the instructions
// after it once the processor's window of pending ones is full: a walk
// that reads words at random and knows some of its next numbers a while
// ahead overlaps their misses with the work in between. It changes
// nothing the program can see; a prefetch past the array only wastes
// the fetch, but with link every such i must index base.
// prefetch_amd64.s, prefetch_arm64.s; prefetch_other.go elsewhere.
//
//go:noescape
func prefetchIndexed(base *uint64, idx []uint32, above uint32, link bool)

// CanStoreShared: StoreShared is one store instruction here.
const CanStoreShared = true

// StoreShared writes x to *p in one store instruction, which another
// goroutine may read at the same time (see domtree's semiEval.shared): a plain
// store, where sync/atomic's would wait for every earlier load and
// store, cache misses included. prefetch_amd64.s, prefetch_arm64.s.
//
//go:noescape
func StoreShared(p *uint64, x uint64)
