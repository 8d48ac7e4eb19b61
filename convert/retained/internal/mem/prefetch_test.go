package mem

import (
	"slices"
	"testing"
)

// TestPrefetch: the prefetch hints read only the words they are told
// to and change nothing, whatever the indices and the bound.
func TestPrefetch(t *testing.T) {
	base := []uint64{3, 0, 1<<32 | 2, 7, 1 << 40}
	want := slices.Clone(base)
	idx := []uint32{0, 4, 2, 3, 1, 4}
	for _, above := range []uint32{0, 1, 3, 4, ^uint32(0)} {
		PrefetchWords(&base[0], idx, above)
		PrefetchLinks(&base[0], idx, above)
		PrefetchWords(&base[0], nil, above)
		PrefetchLinks(&base[0], idx[:0], above)
		// Indices past the array: a prefetch does not fault.
		PrefetchWords(&base[0], []uint32{1 << 30, ^uint32(0)}, 0)
	}
	if !slices.Equal(base, want) {
		t.Fatalf("prefetch changed the words: %v, want %v", base, want)
	}
}
