package convert

import (
	"fmt"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/internal/frames"
	"github.com/hprof2pprof/hprof2pprof/convert/internal/heapdump"
)

// The heap view: the chosen dump's objects counted per class,
// allocation trace and (Android) heap, each sized by the dump's size
// model (heapsize.Model).

// buildHeap adds the heap view of the chosen dump d.dump to g.
func buildHeap(g *graph.Graph, st *frames.Stacks, d *binData) {
	h := d.dump
	e := d.env(g)
	m := h.Model
	v := graph.NewHeapView()
	v.Time = g.Source.Time
	agg := graph.NewAggregator(v)
	sizes := map[uint64]int64{}
	var objects, bytes, dropped, chunks int64
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
			elem := int64(0) // references
			if k.Prim != 0 {
				elem = int64(k.Prim.Size(h.IDSize))
			}
			size = m.ArrayBytes(a.Arrays, elem)
		} else {
			is, ok := sizes[k.Class]
			if !ok {
				is = h.InstanceSize(e, m, k.Class)
				sizes[k.Class] = is
			}
			size = is * a.Count
		}
		stack := graph.StackID(0)
		if k.Trace != 0 && d.traceHasFrames(k.Trace) {
			stack = g.WithLeaf(st.Stack(k.Trace), class)
		}
		if stack == 0 {
			stack = g.ClassStack(class)
		}
		if class == stackChunk {
			chunks += a.Count
		}
		labels := []graph.Label{{Key: graph.LabelClass, Str: class}}
		if k.Heap != 0 {
			labels = append(labels, graph.Label{Key: graph.LabelHeap, Str: h.Heaps.Name(e, k.Heap)})
		}
		agg.Add(stack, labels, a.Count, size)
		objects += a.Count
		bytes += size
	})
	if n, size := classObjects(h, e); n > 0 {
		agg.Add(g.ClassStack(javaLangClass), []graph.Label{{Key: graph.LabelClass, Str: javaLangClass}}, n, size)
		objects += n
		bytes += size
	}
	if dropped > 0 {
		g.Soft.Add(graph.SoftObjectsMissingClassDump, "", dropped)
	}
	g.SortSamples(v)
	v.Comments = append(v.Comments,
		fmt.Sprintf("heap dump %d of %d: %d objects, %d bytes (shallow)", h.Index, d.dumps, objects, bytes),
		m.Describe())
	if chunks > 0 {
		v.Comments = append(v.Comments, fmt.Sprintf("%d %s objects sized by their fields alone: the JVM adds to each the frames of the virtual thread stack it holds, which the dump does not size", chunks, stackChunk))
	}
	if !h.Complete {
		v.Comments = append(v.Comments, "incomplete heap dump: the input ended inside it")
	}
	g.AddView(v)
}

const (
	javaLangClass = "java.lang.Class"
	stackChunk    = "jdk.internal.vm.StackChunk"
)

// classObjects counts the class objects of dump h and their bytes, where
// its size model weighs them (the JVM's class mirrors: one per CLASS
// DUMP, as GC.class_histogram counts them among java.lang.Class's
// instances).
func classObjects(h *heapdump.Dump, e heapdump.Env) (n, size int64) {
	if !h.Model.HotSpot() {
		return 0, 0
	}
	for _, id := range h.Classes.IDs() {
		n++
		size += h.Classes.Mirror(e, h.Model, id)
	}
	return n, size
}
