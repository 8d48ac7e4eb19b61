package otlp_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	profilespb "go.opentelemetry.io/proto/otlp/profiles/v1development"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/otlp"
)

var dumpTime = time.Date(2026, 11, 21, 10, 30, 0, 0, time.UTC)

// javaGraph builds a graph by hand the way the binary decoder would for
// a small hprof-agent run: CPU samples on two threads, allocation sites,
// a heap histogram by package path, and thread stacks.
func javaGraph() *graph.Graph {
	g := graph.New()
	g.Source = graph.Source{
		Path: "/data/app-cpu.hprof.gz", Format: "hprof-binary", Version: "JAVA PROFILE 1.0.2",
		IDSize: 8, Time: dumpTime, Writer: "hprof agent", Bytes: 12345,
	}
	m := func(class, method, sig, file string, line int32) graph.FrameID {
		return g.Frame(graph.Frame{Kind: graph.KindMethod, Class: class, Method: method, Signature: sig, File: file, Line: line})
	}
	resize := m("java.util.HashMap", "resize", "()[Ljava/util/HashMap$Node;", "HashMap.java", 676)
	put := m("java.util.HashMap", "putVal", "(ILjava/lang/Object;Ljava/lang/Object;ZZ)Ljava/lang/Object;", "HashMap.java", 635)
	work := m("com.example.Work$Inner", "<init>", "(I)V", "Work.java", 42)
	main := m("com.example.Main", "main", "([Ljava/lang/String;)V", "Main.java", 17)
	arraycopy := m("java.lang.System", "arraycopy", "(Ljava/lang/Object;ILjava/lang/Object;II)V", "System.java", graph.LineNative)
	run := m("java.lang.Thread", "run", "()V", "Thread.java", graph.LineUnknown)

	s1 := g.Stack([]graph.FrameID{resize, put, work, main})
	s2 := g.Stack([]graph.FrameID{arraycopy, resize, put, run})
	s3 := g.Stack([]graph.FrameID{work, main})

	cpu := graph.NewCPUView(graph.DefaultCPUInterval)
	cpu.Time, cpu.Duration = dumpTime, 3*time.Second
	cpu.Comments = []string{"CPU SAMPLES total 120", "interval assumed 10ms"}
	a := graph.NewAggregator(cpu)
	iv := int64(graph.DefaultCPUInterval)
	a.Add(s1, []graph.Label{{Key: graph.LabelThread, Str: "main"}}, 70, 70*iv)
	a.Add(s2, []graph.Label{{Key: graph.LabelThread, Str: "worker-1"}}, 40, 40*iv)
	a.Add(s3, []graph.Label{{Key: graph.LabelThread, Str: "main"}}, 10, 10*iv)
	g.AddView(cpu)

	alloc := graph.NewAllocView()
	alloc.Time = dumpTime
	a = graph.NewAggregator(alloc)
	a.Add(g.WithLeaf(s1, "java.util.HashMap$Node[]"), []graph.Label{{Key: graph.LabelClass, Str: "java.util.HashMap$Node[]"}}, 12, 4096, 3, 1024)
	a.Add(g.WithLeaf(s3, "com.example.Work$Inner"), []graph.Label{{Key: graph.LabelClass, Str: "com.example.Work$Inner"}}, 1000, 24000, 0, 0)
	a.Add(g.WithLeaf(s2, "int[]"), nil, 5, 800, 5, 800)
	g.AddView(alloc)

	heap := graph.NewHeapView()
	a = graph.NewAggregator(heap)
	a.Add(g.ClassStack("java.util.HashMap$Node"), []graph.Label{{Key: graph.LabelHeap, Str: "app"}}, 300, 9600)
	a.Add(g.ClassStack("int[]"), nil, 20, 16400)
	a.Add(g.ClassStack("java.lang.String[][]"), []graph.Label{{Key: "retained", Num: 4096, Unit: "bytes"}}, 2, 64)
	g.AddView(heap)

	th := graph.NewThreadsView()
	a = graph.NewAggregator(th)
	a.Add(s1, []graph.Label{{Key: graph.LabelThread, Str: "main"}, {Key: graph.LabelState, Str: "runnable"}}, 1)
	a.Add(s2, []graph.Label{{Key: graph.LabelThread, Str: "worker-1"}, {Key: graph.LabelState, Str: "waiting"}}, 1)
	a.Add(0, []graph.Label{{Key: graph.LabelThread, Str: "Signal Dispatcher"}, {Key: graph.LabelState, Str: "runnable"}}, 1)
	g.AddView(th)
	return g
}

