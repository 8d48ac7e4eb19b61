package graph

import (
	"reflect"
	"testing"
)

// TestCanonicalize: two graphs of the same samples, whose frames and
// stacks were interned in different orders (and one with a stack and a
// frame nothing uses), come out with the same ids; samples and threads
// keep their stacks' frames; interning goes on from the new numbering.
func TestCanonicalize(t *testing.T) {
	frames := []Frame{
		{Kind: KindMethod, Class: "a.B", Method: "run", Line: 3},
		{Kind: KindClass, Class: "byte[]"},
		{Kind: KindPackage, Class: "a"},
		{Kind: KindMethod, Class: "a.C", Method: "call", Line: 7},
	}
	build := func(order []int, extra bool) *Graph {
		g := New()
		ids := make([]FrameID, len(frames))
		for _, i := range order {
			ids[i] = g.Frame(frames[i])
		}
		if extra {
			g.Stack([]FrameID{g.Frame(Frame{Kind: KindRoot, Class: "unused"})})
		}
		s1 := g.Stack([]FrameID{ids[1], ids[0], ids[3]})
		s2 := g.Stack([]FrameID{ids[2]})
		if order[0] == 3 {
			s2, s1 = g.Stack([]FrameID{ids[2]}), g.Stack([]FrameID{ids[1], ids[0], ids[3]})
		}
		v := &View{Name: "heap", SampleTypes: []ValueType{{"inuse_space", "bytes"}}}
		v.Samples = []Sample{{Stack: s1, Values: []int64{10}}, {Stack: s2, Values: []int64{5}}}
		g.Views = []*View{v}
		g.Threads = []Thread{{Name: "main", Stack: s1}}
		return g
	}
	names := func(g *Graph, s StackID) []string {
		var out []string
		for _, f := range g.Stacks[s] {
			out = append(out, g.Frames[f].Class)
		}
		return out
	}
	a, b := build([]int{0, 1, 2, 3}, false), build([]int{3, 2, 1, 0}, true)
	a.Canonicalize()
	b.Canonicalize()
	if !reflect.DeepEqual(a.Frames, b.Frames[:len(a.Frames)]) || !reflect.DeepEqual(a.Stacks, b.Stacks[:len(a.Stacks)]) {
		t.Fatalf("frames %v / %v\nstacks %v / %v", a.Frames, b.Frames, a.Stacks, b.Stacks)
	}
	if len(b.Stacks) != len(a.Stacks)+1 || b.Frames[len(b.Frames)-1].Class != "unused" {
		t.Errorf("what no sample uses does not follow the rest: %v %v", b.Stacks, b.Frames)
	}
	for _, g := range []*Graph{a, b} {
		if got := names(g, g.Views[0].Samples[0].Stack); !reflect.DeepEqual(got, []string{"byte[]", "a.B", "a.C"}) {
			t.Errorf("first sample's stack: %v", got)
		}
		if got := names(g, g.Threads[0].Stack); !reflect.DeepEqual(got, []string{"byte[]", "a.B", "a.C"}) {
			t.Errorf("thread's stack: %v", got)
		}
		if g.Views[0].Samples[0].Stack != 1 || g.Frame(frames[1]) != 1 || g.Stack([]FrameID{4}) != 2 {
			t.Errorf("not numbered in order of use, or interning lost: %v", g.Stacks)
		}
		if id := g.Frame(Frame{Class: "new"}); int(id) != len(g.Frames)-1 {
			t.Errorf("a new frame got id %d of %d", id, len(g.Frames))
		}
	}
}
