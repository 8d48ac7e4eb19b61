package convert

import (
	"fmt"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/internal/heapdump"
)

// buildHeap turns the chosen dump into the heap view.
func (d *binDecoder) buildHeap() {
	h := d.lastHeap
	if h == nil {
		return
	}
	g := d.g
	m := h.Model
	v := graph.NewHeapView()
	v.Time = g.Source.Time
	agg := graph.NewAggregator(v)
	sizes := map[uint64]int64{}
	var objects, bytes, dropped int64
	h.Agg.Each(func(k heapdump.Key, a *heapdump.Acc) {
		var class string
		var size int64
		switch {
		case k.Prim != 0:
			class = k.Prim.JavaName() + "[]"
		default:
			if !h.Classes.Has(k.Class) {
				dropped += a.Count
				return
			}
			class = d.sym.ClassName[k.Class]
			if class == "" {
				g.SoftFail(graph.SoftClassDumpWithoutLoadClass)
				class = fmt.Sprintf("unknown-class-0x%x", k.Class)
			}
		}
		if a.IsArray {
			size = a.ArrBytes[m.Candidate()]
		} else {
			is, ok := sizes[k.Class]
			if !ok {
				is = h.InstanceSize(d.env(), m, k.Class)
				sizes[k.Class] = is
			}
			size = is * a.Count
		}
		st := graph.StackID(0)
		if k.Trace != 0 && d.traceHasFrames(k.Trace) {
			st = g.WithLeaf(d.names.Stack(k.Trace), class)
		}
		if st == 0 {
			st = g.ClassStack(class)
		}
		labels := []graph.Label{{Key: graph.LabelClass, Str: class}}
		if k.Heap != 0 {
			labels = append(labels, graph.Label{Key: graph.LabelHeap, Str: h.Heaps.Name(d.env(), k.Heap)})
		}
		agg.Add(st, labels, a.Count, size)
		objects += a.Count
		bytes += size
	})
	if dropped > 0 {
		g.Soft.Add(graph.SoftObjectsMissingClassDump, "", dropped)
	}
	g.SortSamples(v)
	v.Comments = append(v.Comments,
		fmt.Sprintf("heap dump %d of %d: %d objects, %d bytes (shallow)", h.Index, d.dumps, objects, bytes),
		m.Describe())
	if !h.Complete {
		v.Comments = append(v.Comments, "incomplete heap dump: the input ended inside it")
	}
	g.AddView(v)
}

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
