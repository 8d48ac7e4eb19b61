package convert

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/internal/testhooks"
	"github.com/hprof2pprof/hprof2pprof/convert/retained"
	"github.com/hprof2pprof/hprof2pprof/pprofout"
)

// The paths view and the suspects report against answers known without
// this program: what the programs that made the dumps hold, and how
// (testdata/src/holders/Holders.java, the workloads' corpus.Oom), and
// LeakCanary's own account of its test dumps.

// pathsOf converts path with the paths, retained and heap views and the
// suspects report q asks for; probe gets the analysis.
func pathsOf(t *testing.T, path string, q *retained.SuspectQuery) (*graph.Graph, *testhooks.Retained) {
	t.Helper()
	probe := &testhooks.Retained{}
	ctx := testhooks.With(context.Background(), testhooks.Hooks{Retained: probe})
	g, err := ConvertFile(ctx, path, Options{Views: []string{graph.ViewPaths, graph.ViewRetained, graph.ViewHeap}, Suspects: q})
	if err != nil {
		t.Fatal(err)
	}
	if g.View(graph.ViewPaths) == nil || probe.Result == nil {
		t.Fatalf("no paths view: %v", g.Source.Notes)
	}
	return g, probe
}

// pprofSamples parses view of g as go tool pprof does: each sample's
// function names, root first, and its values by sample type.
func pprofSamples(t *testing.T, g *graph.Graph, view string) ([][]string, []map[string]int64) {
	t.Helper()
	var buf bytes.Buffer
	if err := pprofout.Write(&buf, g, view); err != nil {
		t.Fatal(err)
	}
	p, err := profile.Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	var stacks [][]string
	var values []map[string]int64
	for _, s := range p.Sample {
		var fs []string
		for _, loc := range s.Location {
			for _, ln := range loc.Line {
				fs = append(fs, ln.Function.Name)
			}
		}
		slices.Reverse(fs)
		v := map[string]int64{}
		for i, st := range p.SampleType {
			v[st.Type] = s.Value[i]
		}
		stacks, values = append(stacks, fs), append(values, v)
	}
	return stacks, values
}

// TestPathsByHand: each way Holders.java holds its objects, written out
// by hand, is the stack of those objects in the paths view and their
// merged path in the report; what only garbage or a WeakReference holds
// is in neither.
func TestPathsByHand(t *testing.T) {
	const dump = "../testdata/jdk17-holders.hprof.gz"
	re := regexp.MustCompile(`^holders\.Holders\$(StaticLeaf|TlValue|Listener|CycleA|CycleB|GarbageA|GarbageB|WeakOnly)$`)
	g, probe := pathsOf(t, dump, &retained.SuspectQuery{Class: re.MatchString, Pattern: re.String()})
	list := []string{"java.util.ArrayList.elementData", "java.lang.Object[] [*]"}
	want := map[string]struct {
		n      int64
		frames []string
	}{
		"holders.Holders$StaticLeaf": {100, append([]string{"class holders.Holders", "holders.Holders.STATIC_LIST"}, list...)},
		"holders.Holders$TlValue": {10, []string{`thread "holder-thread"`, "java.lang.Thread.threadLocals",
			"java.lang.ThreadLocal$ThreadLocalMap.table", "java.lang.ThreadLocal$ThreadLocalMap$Entry[] [*]",
			"java.lang.ThreadLocal$ThreadLocalMap$Entry.value", "java.util.HashMap.table", "java.util.HashMap$Node[] [*]",
			"java.util.HashMap$Node.value"}},
		"holders.Holders$Listener": {5, append([]string{"class holders.Holders$Registry", "holders.Holders$Registry.LISTENERS"}, list...)},
		"holders.Holders$CycleA":   {1, []string{"class holders.Holders", "holders.Holders.CYCLE"}},
		"holders.Holders$CycleB":   {1, []string{"class holders.Holders", "holders.Holders.CYCLE", "holders.Holders$CycleA.b"}},
	}
	// The report's merged paths.
	rep := g.Suspects
	if rep == nil {
		t.Fatalf("no report: %v", g.Source.Notes)
	}
	if rep.Instances != 117 {
		t.Errorf("%d reachable instances, want 117 (100 + 10 + 5 + 1 + 1; no garbage, nothing only weakly held)", rep.Instances)
	}
	for _, m := range rep.Merged {
		w, ok := want[m.Class]
		if !ok {
			t.Errorf("%d %s held by %q: not held", m.Objects, m.Class, m.Frames)
			continue
		}
		if m.Objects != w.n || !slices.Equal(m.Frames, w.frames) {
			t.Errorf("%s: %d objects by %q, want %d by %q", m.Class, m.Objects, m.Frames, w.n, w.frames)
		}
	}
	if len(rep.Merged) != len(want) {
		t.Errorf("%d merged paths, want %d", len(rep.Merged), len(want))
	}
	// The paths view as go tool pprof reads it.
	stacks, values := pprofSamples(t, g, graph.ViewPaths)
	got := map[string]int64{}
	for i, fs := range stacks {
		leaf := fs[len(fs)-1]
		if w, ok := want[leaf]; ok {
			got[leaf] += values[i]["path_objects"]
			if !slices.Equal(fs[:len(fs)-1], w.frames) {
				t.Errorf("%s under %q, want %q", leaf, fs[:len(fs)-1], w.frames)
			}
		}
		if strings.HasSuffix(leaf, "$GarbageA") || strings.HasSuffix(leaf, "$GarbageB") || strings.HasSuffix(leaf, "$WeakOnly") {
			t.Errorf("%s is in the paths view under %q: nothing strong holds it", leaf, fs)
		}
	}
	for c, w := range want {
		if got[c] != w.n {
			t.Errorf("paths view: %d %s, want %d", got[c], c, w.n)
		}
	}
	// Sizes by hand, each reached and retained through its static alone
	// (12-byte headers, 4-byte references). The held cycle: a CycleA and a
	// CycleB of 16 bytes each (a header and one reference): 32.
	// STATIC_LIST: the ArrayList (12 + size, modCount, elementData: 24),
	// its Object[] grown 10, 15, 22, 33, 49, 73, 109 (16 + 109 × 4 = 452,
	// aligned 456), 100 StaticLeaf (12 + an int: 16): 2080. LISTENERS: an
	// ArrayList (24), an Object[10] (56), 5 Listener (16) and their names
	// "listener-i" (a String of 24 and a byte[10] of 32): 440.
	for field, want := range map[string]int64{"holders.Holders.CYCLE": 32, "holders.Holders.STATIC_LIST": 2080, "holders.Holders$Registry.LISTENERS": 440} {
		var cum [2]int64
		for i, fs := range stacks {
			if slices.Contains(fs, field) {
				cum[0] += values[i]["path_space"]
				cum[1] += values[i]["path_retained"]
			}
		}
		if cum != [2]int64{want, want} {
			t.Errorf("under %s: %d bytes reached, %d retained; want %d and %d", field, cum[0], cum[1], want, want)
		}
	}
	checkPathTotals(t, g, probe.Result)
}

