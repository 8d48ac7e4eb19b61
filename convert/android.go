package convert

import (
	"fmt"

	"github.com/hprof2pprof/hprof2pprof/convert/heapsize"
	"github.com/hprof2pprof/hprof2pprof/convert/internal/heapdump"
)

// Android heap dumps ("JAVA PROFILE 1.0.3", written by ART and Dalvik)
// differ from HotSpot's in what a CLASS DUMP's instance size means:
// Android writes the real object size (java.lang.Object is 8 bytes: the
// class and monitor words, which ART even lists as the fields
// shadow$_klass_ and shadow$_monitor_), HotSpot writes only the bytes
// of the field values and 0 for java.lang.Object.

// trackHeaps makes agg follow the dump's Android heaps. Only Android
// files are tracked, and their segments are read by one worker in order
// (see workers), so the streaming and mapped paths agree.
func (d *binDecoder) trackHeaps(h *heapdump.Dump, agg *heapdump.Agg) {
	if d.g.Source.Version != "JAVA PROFILE 1.0.3" {
		return
	}
	agg.TrackHeaps(&h.Heaps)
}

// sizeModelText describes the size model of the heap view.
func (d *binDecoder) sizeModelText(h *heapdump.Dump, oop int, why string, hdr int) string {
	if heapsize.WrittenSizes(h.ObjectSize, d.opts.HeaderSize, d.opts.RefSize) {
		return fmt.Sprintf("size model: instances as the CLASS DUMP gives them (Android object sizes, java.lang.Object %d bytes, not aligned); arrays: header %d, reference %d bytes, 8-byte alignment", h.ObjectSize, hdr+4, oop)
	}
	return fmt.Sprintf("size model: reference %d bytes (%s), object header %d, array header %d, 8-byte alignment", oop, why, hdr, hdr+4)
}
