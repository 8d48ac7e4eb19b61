package heapdump

import (
	"fmt"

	"github.com/hprof2pprof/hprof2pprof/convert/heapsize"
	"github.com/hprof2pprof/hprof2pprof/convert/hprof"
)

// Key groups the objects of a heap dump: by class (primitive arrays
// by element type), allocation trace and Android heap.
type Key struct {
	Class uint64
	Prim  hprof.BasicType
	Heap  HeapIndex
	Trace uint32
}

// Acc counts the objects of one key. Array sizes depend on the size
// model, which may only be known at the end of the dump, so arrays are
// summed in a form any model can size (heapsize.ArraySums).
type Acc struct {
	Count   int64
	Arrays  heapsize.ArraySums
	IsArray bool
	// thread caches whether the class is java.lang.Thread or a subclass
	// (threadYes/threadNo), once its class chain is known; the streaming
	// path asks for every instance.
	thread int8
}

const (
	threadUnknown int8 = iota
	threadYes
	threadNo
)

// Agg counts the objects of one heap dump, or of the part of it one
// worker read. It is the per-object hot path, so it avoids hashing
// composite keys: objects whose allocation trace names no frames (every
// modern heap dump) are keyed by class ID alone, with a one-entry cache
// for runs of the same class; primitive arrays by element type.
type Agg struct {
	idSize     int
	byClass    *classTable
	byTrace    map[Key]*Acc // objects whose trace names frames (hprof agent dumps)
	prims      [16]*Acc     // primitive arrays without such a trace, by element type
	lastClass  uint64
	lastAcc    *Acc
	hasFrames  func(serial uint32) bool
	lastTrace  uint32
	lastFrames bool
	// heap is the Android heap objects are in now (0: none, every other
	// writer); heaps, set only where heaps are tracked, numbers them.
	heap  HeapIndex
	heaps *Heaps
}

// NewAgg starts counting objects of a dump with IDs of idSize bytes.
func NewAgg(idSize int, hasFrames func(uint32) bool) *Agg {
	return &Agg{
		idSize:    idSize,
		byClass:   newClassTable(),
		byTrace:   map[Key]*Acc{},
		hasFrames: hasFrames,
	}
}

// traced reports whether an allocation trace serial names frames.
// It is asked for every object: the answer for the last serial is kept,
// and the function is small enough to be inlined.
func (a *Agg) traced(serial uint32) bool {
	if serial != a.lastTrace {
		a.lastTrace, a.lastFrames = serial, serial != 0 && a.hasFrames(serial)
	}
	return a.lastFrames
}

func (a *Agg) class(id uint64, trace uint32) *Acc {
	if a.heap != 0 {
		return a.keyed(Key{Class: id, Trace: a.frameTrace(trace), Heap: a.heap})
	}
	if a.traced(trace) {
		return a.keyed(Key{Class: id, Trace: trace})
	}
	if id == a.lastClass && a.lastAcc != nil {
		return a.lastAcc
	}
	acc := a.byClass.get(id)
	a.lastClass, a.lastAcc = id, acc
	return acc
}

func (a *Agg) keyed(k Key) *Acc {
	acc := a.byTrace[k]
	if acc == nil {
		acc = &Acc{}
		a.byTrace[k] = acc
	}
	return acc
}

// instance counts an INSTANCE DUMP.
func (a *Agg) instance(class uint64, trace uint32) *Acc {
	acc := a.class(class, trace)
	acc.Count++
	return acc
}

// objArray counts an OBJECT ARRAY DUMP of n elements.
func (a *Agg) objArray(class uint64, trace uint32, n uint32) {
	acc := a.class(class, trace)
	acc.IsArray = true
	acc.Count++
	acc.Arrays.Add(int64(n), 4)
}

// primArray counts a PRIMITIVE ARRAY DUMP (or NODATA) of n elements.
func (a *Agg) primArray(t hprof.BasicType, trace uint32, n uint32) {
	var acc *Acc
	if a.heap != 0 {
		acc = a.keyed(Key{Prim: t, Trace: a.frameTrace(trace), Heap: a.heap})
	} else if a.traced(trace) {
		acc = a.keyed(Key{Prim: t, Trace: trace})
	} else {
		if int(t) >= len(a.prims) {
			return // the hprof reader rejects invalid types
		}
		acc = a.prims[t]
		if acc == nil {
			acc = &Acc{}
			a.prims[t] = acc
		}
	}
	acc.IsArray = true
	acc.Count++
	acc.Arrays.Add(int64(n), int64(t.Size(a.idSize)))
}