// checkPathTotals: the paths view holds each reachable object once, as
// the retained view does, and its path_retained sums to their bytes.
func checkPathTotals(t *testing.T, g *graph.Graph, res *retained.Result) {
	t.Helper()
	pt := g.View(graph.ViewPaths).Totals()
	rt := g.View(graph.ViewRetained).Totals()
	st := res.Stats
	if pt[0] != int64(st.Reachable) || pt[0] != rt[0] || pt[1] != st.ReachableBytes || pt[1] != rt[1] || pt[2] != st.ReachableBytes {
		t.Errorf("paths view %v objects/shallow/retained, retained view %v, reachable %d objects %d bytes", pt, rt, st.Reachable, st.ReachableBytes)
	}
	// Reachable and unreachable bytes are the heap view's (which counts
	// no Android class objects, of 0 bytes).
	ht := g.View(graph.ViewHeap).Totals()
	if ht[1] != pt[1]+st.UnreachableBytes {
		t.Errorf("heap view %v objects/bytes; paths %v + unreachable %d objects %d bytes", ht, pt[:2], st.Unreachable, st.UnreachableBytes)
	}
}

// TestOomLeakSuspects: on an OutOfMemoryError dump of the workloads'
// leak mode (1 KiB byte[] chunks added to the static ArrayList
// corpus.Oom.LEAK by a lambda main runs), the report names the list
// with most of the heap, its Object[] of byte[], and the paths from the
// thread's frame and the static field; the paths view names the field.
func TestOomLeakSuspects(t *testing.T) {
	g, probe := pathsOf(t, "../testdata/jdk17-oom-leak.hprof.gz", &retained.SuspectQuery{})
	rep := g.Suspects
	if rep == nil || len(rep.Suspects) == 0 {
		t.Fatalf("no suspect: %+v", rep)
	}
	s := rep.Suspects[0]
	if s.Group || s.Object.Class != "java.util.ArrayList" || s.Share < 0.8 {
		t.Fatalf("first suspect %s (group %v) with %.1f%%, want the ArrayList with 80%% or more", s.Object.Class, s.Group, 100*s.Share)
	}
	acc := s.Chain[len(s.Chain)-1]
	if acc.Class != "java.lang.Object[]" || len(s.Holds) == 0 || s.Holds[0].Class != "byte[]" || s.Holds[0].Objects < 1000 {
		t.Errorf("accumulation point %s holding %+v, want an Object[] of byte[]", acc.Class, s.Holds)
	}
	var frame, static bool
	for _, p := range s.Paths {
		last := p.Steps[len(p.Steps)-1].Object
		if last.ID != s.Object.ID {
			t.Errorf("path %+v does not end at the suspect", p)
		}
		frame = frame || (p.Kind == "Java frame" && strings.HasPrefix(p.Root, `thread "main" at corpus.Oom.lambda$main$0 (Oom.java:`))
		static = static || (p.Root == "class corpus.Oom" && len(p.Steps) == 2 && p.Steps[1].Field == "corpus.Oom.LEAK")
	}
	if !frame || !static {
		t.Errorf("paths %+v: from main's frame %v, from corpus.Oom.LEAK %v", s.Paths, frame, static)
	}
	stacks, _ := pprofSamples(t, g, graph.ViewPaths)
	field := false
	for _, fs := range stacks {
		field = field || slices.Contains(fs, "java.util.ArrayList.elementData") && fs[len(fs)-1] == "byte[]"
	}
	if !field {
		t.Error("no byte[] under java.util.ArrayList.elementData in the paths view")
	}
	checkPathTotals(t, g, probe.Result)
}

