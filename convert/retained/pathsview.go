package retained

import (
	"fmt"
	"slices"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/retained/internal/domtree"
)

// Where the paths view is built: each reachable object's sample has the
// stack of its shortest strong path from a GC root (see holdTree): the
// root's frames (or `class X` for what a static field holds), one frame
// per reference taken, named by its field (graph.KindField), and the
// object's class as the leaf.
//
// Values: path_objects and path_space count each object once, so a
// frame's cumulative value is what is reached through it. path_retained
// gives each object its retained size less the retained sizes of the
// objects it reaches on the tree that some object dominates (they are
// counted on their own samples): along the tree the values telescope,
// so the cumulative value of an object's own frame is its retained size
// (plus that of the objects below it that several roots share, which no
// object above them retains), and the total is the reachable heap. A
// sample's own value may be negative where an object leads to another
// that it does not retain.

// Sample labels of the paths view.
const (
	// LabelChain (numeric, unit "references") is the longest chain of
	// one field folded into the sample's last field frame (a linked
	// list's `next`); absent when 1.
	LabelChain = "chain"
)

// pathsBuilder is the state of PathsView.
type pathsBuilder struct {
	r     *Result
	h     *holds
	g     *graph.Graph
	name  RootFrames
	t     *domtree.PathTree
	node  []int32  // by object: its field-path node (its frames but its class)
	chain []uint32 // by object: the folded chain ending at it
	leaf  map[uint32]graph.FrameID
	field map[uint64]graph.FrameID
	sums  map[int32]*[3]int64 // by leaf node: objects, shallow bytes, retained
}

// PathsView builds the paths view (see above); nil unless the analysis
// was asked for paths (Input.Paths). Root frames are named by name (nil:
// KindFrame).
func (r *Result) PathsView(g *graph.Graph, name RootFrames) *graph.View {
	h := r.holds
	if h == nil {
		return nil
	}
	if name == nil {
		name = KindFrame
	}
	n := len(h.tree.parent)
	b := &pathsBuilder{r: r, h: h, g: g, name: name, t: domtree.NewPathTree(),
		node: make([]int32, n), chain: make([]uint32, n),
		leaf: map[uint32]graph.FrameID{}, field: map[uint64]graph.FrameID{}, sums: map[int32]*[3]int64{}}
	for _, v := range h.tree.order {
		b.add(v)
	}
	return b.view()
}

// add places object v (after its parent).
func (b *pathsBuilder) add(v uint32) {
	h, t := b.h, b.t
	p := h.tree.parent[v]
	var q int32
	switch {
	case p == 0 && h.obj.class(v)&classObjFlag != 0:
		c := &h.fields.classes[h.obj.class(v)&^classObjFlag]
		q = t.Node(0, int32(b.g.Frame(graph.Frame{Kind: graph.KindRoot, Class: "class " + c.name})))
	case p == 0:
		for _, f := range b.name(b.g, h.tree.start[v]) {
			q = t.Node(q, int32(f))
		}
	default:
		pv := p - 1
		pq := b.node[pv]
		fr := b.fieldFrame(h.obj.class(pv), h.tree.slot[v])
		pn := &t.Nodes[pq]
		switch {
		case pn.Class == fr:
			q = pq // a chain of one field: one frame
			b.chain[v] = max(b.chain[pv], 1) + 1
			pn.MaxRun = max(pn.MaxRun, int64(b.chain[v]))
		case int(pn.Depth) > b.r.maxDepth && t.OnPath(pq, fr):
			pn.Capped = true
			q = pq
		default:
			q = t.Node(pq, fr)
		}
	}
	b.node[v] = q
	s := b.sample(v)
	s[0]++
	s[1] += h.obj.shallow(v)
	ret := b.r.retained[v]
	s[2] += ret
	// What v retains is in its dominator's retained size too: taken off
	// its parent's sample (v's dominator is on its path), or for a class
	// object, which starts paths of its own, off its dominator's.
	switch d := b.r.idom[v]; {
	case d == 0:
	case p != 0:
		b.sample(p - 1)[2] -= ret
	default:
		b.sample(d - 1)[2] -= ret
	}
}

// sample is the sums of v's sample (its node and its class).
func (b *pathsBuilder) sample(v uint32) *[3]int64 {
	leaf := b.t.Node(b.node[v], int32(b.leafFrame(b.h.obj.class(v))))
	s := b.sums[leaf]
	if s == nil {
		s = new([3]int64)
		b.sums[leaf] = s
	}
	return s
}

func (b *pathsBuilder) leafFrame(cls uint32) graph.FrameID {
	if f, ok := b.leaf[cls]; ok {
		return f
	}
	name := b.h.fields.classes[cls&^classObjFlag].name
	if cls&classObjFlag != 0 {
		name += ".class"
	}
	f := b.g.Frame(graph.Frame{Kind: graph.KindClass, Class: name})
	b.leaf[cls] = f
	return f
}

func (b *pathsBuilder) fieldFrame(cls uint32, slot int32) int32 {
	k := uint64(cls)<<32 | uint64(uint32(slot))
	if f, ok := b.field[k]; ok {
		return int32(f)
	}
	class, field := b.h.fields.name(cls, slot)
	f := b.g.Frame(graph.Frame{Kind: graph.KindField, Class: class, Method: field})
	b.field[k] = f
	return int32(f)
}

// view turns the sums into samples.
func (b *pathsBuilder) view() *graph.View {
	v := graph.NewPathsView()
	leaves := make([]int32, 0, len(b.sums))
	for l := range b.sums {
		leaves = append(leaves, l)
	}
	slices.Sort(leaves)
	var stack []graph.FrameID
	var objects, shallow, ret int64
	for _, l := range leaves {
		s := b.sums[l]
		stack = stack[:0]
		for j := l; j > 0; j = b.t.Nodes[j].Parent {
			stack = append(stack, graph.FrameID(b.t.Nodes[j].Class))
		}
		smp := graph.Sample{Stack: b.g.Stack(stack), Values: []int64{s[0], s[1], s[2]}}
		if pn := b.t.Nodes[b.t.Nodes[l].Parent]; pn.MaxRun > 1 {
			smp.Labels = append(smp.Labels, graph.Label{Key: LabelChain, Num: pn.MaxRun, Unit: "references"})
		}
		v.Samples = append(v.Samples, smp)
		objects, shallow, ret = objects+s[0], shallow+s[1], ret+s[2]
	}
	st := b.r.Stats
	v.Comments = append(v.Comments,
		fmt.Sprintf("paths: %d objects, %d bytes reachable from GC roots, each under a shortest strong path from a root (breadth first; weak, soft, phantom and final referents not followed)", objects, shallow),
		"stacks: the root (a thread and its frame, a JNI global…; `class X` for what X's static fields hold), a frame per reference taken named by its field (declaring class.field, `T[] [*]` for an array element), the object's class as leaf",
		fmt.Sprintf("path_space: shallow bytes, so a field frame's cumulative value is what is reached through it; path_retained: a frame's cumulative value is the retained size of what is reached through it (total %d = the retained view's %d); a sample's own path_retained may be negative", ret, st.ReachableBytes),
		fmt.Sprintf("chains of one field (a linked list's next) are one frame (label %q: the longest); past %d frames a field already on the stack adds none", LabelChain, b.r.maxDepth),
	)
	return v
}