// expectedKeys computes, from the graph alone, what the reader should
// find for one column of a view: stack functions and labels by key.
func expectedKeys(g *graph.Graph, v *graph.View, col int) map[string]int64 {
	want := map[string]int64{}
	for _, s := range v.Samples {
		if s.Values[col] == 0 {
			continue
		}
		var fns []string
		for _, f := range g.Stacks[s.Stack] {
			fns = append(fns, g.Frames[f].Function())
		}
		labels := map[string]string{}
		for _, l := range s.Labels {
			val := l.Str
			if val == "" && (l.Num != 0 || l.Unit != "") {
				val = fmt.Sprint(l.Num)
				if l.Unit != "" {
					val += " " + l.Unit
				}
			}
			labels[otlp.AttributeKey(l.Key)] = val
		}
		want[strings.Join(fns, ";")+" "+labelString(labels)] += s.Values[col]
	}
	return want
}

func TestBuildMatchesGraph(t *testing.T) {
	g := javaGraph()
	req, err := otlp.Build([]*graph.Graph{g}, otlp.Options{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if err := otlp.Validate(req); err != nil {
		t.Fatal(err)
	}
	profs := resolve(t, requestAsData(t, req))
	n := 0
	for _, v := range g.Views {
		n += len(v.SampleTypes)
	}
	if len(profs) != n {
		t.Fatalf("got %d profiles, want one per sample type: %d", len(profs), n)
	}
	i := 0
	for _, v := range g.Views {
		totals := v.Totals()
		for col, st := range v.SampleTypes {
			p := profs[i]
			i++
			name := v.Name + "/" + st.Type
			if p.view() != v.Name || p.Type != st.Type || p.Unit != st.Unit {
				t.Fatalf("profile %d is %s %s/%s, want %s/%s", i, p.view(), p.Type, p.Unit, name, st.Unit)
			}
			if got := p.total(); got != totals[col] {
				t.Errorf("%s: total %d, want %d", name, got, totals[col])
			}
			want := expectedKeys(g, v, col)
			got := p.byKey()
			for k, w := range want {
				if got[k] != w {
					t.Errorf("%s: %s = %d, want %d", name, k, got[k], w)
				}
			}
			for k, x := range got {
				if _, ok := want[k]; !ok {
					t.Errorf("%s: unexpected sample %s = %d", name, k, x)
				}
			}
			if want := v.PeriodType.Type + "/" + v.PeriodType.Unit; p.PeriodType != want || p.Period != v.Period {
				t.Errorf("%s: period %s %d, want %s %d", name, p.PeriodType, p.Period, want, v.Period)
			}
			if p.Time != uint64(dumpTime.UnixNano()) {
				t.Errorf("%s: time_unix_nano %d, want the header time %d", name, p.Time, dumpTime.UnixNano())
			}
			if p.Duration != uint64(v.Duration) {
				t.Errorf("%s: duration %d, want %d", name, p.Duration, v.Duration)
			}
			if p.Format != "hprof" {
				t.Errorf("%s: original_payload_format %q", name, p.Format)
			}
			if len(p.ID) != 16 {
				t.Errorf("%s: profile_id has %d bytes", name, len(p.ID))
			}
			if p.Scope["pprof.scope.default_sample_type"] != v.DefaultSampleType {
				t.Errorf("%s: default sample type %q, want %q", name, p.Scope["pprof.scope.default_sample_type"], v.DefaultSampleType)
			}
			if got, want := p.Attrs["pprof.profile.comment"], strings.Join(v.Comments, "\n"); got != want {
				t.Errorf("%s: comments %q, want %q", name, got, want)
			}
			for _, s := range p.Samples {
				for j, ty := range s.Types {
					if ty != "jvm" {
						t.Errorf("%s: frame %s has profile.frame.type %q", name, s.Funcs[j], ty)
					}
				}
				if len(s.Times) != 1 || s.Times[0] != p.Time {
					t.Errorf("%s: sample timestamps %v, want [%d]", name, s.Times, p.Time)
				}
			}
		}
	}
	r := profs[0].Resource
	for k, want := range map[string]string{
		"service.name": "app-cpu", "file.path": "/data/app-cpu.hprof.gz", "file.name": "app-cpu.hprof.gz",
		"hprof.version": "JAVA PROFILE 1.0.2", "hprof.format": "hprof-binary", "process.runtime.name": "java",
	} {
		if r[k] != want {
			t.Errorf("resource %s = %q, want %q", k, r[k], want)
		}
	}
}

// TestBuildFrames checks what one location carries: the Java function
// name, the JVM system name, file and line.
func TestBuildFrames(t *testing.T) {
	g := javaGraph()
	req, err := otlp.Build([]*graph.Graph{g}, otlp.Options{Views: []string{"cpu"}})
	if err != nil {
		t.Fatal(err)
	}
	profs := resolve(t, requestAsData(t, req))
	if len(profs) != 2 {
		t.Fatalf("cpu view gave %d profiles, want 2", len(profs))
	}
	var frames []string
	for _, s := range profs[0].Samples {
		if s.Labels["thread.name"] == "worker-1" {
			frames = s.Frames
		}
	}
	want := []string{
		"java.lang.System.arraycopy System.java:0 java.lang.System.arraycopy(Ljava/lang/Object;ILjava/lang/Object;II)V",
		"java.util.HashMap.resize HashMap.java:676 java.util.HashMap.resize()[Ljava/util/HashMap$Node;",
		"java.util.HashMap.putVal HashMap.java:635 java.util.HashMap.putVal(ILjava/lang/Object;Ljava/lang/Object;ZZ)Ljava/lang/Object;",
		"java.lang.Thread.run Thread.java:0 java.lang.Thread.run()V",
	}
	if strings.Join(frames, "\n") != strings.Join(want, "\n") {
		t.Errorf("worker-1 stack:\n%s\nwant:\n%s", strings.Join(frames, "\n"), strings.Join(want, "\n"))
	}
}

// TestBuildSharedDictionary: two inputs in one request share one
// dictionary with no duplicate strings, functions or stacks.
func TestBuildSharedDictionary(t *testing.T) {
	g1, g2 := javaGraph(), javaGraph()
	g2.Source.Path = "other.hprof"
	req, err := otlp.Build([]*graph.Graph{g1, g2}, otlp.Options{ServiceName: "shop"})
	if err != nil {
		t.Fatal(err)
	}
	if len(req.ResourceProfiles) != 2 {
		t.Fatalf("%d resources, want 2", len(req.ResourceProfiles))
	}
	d := req.Dictionary
	seen := map[string]bool{}
	for _, s := range d.StringTable {
		if seen[s] {
			t.Errorf("string %q twice in string_table", s)
		}
		seen[s] = true
	}
	fns := map[string]bool{}
	for _, f := range d.FunctionTable[1:] {
		k := fmt.Sprint(f.NameStrindex, f.SystemNameStrindex, f.FilenameStrindex)
		if fns[k] {
			t.Errorf("function %s twice", d.StringTable[f.NameStrindex])
		}
		fns[k] = true
	}
	if len(d.FunctionTable)-1 != len(g1.Frames)-1 {
		t.Errorf("%d functions for %d distinct frames", len(d.FunctionTable)-1, len(g1.Frames)-1)
	}
	profs := resolve(t, requestAsData(t, req))
	half := len(profs) / 2
	for i := range half {
		a, b := profs[i], profs[half+i]
		if a.total() != b.total() || labelString(toStr(a.byKey())) != labelString(toStr(b.byKey())) {
			t.Errorf("%s/%s differs between the two identical inputs", a.view(), a.Type)
		}
		if a.Resource["service.name"] != "shop" || b.Resource["service.name"] != "shop" {
			t.Errorf("service.name %q, %q, want the flag's shop", a.Resource["service.name"], b.Resource["service.name"])
		}
		if string(a.ID) == string(b.ID) {
			t.Errorf("%s/%s: both inputs got profile_id %x", a.view(), a.Type, a.ID)
		}
	}
}

func toStr(m map[string]int64) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		out[k] = fmt.Sprint(v)
	}
	return out
}