// TestLeakCanaryPaths: LeakCanary's tests say where the leaked
// LeakyService of their dumps is held: a Binder stub the system holds
// as a JNI global, whose `service` field refers to it; in the first
// dump also the binders' list the static LeakyService.leakAllTheBinders
// holds (in the second that list is empty). `suspects --class` shows the
// JNI global path and, besides it, a path from a static field.
func TestLeakCanaryPaths(t *testing.T) {
	files, _ := filepath.Glob("../../shared/corpus/external/leakcanary-*.hprof")
	if len(files) == 0 {
		t.Skip("../shared/corpus not present")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			g, probe := pathsOf(t, f, &retained.SuspectQuery{Class: regexp.MustCompile(`LeakyService$`).MatchString})
			rep := g.Suspects
			var jni, static, binders bool
			for _, p := range rep.RootPaths {
				last := p.Steps[len(p.Steps)-1]
				if last.Object.Class != "com.example.leakcanary.LeakyService" {
					t.Errorf("path %+v ends elsewhere", p)
				}
				jni = jni || (p.Kind == "JNI global" && len(p.Steps) == 2 && p.Steps[0].Object.Class == "com.example.leakcanary.LeakyService$MyBinder" &&
					last.Field == "com.example.leakcanary.LeakyService$MyBinder.service")
				static = static || p.Kind == "static field"
				binders = binders || (p.Root == "class com.example.leakcanary.LeakyService" && p.Steps[1].Field == "com.example.leakcanary.LeakyService.leakAllTheBinders" &&
					last.Field == "com.example.leakcanary.LeakyService$MyBinder.service")
			}
			if !jni || !static {
				t.Errorf("JNI global path %v, static field path %v: %+v", jni, static, rep.RootPaths)
			}
			if strings.HasSuffix(f, "binder.hprof") && !binders {
				t.Errorf("no path through LeakyService.leakAllTheBinders: %+v", rep.RootPaths)
			}
			checkPathTotals(t, g, probe.Result)
		})
	}
}

// TestPathsSpilled: when the analysis spills its arrays to files, the
// paths' arrays go there too; the paths view and the report are the
// same as in memory.
func TestPathsSpilled(t *testing.T) {
	if !retained.CanSpill {
		t.Skip("no mapped files here")
	}
	const dump = "../testdata/jdk17-oom-leak.hprof.gz"
	var outs [2]string
	for i, budget := range []int64{0, -1} {
		g, err := ConvertFile(context.Background(), dump, Options{Views: []string{graph.ViewPaths}, RetainedMemory: budget,
			SpillDir: t.TempDir(), Suspects: &retained.SuspectQuery{}})
		if err != nil {
			t.Fatal(err)
		}
		if spilled := slices.ContainsFunc(g.Source.Notes, func(n string) bool { return strings.Contains(n, "spilled to") }); spilled != (budget < 0) {
			t.Fatalf("budget %d: spilled %v: %q", budget, spilled, g.Source.Notes)
		}
		var buf bytes.Buffer
		if err := pprofout.Write(&buf, g, graph.ViewPaths); err != nil {
			t.Fatal(err)
		}
		p, err := profile.Parse(&buf)
		if err != nil {
			t.Fatal(err)
		}
		p.Comments, p.TimeNanos = nil, 0
		outs[i] = p.String() + fmt.Sprintf("%+v", g.Suspects.Suspects)
	}
	if outs[0] != outs[1] {
		t.Error("the paths view or the report differ when spilled")
	}
}
