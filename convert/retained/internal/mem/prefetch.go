package mem

// PrefetchWords prefetches base[i] for each i in idx above above (see
// prefetchIndexed).
func PrefetchWords(base *uint64, idx []uint32, above uint32) {
	prefetchIndexed(base, idx, above, false)
}

// PrefetchLinks prefetches, for each i in idx above above, the word that
// base[i]'s low half names; every such i must index base.
func PrefetchLinks(base *uint64, idx []uint32, above uint32) {
	prefetchIndexed(base, idx, above, true)
}
