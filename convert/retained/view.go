package retained

import (
	"fmt"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
)

// Frame name suffixes: a run of objects of one class merged into one
// frame, and a frame at the depth limit that also holds everything its
// objects dominate.
const (
	runSuffix    = " ×%d"
	cappedSuffix = " …"
)

// View builds the retained view: one sample per class-level path that
// holds objects, valued with their count and shallow bytes.
func (r *Result) View(g *graph.Graph) *graph.View {
	v := graph.NewRetainedView()
	frames := make([]graph.FrameID, len(r.Paths))
	for i := 1; i < len(r.Paths); i++ {
		p := &r.Paths[i]
		f := graph.Frame{Kind: graph.KindRoot}
		if p.Depth == 1 {
			f.Class = r.RootKinds[p.Class]
		} else {
			f.Kind = graph.KindClass
			f.Class = r.ClassNames[p.Class]
			if p.MaxRun > 1 {
				f.Class += fmt.Sprintf(runSuffix, p.MaxRun)
			}
			if p.Capped {
				f.Class += cappedSuffix
			}
		}
		frames[i] = g.Frame(f)
	}
	var stack []graph.FrameID
	for i := 1; i < len(r.Paths); i++ {
		p := &r.Paths[i]
		if p.Objects == 0 {
			continue
		}
		stack = stack[:0]
		for j := int32(i); j > 0; j = r.Paths[j].Parent {
			stack = append(stack, frames[j])
		}
		v.Samples = append(v.Samples, graph.Sample{Stack: g.Stack(stack), Values: []int64{p.Objects, p.Bytes}})
	}
	st := r.Stats
	v.Comments = append(v.Comments,
		fmt.Sprintf("retained: %d objects (class objects included) reachable from %d GC roots hold %d bytes; cumulative values are retained sizes",
			st.Reachable, st.Roots, st.ReachableBytes),
		fmt.Sprintf("object graph: %d objects, %d references, %d Reference.referent fields not followed", st.Objects, st.References, st.ReferentsSkipped),
		fmt.Sprintf("unreachable: %d objects, %d bytes (shallow): no GC root reaches them, so they have no retained size and are not in this view",
			st.Unreachable, st.UnreachableBytes),
		"edges: instance fields, object array elements, class statics; Reference.referent of Weak/Soft/Final/PhantomReference not followed; a class object nothing references is live when an object of its class is",
		"root frames: the ROOT sub-record kind of a root object; \"several roots\" for objects only the virtual root dominates; \"class of a reachable object\" for such class objects",
		fmt.Sprintf("stacks: root kind → dominating objects by class (runs of one class merged as \"Class ×N\"), capped at %d class frames (\"Class …\" holds everything below)", r.maxDepth),
	)
	if st.Dangling > 0 {
		v.Comments = append(v.Comments, fmt.Sprintf("%d references to IDs with no object in the dump were ignored", st.Dangling))
	}
	return v
}
