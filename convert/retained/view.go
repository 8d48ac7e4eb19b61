package retained

import (
	"fmt"
	"slices"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
)

// Sample labels of the retained view. A frame's function name is
// exactly its class name (or root kind), so pprof aggregates, focuses and
// diffs per class; what a frame merged is said on the sample whose leaf
// it is (every class frame holds objects of its own, so has one).
const (
	// LabelRun (numeric, unit "objects") is the longest chain of objects
	// of the leaf's class, each the immediate dominator of the next,
	// merged into the leaf frame; absent when 1.
	LabelRun = "run"
	// LabelRoot is the kind of the GC root a sample's stack starts at
	// ("Java frame", "JNI global", "several roots"): root frames name a
	// thread and its frame, which Java frame and JNI local roots share.
	LabelRoot = "root"
	// LabelMerged is set ("classes already on the stack") on a sample
	// whose leaf frame is past the depth cap and also holds objects its
	// objects dominate whose class names a frame of the stack already.
	LabelMerged = "merged"
)

// RootFrames names a root as frames of g, the outermost first: a thread
// and the frame of its stack that holds the object (`thread "main"`,
// `corpus.Oom.main Oom.java:33`), or the kind alone ("JNI global").
type RootFrames func(g *graph.Graph, r Root) []graph.FrameID

// KindFrame is the RootFrames that names a root by its kind alone.
func KindFrame(g *graph.Graph, r Root) []graph.FrameID {
	return []graph.FrameID{g.Frame(graph.Frame{Kind: graph.KindRoot, Class: r.Name()})}
}

// View builds the retained view: one sample per class-level path that
// holds objects, valued with their count and shallow bytes. Its root
// frames are named by name (nil: KindFrame).
func (r *Result) View(g *graph.Graph, name RootFrames) *graph.View {
	if name == nil {
		name = KindFrame
	}
	v := graph.NewRetainedView()
	frames := make([][]graph.FrameID, len(r.Paths)) // leaf end first
	for i := 1; i < len(r.Paths); i++ {
		p := &r.Paths[i]
		if p.Depth == 1 {
			fs := slices.Clone(name(g, r.Roots[p.Class]))
			slices.Reverse(fs)
			frames[i] = fs
			continue
		}
		frames[i] = []graph.FrameID{g.Frame(graph.Frame{Kind: graph.KindClass, Class: r.ClassNames[p.Class]})}
	}
	var stack []graph.FrameID
	type sampleKey struct {
		stack  graph.StackID
		run    int64
		capped bool
		root   string
	}
	rootOf := make([]int32, len(r.Paths)) // the root (Result.Roots) of each node
	seen := map[sampleKey]int{}
	for i := 1; i < len(r.Paths); i++ {
		p := &r.Paths[i]
		rootOf[i] = p.Class
		if p.Depth > 1 {
			rootOf[i] = rootOf[p.Parent]
		}
		if p.Objects == 0 {
			continue
		}
		stack = stack[:0]
		for j := int32(i); j > 0; j = r.Paths[j].Parent {
			stack = append(stack, frames[j]...)
		}
		kind := r.Roots[rootOf[i]].Name()
		smp := graph.Sample{Stack: g.Stack(stack), Values: []int64{p.Objects, p.Bytes}, Labels: []graph.Label{{Key: LabelRoot, Str: kind}}}
		if p.MaxRun > 1 {
			smp.Labels = append(smp.Labels, graph.Label{Key: LabelRun, Num: p.MaxRun, Unit: "objects"})
		}
		if p.Capped {
			smp.Labels = append(smp.Labels, graph.Label{Key: LabelMerged, Str: "classes already on the stack"})
		}
		// Two roots may be named alike (a Java frame and a JNI local
		// root of one frame): their samples are one.
		k := sampleKey{smp.Stack, p.MaxRun, p.Capped, kind}
		if i, ok := seen[k]; ok {
			v.Samples[i].Values[0] += p.Objects
			v.Samples[i].Values[1] += p.Bytes
			continue
		}
		seen[k] = len(v.Samples)
		v.Samples = append(v.Samples, smp)
	}
	st := r.Stats
	v.Comments = append(v.Comments,
		fmt.Sprintf("retained: %d objects (class objects included) reachable from %d GC roots hold %d bytes; cumulative values are retained sizes",
			st.Reachable, st.Roots, st.ReachableBytes),
		fmt.Sprintf("object graph: %d objects, %d references, %d Reference.referent fields not followed", st.Objects, st.References, st.ReferentsSkipped),
		fmt.Sprintf("unreachable: %d objects, %d bytes (shallow): no GC root reaches them, so they have no retained size and are not in this view",
			st.Unreachable, st.UnreachableBytes),
		"edges: instance fields, object array elements, class statics; Reference.referent of Weak/Soft/Final/PhantomReference not followed; a class object nothing references is live when an object of its class is",
		"root frames: a root object's ROOT sub-record: the thread and the frame of its stack for Java frame and JNI local roots, the thread for the other thread roots, else the kind; \"several roots, first …\" for objects only the virtual root dominates, named by the most telling root that reaches them (a thread's frame before a JNI global before a class); \"class of a reachable object\" for class objects no reference holds",
		fmt.Sprintf("stacks: root kind → dominating objects by class; a frame is named by its class alone, so a class's cumulative value is the retained size of its objects that no other object of the class dominates; runs of one class are one frame (sample label %q: the longest run); past %d class frames only classes not on the stack yet add frames (label %q)", LabelRun, r.maxDepth, LabelMerged),
	)
	if st.Dangling > 0 {
		v.Comments = append(v.Comments, fmt.Sprintf("%d references to IDs with no object in the dump were ignored", st.Dangling))
	}
	return v
}
