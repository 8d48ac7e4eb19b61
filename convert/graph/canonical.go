package graph

import (
	"cmp"
	"slices"
)

// Canonicalize renumbers frames and stacks in the order the views'
// samples (in their sorted order, SortSamples) and then the threads first
// use them; stacks and frames that nothing uses follow, sorted. Decoders
// intern them in whatever order they meet classes and traces (a map's,
// or parallel workers'), so without it the ids the emitters write
// (Parquet's stack_id and frame_id, OTLP's dictionary indexes) would
// differ from run to run while the profiles do not. Interning goes on
// after it as before.
func (g *Graph) Canonicalize() {
	r := newRenumbering(g)
	r.useSampled()
	r.useUnusedStacks()
	r.useUnusedFrames()
	r.apply()
}

// renumbering is the new order of a graph's frames and stacks while
// Canonicalize builds it: newStack and newFrame map an old id to its new
// one (0 while not yet placed), stacks and frames are the tables in the
// new order (stacks still naming old frame ids until apply).
type renumbering struct {
	g        *Graph
	newStack []StackID
	newFrame []FrameID
	stacks   []Stack
	frames   []Frame
}

func newRenumbering(g *Graph) *renumbering {
	return &renumbering{
		g:        g,
		newStack: make([]StackID, len(g.Stacks)),
		newFrame: make([]FrameID, len(g.Frames)),
		stacks:   []Stack{nil},
		frames:   []Frame{{}},
	}
}

// useFrame gives frame f the next new id, unless it has one.
func (r *renumbering) useFrame(f FrameID) {
	if f != 0 && r.newFrame[f] == 0 {
		r.newFrame[f] = FrameID(len(r.frames))
		r.frames = append(r.frames, r.g.Frames[f])
	}
}

// useStack gives stack s the next new id, unless it has one, and then
// its frames theirs, leaf first.
func (r *renumbering) useStack(s StackID) {
	if s == 0 || r.newStack[s] != 0 {
		return
	}
	r.newStack[s] = StackID(len(r.stacks))
	r.stacks = append(r.stacks, r.g.Stacks[s])
	for _, f := range r.g.Stacks[s] {
		r.useFrame(f)
	}
}

// useSampled numbers the stacks the views' samples use, in sample
// order, then those of the threads.
func (r *renumbering) useSampled() {
	for _, v := range r.g.Views {
		for _, s := range v.Samples {
			r.useStack(s.Stack)
		}
	}
	for _, t := range r.g.Threads {
		r.useStack(t.Stack)
	}
}

// useUnusedStacks numbers the stacks nothing uses, in CompareStacks
// order.
func (r *renumbering) useUnusedStacks() {
	var rest []StackID
	for s := 1; s < len(r.g.Stacks); s++ {
		if r.newStack[s] == 0 {
			rest = append(rest, StackID(s))
		}
	}
	slices.SortFunc(rest, r.g.CompareStacks)
	for _, s := range rest {
		r.useStack(s)
	}
}

// useUnusedFrames numbers the frames no stack uses, in compareFrames
// order.
func (r *renumbering) useUnusedFrames() {
	var rest []FrameID
	for f := 1; f < len(r.g.Frames); f++ {
		if r.newFrame[f] == 0 {
			rest = append(rest, FrameID(f))
		}
	}
	frames := r.g.Frames
	slices.SortFunc(rest, func(a, b FrameID) int { return compareFrames(frames[a], frames[b]) })
	for _, f := range rest {
		r.useFrame(f)
	}
}

// apply rewrites the stacks in new frame ids, rebuilds the interning
// indexes, points samples and threads at the new stack ids and installs
// the new tables.
func (r *renumbering) apply() {
	g := r.g
	g.stackIdx = make(map[string]StackID, len(r.stacks))
	for i, st := range r.stacks {
		if i == 0 {
			continue
		}
		out := make(Stack, len(st))
		for j, f := range st {
			out[j] = r.newFrame[f]
		}
		r.stacks[i] = out
		g.stackIdx[stackKey(out)] = StackID(i)
	}
	g.frameIdx = make(map[Frame]FrameID, len(r.frames))
	for i, f := range r.frames[1:] {
		g.frameIdx[f] = FrameID(i + 1)
	}
	for _, v := range g.Views {
		for i := range v.Samples {
			v.Samples[i].Stack = r.newStack[v.Samples[i].Stack]
		}
	}
	for i := range g.Threads {
		g.Threads[i].Stack = r.newStack[g.Threads[i].Stack]
	}
	g.Frames, g.Stacks = r.frames, r.stacks
}

// compareFrames is a total order of frames, for those no stack uses.
func compareFrames(a, b Frame) int {
	return cmp.Or(
		cmp.Compare(a.Kind, b.Kind),
		cmp.Compare(a.Class, b.Class),
		cmp.Compare(a.Method, b.Method),
		cmp.Compare(a.Signature, b.Signature),
		cmp.Compare(a.File, b.File),
		cmp.Compare(a.Line, b.Line),
		cmp.Compare(a.RawClass, b.RawClass),
	)
}
