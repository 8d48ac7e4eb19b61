// Package mem hands out the retained graph's big arrays (a few per
// object, two per reference) and keeps their pages in hand.
//
// An arena is anonymous memory (NewMemArena; the Go heap, as make would
// do, where there is no mmap) or, when the graph spills (NewArena), files
// in a temporary directory mapped into memory (shared, read-write; on
// unix): the kernel writes their pages back to the files and drops them
// when memory runs short, so a graph larger than memory is worked on from
// disk instead of failing. The files are unlinked as soon as they are
// mapped, so nothing is left behind when the process dies; the directory
// is removed by Close.
//
// Mapped arrays are not Go heap: neither the runtime's memory limit nor
// the converter's heap watch (Options.MaxMemory) counts them.
//
// Beside the arena: arrays used at random kept in memory while a spilling
// arena has room for them (hot.go), pages faulted in ahead of a serial
// walk (warm.go), and prefetch hints and a plain shared store written in
// assembly (prefetch*.go).
package mem

import (
	"fmt"
	"os"
	"sync"
	"time"
	"unsafe"
)

// Arena hands out arrays from the heap or, when spilling, from mapped
// files. A nil *Arena is the heap. Safe for concurrent use.
type Arena struct {
	parent string // where the spill directory is made ("" = os.TempDir())
	anon   bool   // memory, not files: anonymous mappings (see NewMemArena)

	mu     sync.Mutex
	dir    string              // the spill directory, once made
	maps   map[uintptr]mapping // live mappings by base address
	mapped int64               // bytes mapped in all
	peak   int64               // most bytes mapped at once
	live   int64
	err    error // first mapping failure: arrays then come from the heap

	hot hotRoom // a spilling arena's allowance for arrays used at random (AllocHot)

	stop chan struct{} // ends the flusher
	done chan struct{}
	// Under a cgroup: the dirty pages charged to it (cgroupDirty), and
	// below how many the flusher leaves them be; nil: it always flushes.
	// Set with mu held (the flusher runs already).
	dirty      func() int64
	flushAbove int64
}

// mapping is one mapped file.
type mapping struct {
	b   []byte
	f   *os.File
	hot bool // anonymous memory of a spilling Arena (AllocHot)
}

// flushEvery is how often the flusher starts writing dirty pages back.
const flushEvery = 50 * time.Millisecond

// NewArena returns an arena that spills to a directory made in parent,
// or nil (the heap) when this platform cannot map files.
func NewArena(parent string) *Arena {
	if !CanSpill {
		return nil
	}
	a := &Arena{parent: parent, maps: map[uintptr]mapping{}, stop: make(chan struct{}), done: make(chan struct{})}
	go a.flusher()
	return a
}

// flusher starts the writeback of every mapped file's dirty pages now
// and then, so that at most what the program dirties in flushEvery (and
// what the disk has not written yet) is dirty at once: the kernel can
// free pages under writeback or written when memory (a cgroup's limit)
// runs short, not dirty ones. Under a cgroup it does so only once the
// group's dirty pages pass flushAbove: each writeback write-protects the
// pages it cleans, which costs the other cores a TLB flush and the
// program a fault at its next write to them, and a page the program
// goes on writing would be written back again and again (bench-4g in
// 1 GiB spent 13 s of 29 s in the kernel; 9-10 s of 27-28 s with a
// sixteenth of the limit left dirty).
func (a *Arena) flusher() {
	defer close(a.done)
	t := time.NewTicker(flushEvery)
	defer t.Stop()
	var files []*os.File
	for {
		select {
		case <-a.stop:
			return
		case <-t.C:
		}
		a.mu.Lock()
		dirty, above := a.dirty, a.flushAbove
		a.mu.Unlock()
		if dirty != nil && dirty() < above {
			continue
		}
		files = files[:0]
		a.mu.Lock()
		for _, m := range a.maps {
			if m.f != nil {
				files = append(files, m.f)
			}
		}
		// Writeback runs under the lock: free must not close a file
		// that is being flushed.
		for _, f := range files {
			startWriteback(f)
		}
		a.mu.Unlock()
	}
}

