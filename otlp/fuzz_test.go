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

// FuzzSplit: whatever the graph and however small the limits, the store
// shape split into parts gives valid requests, no sample without a frame,
// no part over the sample limit, and every column's total once.
func FuzzSplit(f *testing.F) {
	f.Add([]byte{}, uint8(3), uint16(4000))
	f.Add([]byte("hprof2pprof otlp seed with a few more bytes to spend on stacks and labels"), uint8(1), uint16(1500))
	f.Fuzz(func(t *testing.T, data []byte, maxSamples uint8, maxBytes uint16) {
		g := graphFromBytes(data)
		lim := otlp.Limits{MaxSamples: int(maxSamples), MaxBytes: int(maxBytes)}
		parts, err := otlp.Split(g, nil, otlp.Options{Store: &otlp.StoreOptions{}}, lim)
		if err != nil {
			return // a limit too small for one sample is a reported error
		}
		v := g.Views[0]
		got := map[string]int64{}
		for _, p := range parts {
			if err := otlp.Validate(p.Req); err != nil {
				t.Fatal(err)
			}
			for _, pr := range resolve(t, requestAsData(t, p.Req)) {
				if lim.MaxSamples > 0 && len(pr.Samples) > lim.MaxSamples {
					t.Errorf("part %d/%d: %d samples over %d", p.Index, p.Count, len(pr.Samples), lim.MaxSamples)
				}
				for _, s := range pr.Samples {
					if len(s.Funcs) == 0 {
						t.Errorf("a sample with no frame")
					}
				}
				got[pr.Type] += pr.total()
			}
		}
		for col, total := range v.Totals() {
			if st := v.SampleTypes[col].Type; got[st] != total {
				t.Errorf("%s: parts total %d, want %d", st, got[st], total)
			}
		}
	})
}
