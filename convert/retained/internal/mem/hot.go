package mem

import (
	"runtime/metrics"
	"unsafe"
)

// A spilling arena's arrays are files that the kernel writes back and
// drops as memory runs short, and reads again when they are touched. That
// suits an array a phase goes through in order: the pages it is done
// with leave, the next ones come in. An array a phase reads and writes at
// random (semi-NCA's compression forest: each step of an evaluation
// lands on another page) is written back and read again page by page,
// and under a cgroup's limit the flusher rewrites its pages as fast as
// the walk dirties them: bench-4g's dominators took 23 s in a 1 GiB
// cgroup, 5 s with the forest in memory. So such arrays are taken from
// anonymous memory while they fit (AllocHot), and from files when not.

// hotRoom is what a spilling arena may keep in anonymous memory.
type hotRoom struct {
	limit int64        // bytes; 0: nothing (every array is a file)
	held  func() int64 // memory beside the hot arrays that counts against limit (nil: none)
	live  int64        // bytes of hot arrays mapped now
	peak  int64        // most bytes of hot arrays mapped at once
}

// fits reports whether size more bytes of hot arrays stay within the
// limit.
func (h *hotRoom) fits(size int64) bool {
	if h.limit <= 0 {
		return false
	}
	used := h.live + size
	if h.held != nil {
		used += h.held()
	}
	return used <= h.limit
}

// AllocHot is Alloc for an array its phases use at random: in a
// spilling arena, anonymous memory when it fits in the arena's hotRoom,
// else a file like any other array.
func AllocHot[T Elem](a *Arena, n, c int) []T {
	var zero T
	if a == nil || a.anon || c == 0 {
		return Alloc[T](a, n, c)
	}
	if b := a.grabHot(c * int(unsafe.Sizeof(zero))); b != nil {
		return asArray[T](b, n, c)
	}
	return Alloc[T](a, n, c)
}

// ReuseHot is Reuse for an array its phase uses at random: in memory it
// takes old's pages (see Reuse); in a spilling arena old is freed and the
// array comes from AllocHot, anonymous memory while it fits, where Reuse
// would make it a file. Like Reuse, it does not zero what it hands over.
func ReuseHot[T, U Elem](a *Arena, old []U, n int) []T {
	if a == nil || a.anon {
		return Reuse[T](a, old, n)
	}
	Free(a, old)
	return AllocHot[T](a, n, n)
}

// grabHot returns size zeroed bytes of anonymous memory for AllocHot, or
// nil when they do not fit in the hot room or cannot be mapped. Like
// grab, it checks, maps and counts under the lock: two arrays cannot
// both take the last of the room.
func (a *Arena) grabHot(size int) []byte {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.hot.fits(int64(size)) {
		return nil
	}
	b, err := mapAnon(size, true)
	if err != nil {
		return nil
	}
	a.maps[uintptr(unsafe.Pointer(unsafe.SliceData(b)))] = mapping{b: b, hot: true}
	a.hot.live += int64(size)
	a.hot.peak = max(a.hot.peak, a.hot.live)
	return b
}

// goHeld is the memory the Go runtime holds from the system: its heap,
// stacks and metadata, less what it has given back.
func goHeld() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64()) - int64(s[1].Value.Uint64())
}

// hotRoomFor is a spilling arena's room for hot arrays, given the
// memory budget (negative: always spill, so none), the cgroup's limit (0:
// none) and whether the budget is the user's own (given). Under a cgroup
// the hot arrays and the Go runtime's memory together keep to three
// quarters of the limit: neither can be paged out without swap, and the
// last quarter holds the page cache the files are worked through. That
// is more than the quarter of the limit that convert/retained holds the
// whole graph's estimate against, and more than a budget the user gave,
// which the hot arrays keep to, as they do elsewhere.
func hotRoomFor(budget, cg int64, given bool) hotRoom {
	switch {
	case budget < 0:
		return hotRoom{}
	case cg > 0 && !given:
		return hotRoom{limit: cg / 4 * 3, held: goHeld}
	default:
		return hotRoom{limit: budget}
	}
}

// SetHotRoom sets a spilling arena's room for arrays used at random
// (AllocHot) from the memory budget, the cgroup's limit and whether the
// budget is the user's own (see hotRoomFor).
func (a *Arena) SetHotRoom(budget, cg int64, given bool) {
	a.mu.Lock()
	a.hot = hotRoomFor(budget, cg, given)
	a.mu.Unlock()
}
