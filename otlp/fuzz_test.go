package otlp_test

import (
	"fmt"
	"testing"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/otlp"
)

// graphFromBytes builds an arbitrary but well-formed graph from fuzz
// input: frames, stacks and samples chosen by the bytes.
func graphFromBytes(data []byte) *graph.Graph {
	g := graph.New()
	next := func() int {
		if len(data) == 0 {
			return 0
		}
		b := data[0]
		data = data[1:]
		return int(b)
	}
	classes := []string{"java.util.HashMap", "com.example.Main", "int[]", "java.lang.String", ""}
	var frames []graph.FrameID
	for range next()%12 + 1 {
		frames = append(frames, g.Frame(graph.Frame{
			Kind: graph.FrameKind(next() % 4), Class: classes[next()%len(classes)],
			Method: fmt.Sprintf("m%d", next()%5), Line: int32(next()%8) - 3,
		}))
	}
	v := graph.NewAllocView()
	a := graph.NewAggregator(v)
	for range next() % 20 {
		var st []graph.FrameID
		for range next() % 6 {
			st = append(st, frames[next()%len(frames)])
		}
		var labels []graph.Label
		if next()%2 == 0 {
			labels = append(labels, graph.Label{Key: graph.LabelThread, Str: fmt.Sprintf("t%d", next()%3)})
		}
		if next()%3 == 0 {
			labels = append(labels, graph.Label{Key: "bytes", Num: int64(next()), Unit: "bytes"})
		}
		a.Add(g.Stack(st), labels, int64(next()), int64(next()<<8), int64(next()%2), int64(next()))
	}
	g.AddView(v)
	return g
}

// FuzzBuild: whatever the graph, the request is valid, the independent
// reader can resolve it, and every column's total is the view's.
func FuzzBuild(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("hprof2pprof otlp seed with a few more bytes to spend on stacks and labels"))
	f.Fuzz(func(t *testing.T, data []byte) {
		g := graphFromBytes(data)
		req, err := otlp.Build([]*graph.Graph{g}, otlp.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := otlp.Validate(req); err != nil {
			t.Fatal(err)
		}
		profs := resolve(t, requestAsData(t, req))
		v := g.Views[0]
		for col, total := range v.Totals() {
			if got := profs[col].total(); got != total {
				t.Errorf("%s: total %d, want %d", v.SampleTypes[col].Type, got, total)
			}
		}
	})
}