func TestBuildErrors(t *testing.T) {
	if _, err := otlp.Build(nil, otlp.Options{}); !errors.Is(err, otlp.ErrNoInput) {
		t.Errorf("no graphs: %v, want ErrNoInput", err)
	}
	if _, err := otlp.Build([]*graph.Graph{javaGraph()}, otlp.Options{Views: []string{"monitor"}}); !errors.Is(err, otlp.ErrNoView) ||
		!strings.Contains(err.Error(), "has cpu, alloc, heap, threads") {
		t.Errorf("missing view: %v, want ErrNoView listing the views", err)
	}
	g := javaGraph()
	g.View("cpu").Samples[0].Stack = 999
	if _, err := otlp.Build([]*graph.Graph{g}, otlp.Options{}); !errors.Is(err, otlp.ErrBadGraph) || !strings.Contains(err.Error(), "view cpu") {
		t.Errorf("stack out of range: %v, want ErrBadGraph naming the view", err)
	}
	g = javaGraph()
	g.View("alloc").Samples[1].Values = []int64{1}
	if _, err := otlp.Build([]*graph.Graph{g}, otlp.Options{}); !errors.Is(err, otlp.ErrBadGraph) {
		t.Errorf("short sample: %v, want ErrBadGraph", err)
	}
	g = javaGraph()
	g.Stacks = append(g.Stacks, graph.Stack{graph.FrameID(len(g.Frames))})
	g.View("heap").Samples[0].Stack = graph.StackID(len(g.Stacks) - 1)
	if _, err := otlp.Build([]*graph.Graph{g}, otlp.Options{}); !errors.Is(err, otlp.ErrBadGraph) {
		t.Errorf("frame out of range: %v, want ErrBadGraph", err)
	}
}

