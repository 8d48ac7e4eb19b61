package convert

import (
	"github.com/hprof2pprof/hprof2pprof/convert/heapsize"
	"github.com/hprof2pprof/hprof2pprof/convert/hprof"
)

// objAgg counts the objects of one heap dump, or of the part of it one
// worker read. It is the per-object hot path, so it avoids hashing
// composite keys: objects whose allocation trace names no frames (every
// modern heap dump) are keyed by class ID alone, with a one-entry cache
// for runs of the same class; primitive arrays by element type.
type objAgg struct {
	idSize     int
	header     [2]int64 // object header for references of 4 and 8 bytes
	byClass    *classTable
	byTrace    map[objKey]*objAcc // objects whose trace names frames (hprof agent dumps)
	prims      [16]*objAcc        // primitive arrays without such a trace, by element type
	lastClass  uint64
	lastAcc    *objAcc
	hasFrames  func(serial uint32) bool
	lastTrace  uint32
	lastFrames bool
	// heap is the Android heap objects are in now (0: none, every other
	// writer); heaps, set only where heaps are tracked, numbers them.
	heap  heapIndex
	heaps *androidHeaps
}

func newObjAgg(idSize int, header [2]int64, hasFrames func(uint32) bool) *objAgg {
	return &objAgg{
		idSize:    idSize,
		header:    header,
		byClass:   newClassTable(),
		byTrace:   map[objKey]*objAcc{},
		hasFrames: hasFrames,
	}
}

// traced reports whether an allocation trace serial names frames.
// It is asked for every object: the answer for the last serial is kept,
// and the function is small enough to be inlined.
func (a *objAgg) traced(serial uint32) bool {
	if serial != a.lastTrace {
		a.lastTrace, a.lastFrames = serial, serial != 0 && a.hasFrames(serial)
	}
	return a.lastFrames
}

func (a *objAgg) class(id uint64, trace uint32) *objAcc {
	if a.heap != 0 {
		return a.keyed(objKey{class: id, trace: a.frameTrace(trace), heap: a.heap})
	}
	if a.traced(trace) {
		return a.keyed(objKey{class: id, trace: trace})
	}
	if id == a.lastClass && a.lastAcc != nil {
		return a.lastAcc
	}
	acc := a.byClass.get(id)
	a.lastClass, a.lastAcc = id, acc
	return acc
}

func (a *objAgg) keyed(k objKey) *objAcc {
	acc := a.byTrace[k]
	if acc == nil {
		acc = &objAcc{}
		a.byTrace[k] = acc
	}
	return acc
}

// instance counts an INSTANCE DUMP.
func (a *objAgg) instance(class uint64, trace uint32) *objAcc {
	acc := a.class(class, trace)
	acc.count++
	return acc
}

// objArray counts an OBJECT ARRAY DUMP of n elements.
func (a *objAgg) objArray(class uint64, trace uint32, n uint32) {
	acc := a.class(class, trace)
	acc.isArray = true
	acc.count++
	acc.arrBytes[0] += heapsize.Array(a.header[0], int64(n), 4)
	acc.arrBytes[1] += heapsize.Array(a.header[1], int64(n), 8)
}

// primArray counts a PRIMITIVE ARRAY DUMP (or NODATA) of n elements.
func (a *objAgg) primArray(t hprof.BasicType, trace uint32, n uint32) {
	var acc *objAcc
	if a.heap != 0 {
		acc = a.keyed(objKey{prim: t, trace: a.frameTrace(trace), heap: a.heap})
	} else if a.traced(trace) {
		acc = a.keyed(objKey{prim: t, trace: trace})
	} else {
		if int(t) >= len(a.prims) {
			return // decodeSub rejects invalid types
		}
		acc = a.prims[t]
		if acc == nil {
			acc = &objAcc{}
			a.prims[t] = acc
		}
	}
	acc.isArray = true
	acc.count++
	elem := int64(t.Size(a.idSize))
	acc.arrBytes[0] += heapsize.Array(a.header[0], int64(n), elem)
	acc.arrBytes[1] += heapsize.Array(a.header[1], int64(n), elem)
}

// each calls fn for every group of objects.
func (a *objAgg) each(fn func(k objKey, acc *objAcc)) {
	a.byClass.each(func(id uint64, acc *objAcc) {
		fn(objKey{class: id}, acc)
	})
	for t, acc := range a.prims {
		if acc != nil {
			fn(objKey{prim: hprof.BasicType(t)}, acc)
		}
	}
	for k, acc := range a.byTrace {
		fn(k, acc)
	}
}

// merge adds o's counts into a.
func (a *objAgg) merge(o *objAgg) {
	o.each(func(k objKey, acc *objAcc) {
		var dst *objAcc
		switch {
		case k.trace != 0 || k.heap != 0:
			dst = a.keyed(k)
		case k.prim != 0:
			if a.prims[k.prim] == nil {
				a.prims[k.prim] = &objAcc{}
			}
			dst = a.prims[k.prim]
		default:
			dst = a.byClass.get(k.class)
		}
		dst.count += acc.count
		dst.isArray = dst.isArray || acc.isArray
		dst.arrBytes[0] += acc.arrBytes[0]
		dst.arrBytes[1] += acc.arrBytes[1]
	})
}
