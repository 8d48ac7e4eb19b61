//go:build !amd64 && !arm64

package retained

// prefetchIndexed does nothing where no prefetch instruction is written
// for the platform (see prefetch_asm.go).
func prefetchIndexed(base *uint64, idx []uint32, above uint32, link bool) {}
