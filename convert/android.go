package convert

import (
	"fmt"

	"github.com/hprof2pprof/hprof2pprof/convert/heapsize"
	"github.com/hprof2pprof/hprof2pprof/convert/hprof"
)

// Android heap dumps ("JAVA PROFILE 1.0.3", written by ART and Dalvik)
// differ from HotSpot's in what a CLASS DUMP's instance size means:
// Android writes the real object size (java.lang.Object is 8 bytes: the
// class and monitor words, which ART even lists as the fields
// shadow$_klass_ and shadow$_monitor_), HotSpot writes only the bytes
// of the field values and 0 for java.lang.Object.

// newSizeModel reports whether the CLASS DUMP instance sizes are object
// sizes (heapsize.WrittenSizes), as VisualVM's heap library decides too.
func (h *heapDump) newSizeModel() bool { return h.objectSize != 0 }

// heapIndex numbers the Android heaps of a dump from 1 in the order met;
// 0 is "no HEAP DUMP INFO seen" (every non-Android dump).
type heapIndex uint8

// androidHeaps tracks ART's and Dalvik's HEAP DUMP INFO sub-records: each
// says which heap (app, zygote, image, ...) the objects after it are in,
// until the next one, across segment boundaries.
type androidHeaps struct {
	cur      heapIndex
	nameIDs  []uint64             // heap name string IDs, by index-1
	index    map[uint32]heapIndex // heap ID → index
	overflow bool                 // more than maxHeaps heap IDs
}

// maxHeaps bounds the distinct heap IDs tracked (Android writes at most
// four: default, image, zygote, app); later ones share the last slot.
const maxHeaps = 16

// enter switches to heap id, named by the string nameID, and returns its
// index.
func (a *androidHeaps) enter(id uint32, nameID uint64) heapIndex {
	if i, ok := a.index[id]; ok {
		a.cur = i
		return i
	}
	if len(a.nameIDs) >= maxHeaps {
		a.overflow = true
		a.cur = heapIndex(len(a.nameIDs))
		return a.cur
	}
	if a.index == nil {
		a.index = map[uint32]heapIndex{}
	}
	a.nameIDs = append(a.nameIDs, nameID)
	a.cur = heapIndex(len(a.nameIDs))
	a.index[id] = a.cur
	return a.cur
}

// name is the heap label of index i (i > 0).
func (a *androidHeaps) name(d *binDecoder, i heapIndex) string {
	if n := d.strings[a.nameIDs[i-1]]; n != "" {
		return n
	}
	for id, j := range a.index {
		if j == i {
			return fmt.Sprintf("heap-%d", id)
		}
	}
	return fmt.Sprintf("heap-%d", i)
}

// trackHeaps makes agg follow the dump's Android heaps. Only Android
// files are tracked, and their segments are read by one worker in order
// (see workers), so the streaming and mapped paths agree.
func (d *binDecoder) trackHeaps(h *heapDump, agg *objAgg) {
	if d.g.Source.Version != "JAVA PROFILE 1.0.3" {
		return
	}
	agg.heaps = &h.heaps
	agg.heap = h.heaps.cur
}

// enterHeap handles a HEAP DUMP INFO: the objects after it are in heap
// id. Ignored where heaps are not tracked.
func (a *objAgg) enterHeap(id uint32, nameID uint64) {
	if a.heaps != nil {
		a.heap = a.heaps.enter(id, nameID)
	}
}

// frameTrace is trace if it names frames, else 0: objects without an
// allocation stack are grouped by class alone.
func (a *objAgg) frameTrace(trace uint32) uint32 {
	if a.traced(trace) {
		return trace
	}
	return 0
}

// noteObjectClass reads what java.lang.Object's CLASS DUMP says about the
// writer: its instance size (non-zero from Android) and whether it lists
// ART's shadow$_klass_ field.
func (h *heapDump) noteObjectClass(d *binDecoder, c *hprof.ClassRecord) {
	h.objectSize = c.InstanceSize
	for _, f := range c.Fields {
		if d.strings[f.NameID] == "shadow$_klass_" {
			h.art = true
		}
	}
}

// sizeModelText describes the size model of the heap view.
func (h *heapDump) sizeModelText(d *binDecoder, oop int, why string, hdr int) string {
	if heapsize.WrittenSizes(h.objectSize, d.opts.HeaderSize, d.opts.RefSize) {
		return fmt.Sprintf("size model: instances as the CLASS DUMP gives them (Android object sizes, java.lang.Object %d bytes, not aligned); arrays: header %d, reference %d bytes, 8-byte alignment", h.objectSize, hdr+4, oop)
	}
	return fmt.Sprintf("size model: reference %d bytes (%s), object header %d, array header %d, 8-byte alignment", oop, why, hdr, hdr+4)
}
