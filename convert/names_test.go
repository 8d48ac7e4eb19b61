package convert

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/javaname"
)

// lambdaNames returns the sorted, distinct function and system names of
// the lambda frames of the cpu view of a report.
func lambdaNames(t *testing.T, path string, opts Options) (fns, systems []string) {
	t.Helper()
	g := mustConvert(t, path, opts)
	v := g.View("cpu")
	if v == nil {
		t.Fatalf("%s: no cpu view", path)
	}
	for _, s := range v.Samples {
		for _, id := range g.Stacks[s.Stack] {
			f := g.Frames[id]
			if strings.Contains(f.SystemName(), "$$Lambda") {
				fns = append(fns, f.Function())
				systems = append(systems, f.SystemName())
			}
		}
	}
	slices.Sort(fns)
	slices.Sort(systems)
	return slices.Compact(fns), slices.Compact(systems)
}

// Two runs of one program (here on two JDKs, which spell hidden classes
// differently) name their lambda frames alike, so pprof -diff_base can
// match them; the exact names stay in the system names, and RawNames
// keeps them as function names.
func TestLambdaNamesAcrossRuns(t *testing.T) {
	a, sysA := lambdaNames(t, "../testdata/cpu-samples.cpuwork.jdk17.txt", Options{})
	b, sysB := lambdaNames(t, "../testdata/cpu-samples.cpuwork.jdk25.txt", Options{})
	if !slices.Equal(a, b) {
		t.Errorf("function names differ between runs:\n%q\n%q", a, b)
	}
	if want := []string{"CpuWork$$Lambda.run"}; !slices.Equal(a, want) {
		t.Errorf("lambda function names %q, want %q", a, want)
	}
	for _, sys := range [][]string{sysA, sysB} {
		if !slices.ContainsFunc(sys, func(s string) bool { return strings.Contains(s, "$$Lambda") && strings.Contains(s, ".0x") }) {
			t.Errorf("system names lost the exact lambda name: %q", sys)
		}
	}
	raw, _ := lambdaNames(t, "../testdata/cpu-samples.cpuwork.jdk17.txt", Options{RawNames: true})
	if !slices.Contains(raw, "CpuWork$$Lambda$42.0x00000007c00c1670.run") {
		t.Errorf("RawNames: no exact lambda name in %q", raw)
	}
}

// In the heap and retained views of a dump, class frames and class
// labels carry the normalised name, the exact one in the frame's
// RawClass, and no package frame is a hidden class's address; the heap
// view's objects per class label are the oracle's summed over the exact
// names that normalise alike.
func TestClassNamesNormalised(t *testing.T) {
	const dump = "../testdata/jdk17-zoo-live.hprof"
	// The oracle's size model, whose histogram counts no class mirrors.
	g := mustConvert(t, dump, Options{Views: []string{"heap", "retained"}, VisualVMSizes: true})
	raw := 0
	for _, f := range g.Frames[1:] {
		if f.Kind != graph.KindMethod && f.Kind != graph.KindClass && f.Kind != graph.KindPackage {
			continue
		}
		if strings.Contains(f.Class, "0x") || strings.Contains(f.Class, "$$Lambda$") {
			t.Errorf("%s frame %q is not normalised", f.Kind, f.Class)
		}
		if f.RawClass != "" {
			raw++
			// The retained view names a class object "Foo.class".
			exact, ok := strings.CutSuffix(f.RawClass, ".class")
			if javaname.Normalize(exact) != strings.TrimSuffix(f.Class, ".class") || ok != strings.HasSuffix(f.Class, ".class") {
				t.Errorf("frame %q keeps %q as its exact name", f.Class, f.RawClass)
			}
		}
	}
	if raw == 0 {
		t.Error("no frame keeps an exact hidden class name")
	}
	want := map[string]int64{}
	for c, v := range oracleHistogram(t, dump+".oracle") {
		want[javaname.Normalize(c)] += v[0]
	}
	got := map[string]int64{}
	for _, s := range g.View(graph.ViewHeap).Samples {
		for _, l := range s.Labels {
			if l.Key == graph.LabelClass {
				got[l.Str] += s.Values[0]
			}
		}
	}
	if want["corpus.Zoo$$Lambda"] == 0 || got["corpus.Zoo$$Lambda"] != want["corpus.Zoo$$Lambda"] {
		t.Errorf("corpus.Zoo$$Lambda: %d objects, oracle %d", got["corpus.Zoo$$Lambda"], want["corpus.Zoo$$Lambda"])
	}
	for c, n := range got {
		if want[c] != n {
			t.Errorf("%s: %d objects, oracle %d", c, n, want[c])
		}
	}
	if err := g.Validate(); err != nil {
		t.Error(err)
	}
}

// A live agent stream's windows name lambda frames as a file's views do,
// and RawNames keeps the exact names there too.
func TestStreamLambdaNames(t *testing.T) {
	data, err := os.ReadFile("../testdata/net-commands.cpuwork.jdk17.hprof.raw")
	if err != nil {
		t.Fatal(err)
	}
	for _, raw := range []bool{false, true} {
		ws, err := streamAll(t, data, StreamOptions{Options: Options{RawNames: raw}})
		if err != nil {
			t.Fatal(err)
		}
		normal, exact := 0, 0
		for _, w := range ws {
			for _, f := range w.Graph.Frames[1:] {
				switch {
				case f.Class == "CpuWork$$Lambda" && strings.HasPrefix(f.RawClass, "CpuWork$$Lambda$"):
					normal++
				case strings.HasPrefix(f.Class, "CpuWork$$Lambda$") && f.RawClass == "":
					exact++
				}
			}
		}
		if raw && (exact == 0 || normal != 0) || !raw && (normal == 0 || exact != 0) {
			t.Errorf("RawNames %v: %d normalised lambda frames, %d exact", raw, normal, exact)
		}
	}
}