// TestValidateCatches breaks a good request in the ways the Collector
// does not notice, and expects Validate to name each.
func TestValidateCatches(t *testing.T) {
	cases := []struct {
		name   string
		break_ func(d *profilespb.ProfilesDictionary, p *profilespb.Profile)
		want   string
	}{
		{"string_table[0]", func(d *profilespb.ProfilesDictionary, _ *profilespb.Profile) { d.StringTable[0] = "x" }, "string_table[0]"},
		{"no zero function", func(d *profilespb.ProfilesDictionary, _ *profilespb.Profile) { d.FunctionTable = d.FunctionTable[1:] }, "function_table[0]"},
		{"empty stack table", func(d *profilespb.ProfilesDictionary, _ *profilespb.Profile) { d.StackTable = nil }, "stack_table is empty"},
		{"stack index", func(_ *profilespb.ProfilesDictionary, p *profilespb.Profile) { p.Samples[0].StackIndex = 99 }, "samples[0].stack_index = 99"},
		{"attribute index", func(_ *profilespb.ProfilesDictionary, p *profilespb.Profile) {
			p.Samples[1].AttributeIndices = []int32{-1}
		}, "samples[1].attribute_indices[0] = -1"},
		{"function name", func(d *profilespb.ProfilesDictionary, _ *profilespb.Profile) {
			d.FunctionTable[2].NameStrindex = 1 << 20
		}, "function_table[2].name_strindex"},
		{"location function", func(d *profilespb.ProfilesDictionary, _ *profilespb.Profile) {
			d.LocationTable[1].Lines[0].FunctionIndex = 500
		}, "location_table[1].lines[0].function_index"},
		{"timestamps", func(_ *profilespb.ProfilesDictionary, p *profilespb.Profile) {
			p.Samples[0].TimestampsUnixNano = []uint64{1, 2}
		}, "1 values but 2 timestamps"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, err := otlp.Build([]*graph.Graph{javaGraph()}, otlp.Options{})
			if err != nil {
				t.Fatal(err)
			}
			c.break_(req.Dictionary, req.ResourceProfiles[0].ScopeProfiles[0].Profiles[0])
			err = otlp.Validate(req)
			if !errors.Is(err, otlp.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Validate: %v, want ErrInvalid mentioning %q", err, c.want)
			}
		})
	}
}

