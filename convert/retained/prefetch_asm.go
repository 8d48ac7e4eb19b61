//go:build amd64 || arm64

package retained

// prefetchWords asks the processor to bring base[i] into its cache, for
// each i in idx above above, without waiting for it: a prefetch
// instruction retires at once, where a load that misses holds up the
// instructions after it once the processor's window of pending ones is
// full. A walk that reads words at random and knows some of its next
// numbers a while ahead overlaps their misses with the work in between.
// It changes nothing the program can see and reads no memory (a
// prefetch of an address past the array only wastes the fetch).
// prefetch_amd64.s, prefetch_arm64.s; prefetch_other.go elsewhere.
//
//go:noescape
func prefetchWords(base *uint64, idx []uint32, above uint32)

// prefetchLinks is prefetchWords one step further: for each i in idx
// above above, it reads base[i] (best already in the cache) and
// prefetches base[uint32(base[i])], the word its low half names. Every
// such i must index base.
//
//go:noescape
func prefetchLinks(base *uint64, idx []uint32, above uint32)