// NewMemArena returns an arena of anonymous mappings, or nil (the heap)
// where there are none. Under the budget the graph's arrays come from it
// rather than from the Go heap: an array freed is unmapped at once, so
// resident memory is that of the live arrays (the collector would keep
// freed arrays until the heap doubled, and their pages after), and the
// kernel is asked for huge pages, which spare most TLB misses of the
// random walks over them.
func NewMemArena() *Arena {
	if !CanSpill {
		return nil
	}
	return &Arena{anon: true, maps: map[uintptr]mapping{}}
}

// grab returns size zeroed bytes, mapped from a file when it can.
func (a *Arena) grab(size int, huge bool) []byte {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.anon {
		b, err := mapAnon(size, huge)
		if err != nil {
			return nil // the heap, then
		}
		a.maps[uintptr(unsafe.Pointer(unsafe.SliceData(b)))] = mapping{b: b}
		return b // not counted: Spill reports files only
	}
	if a.err == nil && a.dir == "" {
		a.dir, a.err = os.MkdirTemp(a.parent, "hprof2pprof-retained-")
	}
	if a.err != nil {
		return nil
	}
	b, f, err := mapFile(a.dir, size)
	if err != nil {
		a.err = err
		return nil
	}
	a.maps[uintptr(unsafe.Pointer(unsafe.SliceData(b)))] = mapping{b: b, f: f}
	a.mapped += int64(size)
	a.live += int64(size)
	a.peak = max(a.peak, a.live)
	return b
}

// Elem are the element types the arena hands out.
type Elem interface {
	~uint32 | ~int32 | ~int64 | ~uint64 | ~uint8 | ~bool
}

// Alloc returns a zeroed slice of length n and capacity c (c >= n) from
// a's files, or from the heap when a is nil or mapping fails.
func Alloc[T Elem](a *Arena, n, c int) []T {
	return allocPages[T](a, n, c, true)
}

// AllocZeroed is Alloc (capacity n) for arrays whose elements are read
// before they are written, such as bitsets that bits are ORed into: it
// writes them first. A fresh page that is read first is mapped to the
// kernel's zero page, and the write after it faults a second time and
// flushes the other cores' translation buffers, an interrupt to each,
// dear in a virtual machine: bench-4g's first pass spent 0.3 s of CPU in
// those faults for its ID bitmaps.
func AllocZeroed[T Elem](a *Arena, n int) []T {
	s := Alloc[T](a, n, n)
	clear(s)
	return s
}

// AllocSmall is Alloc in small pages. For three kinds of array:
//   - one of which only parts are touched (the references, whose room
//     per record is a bound): an untouched stretch between the parts
//     stays unmapped memory;
//   - one mapped just after the references are freed: the kernel takes a
//     small page from those just freed, while a huge page needs 2 MB of
//     contiguous free memory, which such pages seldom are, and so is
//     fresh memory. Fresh memory costs far more than pages taken again
//     where the host backs a VM's memory only when it is first written
//     (1 GB in small pages: 1.96 s fresh, 0.40 s the second time; in huge
//     pages after small ones 1.90 s; docs/benchmarks.md);
//   - one written in order, and read in order or near it, so that the
//     translation buffer misses of small pages cost little (the DFS
//     parents): a VM's kernel hands free memory back to its host in
//     blocks of 2 MB and up, so the free blocks under 2 MB, where small
//     pages come from first, are still backed, where a huge page after
//     idle is mostly fresh to the host (bench-1g after idle: numbering
//     0.44 -> 0.32 s).
func AllocSmall[T Elem](a *Arena, n, c int) []T {
	return allocPages[T](a, n, c, false)
}

