//go:build !amd64 && !arm64

package retained

// Without a prefetch instruction written for the platform, the hints of
// prefetch_asm.go do nothing.

func prefetchWords(base *uint64, idx []uint32, above uint32) {}

func prefetchLinks(base *uint64, idx []uint32, above uint32) {}
