//go:build !amd64 && !arm64

package mem

// prefetchIndexed does nothing where no prefetch instruction is written
// for the platform (see prefetch_asm.go).
func prefetchIndexed(base *uint64, idx []uint32, above uint32, link bool) {}

// CanStoreShared: no StoreShared is written for the platform, so the
// dominators stay on one core.
const CanStoreShared = false

func StoreShared(p *uint64, x uint64) { *p = x }
