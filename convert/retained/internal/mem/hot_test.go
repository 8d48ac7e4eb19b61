package mem

import (
	"testing"
	"unsafe"
)

// TestAllocHot: in a spilling arena an array used at random is anonymous
// memory while it fits in the room (no file is mapped for it), a file
// once it does not; freeing gives the room back. A forced spill keeps
// none in memory, and a memory arena is not concerned.
func TestAllocHot(t *testing.T) {
	if !CanSpill {
		t.Skip("no mappings on this platform")
	}
	a := NewArena(t.TempDir())
	defer a.Close()
	a.hot = hotRoom{limit: 1 << 20}

	in := AllocHot[uint64](a, 100_000, 100_000) // 800 KB: fits
	if a.mapped != 0 || a.hot.live != 800_000 {
		t.Fatalf("first array: %d bytes from files, %d hot (want 0 and 800000)", a.mapped, a.hot.live)
	}
	in[99_999] = 7                               // writable, whole
	out := AllocHot[uint64](a, 100_000, 100_000) // 800 KB more: over the room
	if a.mapped != 800_000 || a.hot.live != 800_000 {
		t.Fatalf("second array: %d bytes from files, %d hot (want 800000 each)", a.mapped, a.hot.live)
	}
	Free(a, in)
	if a.hot.live != 0 || a.hot.peak != 800_000 {
		t.Errorf("after free: %d hot, peak %d (want 0, 800000)", a.hot.live, a.hot.peak)
	}
	again := AllocHot[uint32](a, 10, 200_000) // the room is back
	if a.hot.live != 800_000 || len(again) != 10 || cap(again) != 200_000 {
		t.Errorf("after the room came back: %d hot, len %d cap %d", a.hot.live, len(again), cap(again))
	}
	Free(a, out)
	Free(a, again)

	// held counts against the limit beside the hot arrays.
	a.hot = hotRoom{limit: 1 << 20, held: func() int64 { return 900_000 }}
	before := a.mapped
	AllocHot[uint64](a, 100_000, 100_000)
	if a.mapped != before+800_000 || a.hot.live != 0 {
		t.Errorf("with 900000 bytes held: %d more from files, %d hot (want 800000 and 0)", a.mapped-before, a.hot.live)
	}

	mem := NewMemArena()
	defer mem.Close()
	m := AllocHot[uint32](mem, 10, 10)
	if _, ok := mem.maps[uintptr(unsafe.Pointer(&m[0]))]; !ok || mem.hot.live != 0 {
		t.Errorf("memory arena: mapped %v, hot %d", ok, mem.hot.live)
	}
}

// TestHotRoomFor: none when spilling is forced; three quarters of a
// cgroup's limit, the Go runtime's memory counted, unless the user gave
// the budget; else the budget.
func TestHotRoomFor(t *testing.T) {
	if h := hotRoomFor(-1, 1<<30, false); h.fits(1) {
		t.Errorf("forced spill: room for hot arrays: %+v", h)
	}
	h := hotRoomFor(256<<20, 1<<30, false)
	if h.limit != 768<<20 || h.held == nil || h.held() <= 0 {
		t.Errorf("cgroup of 1 GiB: limit %d, held set %v", h.limit, h.held != nil)
	}
	if h.fits(768 << 20) {
		t.Error("the whole limit fits although the runtime holds memory")
	}
	if h := hotRoomFor(300<<20, 0, false); h.limit != 300<<20 || h.held != nil || !h.fits(300<<20) || h.fits(300<<20+1) {
		t.Errorf("no cgroup, budget 300 MiB: %+v", h)
	}
	if h := hotRoomFor(100<<20, 1<<30, true); h.limit != 100<<20 || h.held != nil {
		t.Errorf("cgroup of 1 GiB, the user's budget of 100 MiB: %+v", h)
	}
}
