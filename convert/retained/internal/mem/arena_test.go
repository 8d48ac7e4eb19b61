package mem

import (
	"testing"
	"unsafe"
)

// TestReuse: an anonymous mapping is handed over as is (same memory, not
// zeroed: the caller writes it whole); a spilled file's mapping, an
// array too small, or one from the heap gives a fresh zeroed array.
func TestReuse(t *testing.T) {
	if !CanSpill {
		t.Skip("no mappings on this platform")
	}
	same := func(a, b unsafe.Pointer) bool { return a == b }

	mem := NewMemArena()
	defer mem.Close()
	old := Alloc[uint32](mem, 1000, 1000)
	for i := range old {
		old[i] = 7
	}
	got := Reuse[int64](mem, old, 500)
	if len(got) != 500 || !same(unsafe.Pointer(&got[0]), unsafe.Pointer(&old[0])) {
		t.Fatalf("anonymous mapping not reused (len %d)", len(got))
	}
	if got[0] != 7<<32|7 {
		t.Errorf("reused memory was changed: %#x", got[0])
	}
	Free(mem, got) // unmaps the whole mapping: nothing is left to close
	if len(mem.maps) != 0 {
		t.Errorf("%d mappings left after freeing the reused array", len(mem.maps))
	}

	small := Alloc[uint32](mem, 10, 10)
	small[0] = 7
	bigger := Reuse[uint32](mem, small, 11)
	if len(bigger) != 11 || bigger[0] != 0 || len(mem.maps) != 1 {
		t.Errorf("too small: len %d, [0] %d, %d mappings (want a fresh zeroed array, the old one freed)", len(bigger), bigger[0], len(mem.maps))
	}

	files := NewArena(t.TempDir())
	defer files.Close()
	f := Alloc[uint32](files, 100, 100)
	f[0] = 7
	g := Reuse[uint32](files, f, 100)
	if g[0] != 0 {
		t.Errorf("a spilled array was reused: [0] = %d", g[0])
	}

	h := make([]uint32, 10)
	h[0] = 7
	if r := Reuse[uint32]((*Arena)(nil), h, 10); r[0] != 0 {
		t.Errorf("a heap array was reused: [0] = %d", r[0])
	}
}

// TestWarmer: faulting pages in ahead of writers leaves what they wrote
// as it was, each array followed at its own pace, and the Warmer stops
// when told, wherever it is.
func TestWarmer(t *testing.T) {
	mem := NewMemArena()
	defer mem.Close()
	const n = 3 << 20
	a := Alloc[uint32](mem, 0, n)
	b := Alloc[uint32](mem, 0, n+1)
	w := mem.WarmAhead(a, b)
	for i := range n - 1000 {
		a = append(a, uint32(i))
		if i%3 == 0 {
			b = append(b, ^uint32(i))
		}
		if i&0xffff == 0 {
			w.Wrote(0, len(a))
			w.Wrote(1, len(b))
		}
	}
	w.Finish()
	for i := range a {
		if a[i] != uint32(i) {
			t.Fatalf("element %d of a changed: %d", i, a[i])
		}
	}
	for i := range b {
		if b[i] != ^uint32(3*i) {
			t.Fatalf("element %d of b changed: %d", i, b[i])
		}
	}
	if c := a[:cap(a)]; c[n-1] != 0 {
		t.Errorf("an element never written is %d", c[n-1])
	}
	if c := b[:cap(b)]; c[n] != 0 {
		t.Errorf("an element never written is %d", c[n])
	}
	whole := Alloc[uint32](mem, n, n)
	whole[7] = 7
	populateWords(whole)
	if whole[7] != 7 || whole[8] != 0 {
		t.Errorf("a faulted-in array changed: %d %d", whole[7], whole[8])
	}
	if (*Arena)(nil).WarmAhead(a) != nil {
		t.Error("the heap has nothing to warm")
	}
}