func allocPages[T Elem](a *Arena, n, c int, huge bool) []T {
	var zero T
	if a == nil || c == 0 {
		return make([]T, n, c)
	}
	b := a.grab(c*int(unsafe.Sizeof(zero)), huge)
	if b == nil {
		return make([]T, n, c)
	}
	return asArray[T](b, n, c)
}

// asArray is mapped memory b as an array of length n and capacity c.
func asArray[T Elem](b []byte, n, c int) []T {
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), c)[:n]
}

// Reuse hands the memory of old, an array the caller is done with, over
// as an array of n T, without zeroing it: the caller writes every element
// before it reads one. Fresh anonymous memory costs a fault and the
// kernel's zeroing per page (a tenth of a big graph's analysis, much of
// it on the serial walks); an array whose every element is written
// anyway needs neither. Only anonymous mappings are reused: a spilled array's
// pages may be on disk, and reading them back to overwrite them would
// cost more than fresh ones. Otherwise (too small, the heap, a file) old
// is freed and a zeroed array returned. The part of old beyond n stays
// mapped until the result is freed. old must not be used afterwards.
func Reuse[T, U Elem](a *Arena, old []U, n int) []T {
	var t T
	var u U
	if a != nil && a.anon && cap(old)*int(unsafe.Sizeof(u)) >= n*int(unsafe.Sizeof(t)) && n > 0 {
		base := uintptr(unsafe.Pointer(unsafe.SliceData(old)))
		a.mu.Lock()
		m, ok := a.maps[base]
		a.mu.Unlock()
		if ok && m.f == nil {
			return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(old))), n)
		}
	}
	Free(a, old)
	return Alloc[T](a, n, n)
}

// Free unmaps s if a mapped it; heap slices are left to the collector.
// s must not be used afterwards.
func Free[T Elem](a *Arena, s []T) {
	if a == nil || cap(s) == 0 {
		return
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(s)))
	a.mu.Lock()
	m, ok := a.maps[base]
	if ok {
		delete(a.maps, base)
		if m.f != nil { // a file: counted in live
			a.live -= int64(len(m.b))
		}
		if m.hot {
			a.hot.live -= int64(len(m.b))
		}
		unmap(m.b, m.f)
	}
	a.mu.Unlock()
}

// Close unmaps what is still mapped and removes the spill directory.
func (a *Arena) Close() error {
	if a == nil {
		return nil
	}
	if !a.anon {
		close(a.stop)
		<-a.done
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for k, m := range a.maps {
		unmap(m.b, m.f)
		delete(a.maps, k)
	}
	a.live, a.hot.live = 0, 0
	if a.dir == "" {
		return nil
	}
	if err := os.RemoveAll(a.dir); err != nil {
		return fmt.Errorf("retained: removing the spill directory: %w", err)
	}
	return nil
}

// Anon reports whether a is anonymous memory (NewMemArena), not a
// spilling arena; false for nil (the heap).
func (a *Arena) Anon() bool { return a != nil && a.anon }

// Stats is what a spilling arena mapped, read by Stats.
type Stats struct {
	Dir      string // the spill directory ("" until the first file)
	Mapped   int64  // bytes of files mapped in all
	Peak     int64  // most bytes of files mapped at once
	InMemory int64  // most bytes of arrays used at random kept in memory at once (AllocHot)
	Err      error  // the first mapping failure (the arrays then came from the heap)
}

// Stats reports what a has mapped so far.
func (a *Arena) Stats() Stats {
	a.mu.Lock()
	defer a.mu.Unlock()
	return Stats{Dir: a.dir, Mapped: a.mapped, Peak: a.peak, InMemory: a.hot.peak, Err: a.err}
}

// FlushAbove makes a spilling arena's flusher start writebacks only once
// dirty, the dirty pages charged to the process's memory cgroup, reaches
// above bytes (see flusher); nil dirty: always.
func (a *Arena) FlushAbove(dirty func() int64, above int64) {
	a.mu.Lock()
	a.dirty, a.flushAbove = dirty, above
	a.mu.Unlock()
}
