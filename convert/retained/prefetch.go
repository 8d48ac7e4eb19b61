package retained

// prefetchWords prefetches base[i] for each i in idx above above (see
// prefetchIndexed).
func prefetchWords(base *uint64, idx []uint32, above uint32) {
	prefetchIndexed(base, idx, above, false)
}

// prefetchLinks prefetches, for each i in idx above above, the word that
// base[i]'s low half names; every such i must index base.
func prefetchLinks(base *uint64, idx []uint32, above uint32) {
	prefetchIndexed(base, idx, above, true)
}
