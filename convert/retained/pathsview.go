package retained

import (
	"fmt"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/retained/internal/domtree"
	"github.com/hprof2pprof/hprof2pprof/convert/retained/internal/mem"
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
	r    *Result
	h    *holds
	g    *graph.Graph
	name RootFrames
	t    *domtree.PathTree
	// at is each object's field-path node (its frames but its class)
	// and, in the high half, its leaf node (with its class).
	at    []uint64
	chain []uint32 // by object: the folded chain ending at it
	// classOfLeaf is the class number (flagged for class objects) of
	// each leaf frame, by frame ID.
	classOfLeaf []uint32
	leaf        []graph.FrameID // by class number, then by class number + classes for class objects (0: not yet)
	field       []classFields   // by class number, then class objects'
	// The last field frame asked for, which the next object often asks
	// for again (an array's elements, a list's nodes).
	lastField uint64
	lastFrame int32
	sums      pathSums
	later     []heldBy // class objects' retained sizes to take off their dominators' samples
}

// free gives the builder's arrays back.
func (b *pathsBuilder) free() {
	mem.Free(b.h.arena, b.at)
	mem.Free(b.h.arena, b.chain)
	b.at, b.chain = nil, nil
}

// heldBy is a retained size to take off object v's sample.
type heldBy struct {
	v   uint32
	ret int64
}

// place places every object, parents first, then takes the class
// objects' retained sizes off their dominators.
func (b *pathsBuilder) place() {
	o := new(objGather)
	order := b.h.tree.order
	for lo := 0; lo < len(order); lo += placeBlock {
		vs := order[lo:min(lo+placeBlock, len(order))]
		b.gather(o, vs)
		for i, v := range vs {
			b.add(v, o, i)
		}
	}
	for _, l := range b.later {
		b.sums.at(int32(b.at[l.v] >> 32))[2] -= l.ret
	}
}

// newPathsBuilder starts the paths of r over graph g.
func newPathsBuilder(r *Result, g *graph.Graph, name RootFrames) *pathsBuilder {
	h := r.holds
	n := len(h.tree.parent)
	return &pathsBuilder{r: r, h: h, g: g, name: name, t: domtree.NewPathTree(),
		at: mem.AllocZeroed[uint64](h.arena, n), chain: mem.AllocZeroed[uint32](h.arena, n),
		leaf: make([]graph.FrameID, 2*len(h.fields.classes)), field: make([]classFields, 2*len(h.fields.classes)), lastField: ^uint64(0)}
}

// PathsView builds the paths view (see above); nil unless the analysis
// was asked for paths (Input.Paths). Root frames are named by name (nil:
// KindFrame).
func (r *Result) PathsView(g *graph.Graph, name RootFrames) *graph.View {
	h := r.holds
	if h == nil || h.tree.order == nil {
		return nil
	}
	if name == nil {
		name = KindFrame
	}
	b := newPathsBuilder(r, g, name)
	defer b.free()
	b.place()
	return b.view()
}

// placeBlock is how many objects place gathers at a time: their words
// are read by number, at random, in one loop of independent loads the
// processor overlaps, before the objects are placed one by one.
const placeBlock = 1024

// objGather is what place reads of a block of objects.
type objGather struct {
	w      [placeBlock]uint32 // class and shallow size (objWords)
	ret    [placeBlock]int64
	idom   [placeBlock]uint32
	parent [placeBlock]uint32
	slot   [placeBlock]int32
}

// gather reads the words of objects vs.
func (b *pathsBuilder) gather(o *objGather, vs []uint32) {
	h, r := b.h, b.r
	for i, v := range vs {
		o.w[i], o.ret[i], o.idom[i] = h.obj.w[v], r.retained[v], r.idom[v]
		o.parent[i], o.slot[i] = h.tree.parent[v], h.tree.slot[v]
	}
}

