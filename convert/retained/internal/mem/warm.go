package mem

import (
	"sync/atomic"
	"time"
	"unsafe"
)

// Warmer faults pages of arrays in on another core, a window ahead of a
// walk that writes them from the start (the DFS numbering's parents and
// its log of edges): a fresh page costs a fault and the kernel's zeroing,
// on the serial walk's critical path when the walk touches it first. Only
// for anonymous memory: a spilled file's pages would be dirtied for
// nothing.
type Warmer struct {
	arrays   [][]uint32
	progress []atomic.Int64 // by array: elements the walk has written
	stop     chan struct{}
	done     chan struct{}
}

// warmWindow is how far ahead of the walk pages are faulted in, and
// warmChunk how many at a time (elements of 4 bytes: 16 MB and 2 MB).
const (
	warmWindow = 4 << 20
	warmChunk  = 512 << 10
)

// canWarm reports whether faulting a's pages in gains anything: not
// without an arena, for spilled files, or without populate.
func (a *Arena) canWarm() bool { return a != nil && a.anon && canPopulate }

// AsWords is s's memory as 32-bit words, for WarmAhead: empty, with
// twice s's capacity.
func AsWords(s []uint64) []uint32 {
	return unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(s))), 2*cap(s))[:0]
}

func populateWords(s []uint32) {
	populate(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*4))
}

// WarmAhead starts a Warmer over arrays, or returns nil where there is
// nothing to gain (CanWarm).
func (a *Arena) WarmAhead(arrays ...[]uint32) *Warmer {
	if !a.canWarm() {
		return nil
	}
	w := &Warmer{arrays: arrays, progress: make([]atomic.Int64, len(arrays)), stop: make(chan struct{}), done: make(chan struct{})}
	go w.run()
	return w
}

func (w *Warmer) run() {
	defer close(w.done)
	pos := make([]int, len(w.arrays))
	for {
		busy, left := false, false
		for i, s := range w.arrays {
			limit := cap(s)
			if pos[i] >= limit {
				continue
			}
			left = true
			if ahead := int(w.progress[i].Load()) + warmWindow; pos[i] < ahead {
				end := min(pos[i]+warmChunk, limit)
				populateWords(s[pos[i]:end:end])
				pos[i] = end
				busy = true
			}
		}
		if !left {
			return
		}
		if busy {
			continue
		}
		select {
		case <-w.stop:
			return
		case <-time.After(time.Millisecond):
		}
	}
}

// Wrote tells the Warmer how far the walk has written array i.
func (w *Warmer) Wrote(i, n int) {
	if w != nil {
		w.progress[i].Store(int64(n))
	}
}

// Finish stops the Warmer and waits for it.
func (w *Warmer) Finish() {
	if w != nil {
		close(w.stop)
		<-w.done
	}
}