// Each calls fn for every group of objects.
func (a *Agg) Each(fn func(k Key, acc *Acc)) {
	a.byClass.each(func(id uint64, acc *Acc) {
		fn(Key{Class: id}, acc)
	})
	for t, acc := range a.prims {
		if acc != nil {
			fn(Key{Prim: hprof.BasicType(t)}, acc)
		}
	}
	for k, acc := range a.byTrace {
		fn(k, acc)
	}
}

// Merge adds o's counts into a.
func (a *Agg) Merge(o *Agg) {
	o.Each(func(k Key, acc *Acc) {
		var dst *Acc
		switch {
		case k.Trace != 0 || k.Heap != 0:
			dst = a.keyed(k)
		case k.Prim != 0:
			if a.prims[k.Prim] == nil {
				a.prims[k.Prim] = &Acc{}
			}
			dst = a.prims[k.Prim]
		default:
			dst = a.byClass.get(k.Class)
		}
		dst.Count += acc.Count
		dst.IsArray = dst.IsArray || acc.IsArray
		dst.Arrays.Merge(acc.Arrays)
	})
}

// HeapIndex numbers the Android heaps of a dump from 1 in the order met;
// 0 is "no HEAP DUMP INFO seen" (every non-Android dump).
type HeapIndex uint8

// Heaps tracks ART's and Dalvik's HEAP DUMP INFO sub-records: each
// says which heap (app, zygote, image, ...) the objects after it are in,
// until the next one, across segment boundaries.
type Heaps struct {
	cur      HeapIndex
	NameIDs  []uint64             // heap name string IDs, by index-1
	index    map[uint32]HeapIndex // heap ID → index
	Overflow bool                 // more than maxHeaps heap IDs
}

// maxHeaps bounds the distinct heap IDs tracked (Android writes at most
// four: default, image, zygote, app); later ones share the last slot.
const maxHeaps = 16

// enter switches to heap id, named by the string nameID, and returns its
// index.
func (a *Heaps) enter(id uint32, nameID uint64) HeapIndex {
	if i, ok := a.index[id]; ok {
		a.cur = i
		return i
	}
	if len(a.NameIDs) >= maxHeaps {
		a.Overflow = true
		a.cur = HeapIndex(len(a.NameIDs))
		return a.cur
	}
	if a.index == nil {
		a.index = map[uint32]HeapIndex{}
	}
	a.NameIDs = append(a.NameIDs, nameID)
	a.cur = HeapIndex(len(a.NameIDs))
	a.index[id] = a.cur
	return a.cur
}

// Name is the heap label of index i (i > 0).
func (a *Heaps) Name(e Env, i HeapIndex) string {
	if n := e.String(a.NameIDs[i-1]); n != "" {
		return n
	}
	for id, j := range a.index {
		if j == i {
			return fmt.Sprintf("heap-%d", id)
		}
	}
	return fmt.Sprintf("heap-%d", i)
}

// enterHeap handles a HEAP DUMP INFO: the objects after it are in heap
// id. Ignored where heaps are not tracked.
func (a *Agg) enterHeap(id uint32, nameID uint64) {
	if a.heaps != nil {
		a.heap = a.heaps.enter(id, nameID)
	}
}

// frameTrace is trace if it names frames, else 0: objects without an
// allocation stack are grouped by class alone.
func (a *Agg) frameTrace(trace uint32) uint32 {
	if a.traced(trace) {
		return trace
	}
	return 0
}

// TrackHeaps makes a follow the Android heaps of its dump (HEAP DUMP
// INFO switches them); the caller tracks only Android files, read by one
// worker in order, so the streaming and mapped paths agree.
func (a *Agg) TrackHeaps(h *Heaps) {
	a.heaps = h
	a.heap = h.cur
}