// add places object v (after its parent), the i-th of block o.
func (b *pathsBuilder) add(v uint32, o *objGather, i int) {
	h, t := b.h, b.t
	p := o.parent[i]
	w := o.w[i]
	cls, shallow := wordClass(w), int64(w&wideSize)
	if isWide(w) {
		cls, shallow = h.obj.class(v), h.obj.shallow(v)
	}
	var q int32
	switch {
	case p == 0 && cls&classObjFlag != 0:
		c := &h.fields.classes[cls&^classObjFlag]
		q = t.Node(0, int32(b.g.Frame(graph.Frame{Kind: graph.KindRoot, Class: "class " + c.name})))
	case p == 0:
		for _, f := range b.name(b.g, h.tree.start[v]) {
			q = t.Node(q, int32(f))
		}
	default:
		pv := p - 1
		pq, pleaf := int32(b.at[pv]), int32(b.at[pv]>>32)
		fr := b.fieldFrame(b.classOfLeaf[t.Nodes[pleaf].Class], o.slot[i])
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
	leaf := t.Node(q, int32(b.leafFrame(cls)))
	b.at[v] = uint64(uint32(q)) | uint64(uint32(leaf))<<32
	s := b.sums.at(leaf)
	s[0]++
	s[1] += shallow
	ret := o.ret[i]
	s[2] += ret
	// What v retains is in its dominator's retained size too: taken off
	// its parent's sample (v's dominator is on its path), or for a class
	// object, which starts paths of its own, off its dominator's.
	switch d := o.idom[i]; {
	case d == 0:
	case p != 0:
		b.sums.at(int32(b.at[p-1] >> 32))[2] -= ret
	default:
		// The dominator may come later in the walk: once all are placed.
		b.later = append(b.later, heldBy{d - 1, ret})
	}
}

// pathSums are the sums of the leaf nodes: objects, shallow bytes,
// retained, by node.
type pathSums [][3]int64

func (ps *pathSums) at(node int32) *[3]int64 {
	for int(node) >= len(*ps) {
		*ps = append(*ps, [3]int64{})
	}
	return &(*ps)[node]
}

func (b *pathsBuilder) leafFrame(cls uint32) graph.FrameID {
	i := cls &^ classObjFlag
	if cls&classObjFlag != 0 {
		i += uint32(len(b.h.fields.classes))
	}
	if f := b.leaf[i]; f != 0 {
		return f
	}
	name := b.h.fields.classes[cls&^classObjFlag].name
	if cls&classObjFlag != 0 {
		name += ".class"
	}
	f := b.g.Frame(graph.Frame{Kind: graph.KindClass, Class: name})
	b.leaf[i] = f
	for int(f) >= len(b.classOfLeaf) {
		b.classOfLeaf = append(b.classOfLeaf, 0)
	}
	b.classOfLeaf[f] = cls
	return f
}

func (b *pathsBuilder) fieldFrame(cls uint32, slot int32) int32 {
	k := uint64(cls)<<32 | uint64(uint32(slot))
	if k == b.lastField {
		return b.lastFrame
	}
	// By class (a class object's apart), then by slot: an instance's
	// field offset or array element, a class object's loader or static.
	ci := int(cls &^ classObjFlag)
	if cls&classObjFlag != 0 {
		ci += len(b.h.fields.classes)
	}
	cf := &b.field[ci]
	list, i := &cf.refs, int(slot)-int(slotLoader)
	switch {
	case slot == slotUnset:
		list, i = &cf.unset, 0
	case slot <= slotStatic0:
		list, i = &cf.statics, int(slotStatic0-slot)
	}
	for i >= len(*list) {
		*list = append(*list, 0)
	}
	f := (*list)[i]
	if f == 0 {
		class, field := b.h.fields.name(cls, slot)
		f = int32(b.g.Frame(graph.Frame{Kind: graph.KindField, Class: class, Method: field}))
		(*list)[i] = f
	}
	b.lastField, b.lastFrame = k, f
	return f
}

// classFields are the field frames of one class's slots (0: not named
// yet): refs by slot - slotLoader, statics by index.
type classFields struct {
	refs, statics, unset []int32
}

// view turns the sums into samples.
func (b *pathsBuilder) view() *graph.View {
	v := graph.NewPathsView()
	var stack []graph.FrameID
	var objects, shallow, ret int64
	for l := range b.sums {
		s := &b.sums[l]
		if s[0] == 0 {
			continue // a field node, or no object of its own
		}
		stack = stack[:0]
		for j := int32(l); j > 0; j = b.t.Nodes[j].Parent {
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
