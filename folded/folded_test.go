package folded

import (
	"bytes"
	"errors"
	"testing"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
)

func testGraph() *graph.Graph {
	g := graph.New()
	run := g.Frame(graph.Frame{Class: "java.lang.Thread", Method: "run"})
	work := g.Frame(graph.Frame{Class: "com.example.W", Method: "work", Line: 10})
	odd := g.Frame(graph.Frame{Class: "weird;name\nhere", Method: "m"})
	s1 := g.Stack([]graph.FrameID{work, run}) // leaf first
	s2 := g.Stack([]graph.FrameID{odd, run})
	v := graph.NewCPUView(0)
	v.Samples = []graph.Sample{
		{Stack: s1, Values: []int64{2, 20}, Labels: []graph.Label{{Key: "thread", Str: "a"}}},
		{Stack: s1, Values: []int64{3, 30}, Labels: []graph.Label{{Key: "thread", Str: "b"}}},
		{Stack: s2, Values: []int64{1, 10}},
		{Stack: 0, Values: []int64{4, 40}},
		{Stack: s2, Values: []int64{0, 0}, Labels: []graph.Label{{Key: "thread", Str: "c"}}},
	}
	g.AddView(v)
	return g
}

func TestWrite(t *testing.T) {
	g := testGraph()
	var b bytes.Buffer
	if err := Write(&b, g, "cpu", "samples"); err != nil {
		t.Fatal(err)
	}
	want := "(no stack) 4\n" +
		"java.lang.Thread.run;com.example.W.work 5\n" +
		"java.lang.Thread.run;weird:name here.m 1\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	if err := Write(&b, g, "cpu", ""); err != nil {
		t.Fatal(err)
	}
	if SampleType(g.View("cpu")) != "cpu" || !bytes.Contains(b.Bytes(), []byte("com.example.W.work 50\n")) {
		t.Errorf("default sample type: %s", b.String())
	}
	if err := Write(&b, g, "heap", ""); !errors.Is(err, ErrNoView) {
		t.Errorf("missing view: %v", err)
	}
	if err := Write(&b, g, "cpu", "bytes"); !errors.Is(err, ErrNoSampleType) {
		t.Errorf("missing sample type: %v", err)
	}
}

// Stacks whose frames differ only in their system names (two hidden
// classes normalised to one name) are one line, their values summed.
func TestWriteSumsStacksAlikeInName(t *testing.T) {
	g := graph.New()
	run := g.Frame(graph.Frame{Class: "java.lang.Thread", Method: "run"})
	a := g.Frame(graph.Frame{Class: "Foo$$Lambda", RawClass: "Foo$$Lambda$1.0x10", Method: "run"})
	b := g.Frame(graph.Frame{Class: "Foo$$Lambda", RawClass: "Foo$$Lambda$2.0x20", Method: "run"})
	v := graph.NewCPUView(0)
	v.Samples = []graph.Sample{
		{Stack: g.Stack([]graph.FrameID{a, run}), Values: []int64{2, 20}},
		{Stack: g.Stack([]graph.FrameID{b, run}), Values: []int64{3, 30}},
	}
	g.AddView(v)
	var out bytes.Buffer
	if err := Write(&out, g, "cpu", "samples"); err != nil {
		t.Fatal(err)
	}
	if want := "java.lang.Thread.run;Foo$$Lambda.run 5\n"; out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}
