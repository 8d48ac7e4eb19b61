package retained

import (
	"math/bits"
	"runtime"
	"sync"

	"github.com/hprof2pprof/hprof2pprof/convert/retained/internal/domtree"
)

// The class and the shallow size of an object share one 32-bit word,
// the two things the analysis keeps of it besides its references: bit 31
// flags a class object (classObjFlag), bits 12–30 hold the class number
// and bits 0–11 the size in bytes. An object of 4,095 bytes or more, or
// of the 524,287th class or later, has the size bits all set and its
// class and size in a map instead: each such object is 4 KB of heap or
// more, so the map holds at most one entry per 4 KB of the heap the dump
// describes (with fewer classes than that).
const (
	sizeBits  = 12
	wideSize  = 1<<sizeBits - 1 // size bits of an object kept in the map
	classBits = 31 - sizeBits
	wideClass = 1<<classBits - 1 // first class number kept in the map
)

// wideObj is an object whose class or size does not fit its word.
type wideObj struct {
	cls  uint32
	size int64
}

// objWords are the words of objects, by some numbering (dense object
// numbers while the graph is filled, DFS numbers after), and the map of
// the wide ones.
type objWords struct {
	w    []uint32
	wide map[uint32]wideObj
}

// packObj returns the word of an object of class cls (flagged for class
// objects) and size bytes; ok is false when it must go to the map.
func packObj(cls uint32, size int64) (w uint32, ok bool) {
	if size < 0 || size >= wideSize || cls&^classObjFlag >= wideClass {
		return wideSize, false
	}
	return cls&classObjFlag | (cls&^classObjFlag)<<sizeBits | uint32(size), true
}

// isWide reports whether word w stands for an object kept in the map.
func isWide(w uint32) bool { return w&wideSize == wideSize }

// class returns the class number of object v, flagged for class objects.
func (o *objWords) class(v uint32) uint32 {
	w := o.w[v]
	if isWide(w) {
		return o.wide[v].cls
	}
	return wordClass(w)
}

// wordClass is the class number (flagged for class objects) a word that
// is not wide holds.
func wordClass(w uint32) uint32 { return w&classObjFlag | (w&^classObjFlag)>>sizeBits }

// noteClass sets used for the class of object v, unless v is a class
// object: the classes with a reached instance, whose class objects are
// live.
func (o *objWords) noteClass(used []bool, v uint32) {
	if c := o.class(v); c&classObjFlag == 0 {
		used[c] = true
	}
}

// noteSeen is noteClass for every object seen marks (strong reach's
// marks, or what the DFS numbered).
func (o *objWords) noteSeen(used []bool, seen domtree.Bitset) {
	n := len(o.w)
	// Each part starts at a multiple of 64: it reads whole words of seen.
	up := func(v int) int { return min((v+63)&^63, n) }
	splitNotes(used, n, func(used []bool, lo, hi int) { o.noteSeenIn(used, seen, up(lo), up(hi)) })
}

// noteSeenIn is noteSeen for objects from..to (from a multiple of 64).
func (o *objWords) noteSeenIn(used []bool, seen domtree.Bitset, from, to int) {
	for base := from; base < to; base += 64 {
		marks := seen[base/64]
		if rest := to - base; rest < 64 {
			marks &= 1<<rest - 1
		}
		for marks != 0 {
			v := base + bits.TrailingZeros64(marks)
			marks &= marks - 1
			if w := o.w[v]; w&classObjFlag == 0 {
				o.note(used, w, uint32(v))
			}
		}
	}
}

// note is noteClass for object v of word w, not a class object.
func (o *objWords) note(used []bool, w, v uint32) {
	if isWide(w) {
		o.noteClass(used, v)
		return
	}
	used[w>>sizeBits] = true
}

// splitNotes runs note over the objects 0..n: big arrays split between
// the cores, each part noting in a slice of its own, then merged.
func splitNotes(used []bool, n int, note func(used []bool, lo, hi int)) {
	parts := min(runtime.GOMAXPROCS(0), n/(1<<20)+1)
	if parts <= 1 {
		note(used, 0, n)
		return
	}
	mine := make([][]bool, parts)
	var wg sync.WaitGroup
	for k := range parts {
		mine[k] = make([]bool, len(used))
		wg.Go(func() { note(mine[k], n*k/parts, n*(k+1)/parts) })
	}
	wg.Wait()
	for _, u := range mine {
		for c, ok := range u {
			used[c] = used[c] || ok
		}
	}
}

// shallow returns the shallow size of object v.
func (o *objWords) shallow(v uint32) int64 {
	w := o.w[v]
	if isWide(w) {
		return o.wide[v].size
	}
	return int64(w & wideSize)
}