func TestWriteFileRoundTrip(t *testing.T) {
	req, err := otlp.Build([]*graph.Graph{javaGraph()}, otlp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := resolve(t, requestAsData(t, req))
	for _, name := range []string{"p.pb", "p.json"} {
		path := filepath.Join(t.TempDir(), name)
		if err := otlp.WriteFile(path, req); err != nil {
			t.Fatal(err)
		}
		back, err := otlp.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		got := resolve(t, requestAsData(t, back))
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: read back differs", name)
		}
		if name == "p.json" {
			b, _ := os.ReadFile(path)
			id := fmt.Sprintf("%x", want[0].ID)
			if !strings.Contains(string(b), `"profileId":"`+id+`"`) {
				t.Errorf("OTLP-JSON should carry profileId as hex %s", id)
			}
			if !strings.Contains(string(b), `"resourceProfiles"`) {
				t.Errorf("OTLP-JSON should use lowerCamelCase names")
			}
		}
	}
}

// TestBuildResourceAttrs: extra resource attributes are added, replace a
// built-in one of the same key, and make the profile ids differ, while
// the ids without them stay what they were.
func TestBuildResourceAttrs(t *testing.T) {
	str := func(k, v string) *commonpb.KeyValue {
		return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v}}}
	}
	plain, err := otlp.Build([]*graph.Graph{javaGraph()}, otlp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	build := func(attrs ...*commonpb.KeyValue) []rProfile {
		req, err := otlp.Build([]*graph.Graph{javaGraph()}, otlp.Options{ResourceAttrs: attrs})
		if err != nil {
			t.Fatal(err)
		}
		if err := otlp.Validate(req); err != nil {
			t.Fatal(err)
		}
		return resolve(t, requestAsData(t, req))
	}
	base := resolve(t, requestAsData(t, plain))
	none := build()
	a := build(str("env", "prod"), str("service.name", "jvm-a"))
	b := build(str("env", "test"), str("service.name", "jvm-a"))
	for i := range base {
		if string(none[i].ID) != string(base[i].ID) {
			t.Errorf("profile %d: id changed with no extra attributes", i)
		}
		if string(a[i].ID) == string(base[i].ID) || string(a[i].ID) == string(b[i].ID) {
			t.Errorf("profile %d: extra attributes did not change the id", i)
		}
	}
	r := a[0].Resource
	if r["env"] != "prod" || r["service.name"] != "jvm-a" || r["process.runtime.name"] != "java" {
		t.Errorf("resource %v: want env=prod, service.name replaced, the rest kept", r)
	}
	if n := len(plain.ResourceProfiles[0].Resource.Attributes) + 1; n != len(r) {
		t.Errorf("%d resource attributes, want %d (one added, one replaced)", len(r), n)
	}
}
