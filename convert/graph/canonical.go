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
	newStack := make([]StackID, len(g.Stacks))
	newFrame := make([]FrameID, len(g.Frames))
	stacks := []Stack{nil}
	frames := []Frame{{}}
	useFrame := func(f FrameID) {
		if f != 0 && newFrame[f] == 0 {
			newFrame[f] = FrameID(len(frames))
			frames = append(frames, g.Frames[f])
		}
	}
	useStack := func(s StackID) {
		if s == 0 || newStack[s] != 0 {
			return
		}
		newStack[s] = StackID(len(stacks))
		stacks = append(stacks, g.Stacks[s])
		for _, f := range g.Stacks[s] {
			useFrame(f)
		}
	}
	for _, v := range g.Views {
		for _, s := range v.Samples {
			useStack(s.Stack)
		}
	}
	for _, t := range g.Threads {
		useStack(t.Stack)
	}
	var restStacks []StackID
	for s := 1; s < len(g.Stacks); s++ {
		if newStack[s] == 0 {
			restStacks = append(restStacks, StackID(s))
		}
	}
	slices.SortFunc(restStacks, g.CompareStacks)
	for _, s := range restStacks {
		useStack(s)
	}
	var restFrames []FrameID
	for f := 1; f < len(g.Frames); f++ {
		if newFrame[f] == 0 {
			restFrames = append(restFrames, FrameID(f))
		}
	}
	slices.SortFunc(restFrames, func(a, b FrameID) int { return compareFrames(g.Frames[a], g.Frames[b]) })
	for _, f := range restFrames {
		useFrame(f)
	}

	g.stackIdx = make(map[string]StackID, len(stacks))
	for i, st := range stacks {
		if i == 0 {
			continue
		}
		out := make(Stack, len(st))
		for j, f := range st {
			out[j] = newFrame[f]
		}
		stacks[i] = out
		g.stackIdx[stackKey(out)] = StackID(i)
	}
	g.frameIdx = make(map[Frame]FrameID, len(frames))
	for i, f := range frames[1:] {
		g.frameIdx[f] = FrameID(i + 1)
	}
	for _, v := range g.Views {
		for i := range v.Samples {
			v.Samples[i].Stack = newStack[v.Samples[i].Stack]
		}
	}
	for i := range g.Threads {
		g.Threads[i].Stack = newStack[g.Threads[i].Stack]
	}
	g.Frames, g.Stacks = frames, stacks
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
	)
}
