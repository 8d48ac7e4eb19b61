package convert

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/javaname"
)

// oracleHistogram reads an oracle's histogram-by-name.csv: class →
// {instances, shallow bytes}. The oracle is VisualVM's heap library (see
// the corpus README), an independent reader.
func oracleHistogram(t *testing.T, dir string) map[string][2]int64 {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "histogram-by-name.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][2]int64{}
	for _, r := range rows[1:] {
		n, _ := strconv.ParseInt(r[1], 10, 64)
		b, _ := strconv.ParseInt(r[2], 10, 64)
		if n > 0 {
			out[r[0]] = [2]int64{n, b}
		}
	}
	return out
}

// heapHistogram sums the heap view by exact class name: its leaf class
// frame's (graph.Frame.ExactClass), which the oracle prints, checked
// against the sample's class label, the normalised name.
func heapHistogram(t *testing.T, g *graph.Graph) map[string][2]int64 {
	t.Helper()
	v := g.View(graph.ViewHeap)
	if v == nil {
		t.Fatal("no heap view")
	}
	out := map[string][2]int64{}
	for _, s := range v.Samples {
		var class string
		for _, l := range s.Labels {
			if l.Key == graph.LabelClass {
				class = l.Str
			}
		}
		if leaf := g.Frames[g.Stacks[s.Stack][0]]; leaf.Kind == graph.KindClass && leaf.Class == class {
			class = leaf.ExactClass()
		}
		if n := javaname.Normalize(class); n != class && !slices.Contains(s.Labels, graph.Label{Key: graph.LabelClass, Str: n}) {
			t.Errorf("%s: the class label is not its normalised name %s", class, n)
		}
		x := out[class]
		x[0] += s.Values[0]
		x[1] += s.Values[1]
		out[class] = x
	}
	return out
}

func compareHistograms(t *testing.T, got, want map[string][2]int64) {
	t.Helper()
	bad := 0
	for c, w := range want {
		if got[c] != w {
			if bad++; bad <= 10 {
				t.Errorf("%s: got %d objects %d bytes, oracle %d objects %d bytes", c, got[c][0], got[c][1], w[0], w[1])
			}
		}
	}
	for c, g := range got {
		if _, ok := want[c]; !ok {
			if bad++; bad <= 10 {
				t.Errorf("%s: %d objects %d bytes, not in the oracle", c, g[0], g[1])
			}
		}
	}
	if bad > 10 {
		t.Errorf("... %d classes differ in all", bad)
	}
}

// oracleDirs lists the heap dumps with an oracle in dir.
func oracleDirs(t *testing.T, dir string) []string {
	dirs, _ := filepath.Glob(filepath.Join(dir, "*.oracle"))
	var dumps []string
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "histogram-by-name.csv")); err == nil {
			dumps = append(dumps, strings.TrimSuffix(d, ".oracle"))
		}
	}
	return dumps
}

// convertForOracle converts a dump the way the oracle reads it: VisualVM's
// heap library reads only the first heap dump of a file holding several,
// where we default to the last; and it sizes objects in its own model,
// which differs from the JVM's from JDK 15 on (no class mirrors, no
// injected fields, 16-byte headers without compressed oops): the JVM's
// histograms check the default model (jvm_sizes_test.go).
func convertForOracle(t *testing.T, dump string) *graph.Graph {
	t.Helper()
	g, err := ConvertFile(context.Background(), dump, Options{VisualVMSizes: true})
	if err != nil {
		t.Fatal(err)
	}
	if g.Source.Dumps > 1 {
		if g.Source.Dump != g.Source.Dumps {
			t.Errorf("default heap view from dump %d of %d, want the last", g.Source.Dump, g.Source.Dumps)
		}
		if g, err = ConvertFile(context.Background(), dump, Options{Dump: 1, VisualVMSizes: true}); err != nil {
			t.Fatal(err)
		}
	}
	if g.Damage != nil {
		t.Fatalf("damage: %v", g.Damage)
	}
	return g
}

func TestHeapMatchesOracle(t *testing.T) {
	dumps := oracleDirs(t, "../testdata")
	if len(dumps) < 4 {
		t.Fatalf("found %d oracle fixtures in testdata", len(dumps))
	}
	for _, dump := range dumps {
		t.Run(filepath.Base(dump), func(t *testing.T) {
			g := convertForOracle(t, dump)
			compareHistograms(t, heapHistogram(t, g), oracleHistogram(t, dump+".oracle"))
		})
	}
}

// oracleThread is one entry of the oracle's threads.json.
type oracleThread struct {
	ObjectID   string   `json:"object_id"`
	Name       string   `json:"name"`
	Class      string   `json:"class"`
	StackTrace []string `json:"stack_trace"`
}

// javaFrame prints a frame the way java.lang.StackTraceElement does, as
// the oracle's threads.json does.
func javaFrame(f graph.Frame) string {
	loc := ""
	switch {
	case f.Line == graph.LineNative:
		loc = "Native Method"
	case f.File == "":
		loc = "<unresolved string 0x0>" // the oracle's text for a missing source file name
		if f.Line > 0 {
			loc += ":" + strconv.Itoa(int(f.Line))
		}
	case f.Line > 0:
		loc = f.File + ":" + strconv.Itoa(int(f.Line))
	default:
		loc = f.File
	}
	return fmt.Sprintf("%s.%s(%s)", f.ExactClass(), f.Method, loc)
}

func TestThreadsMatchOracle(t *testing.T) {
	for _, dump := range oracleDirs(t, "../testdata") {
		t.Run(filepath.Base(dump), func(t *testing.T) { compareThreads(t, dump) })
	}
}

// compareThreads compares the threads of a dump with the oracle's
// threads.json: names and stacks. Threads are matched by object ID, else
// by name, each thread of ours once.
func compareThreads(t *testing.T, dump string) {
	t.Helper()
	b, err := os.ReadFile(dump + ".oracle/threads.json")
	if err != nil {
		t.Skip("no threads.json")
	}
	var want []oracleThread
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	g := convertForOracle(t, dump)
	jhsdb := strings.Contains(g.Source.Writer, "jhsdb")
	if len(g.Threads) != len(want) {
		t.Fatalf("%d threads, oracle %d", len(g.Threads), len(want))
	}
	used := make([]bool, len(g.Threads))
	for _, w := range want {
		i := -1
		for j, th := range g.Threads {
			if !used[j] && w.ObjectID != "" && fmt.Sprintf("0x%x", th.ObjectID) == w.ObjectID {
				i = j
				break
			}
		}
		for j, th := range g.Threads {
			if i < 0 && !used[j] && th.Name == w.Name {
				i = j
				break
			}
		}
		if i < 0 {
			t.Errorf("oracle thread %q (%s): no such thread", w.Name, w.ObjectID)
			continue
		}
		used[i] = true
		got := g.Threads[i]
		// The oracle's null name is our "" — or a name the oracle could
		// not read: JDK 5 to 7 keep Thread.name in a char[], which we
		// decode and the oracle does not.
		if w.Name != "" && got.Name != w.Name {
			t.Errorf("thread %s: name %q, oracle %q", w.ObjectID, got.Name, w.Name)
			continue
		}
		var frames []string
		for _, f := range g.Stacks[got.Stack] {
			frames = append(frames, javaFrame(g.Frames[f]))
		}
		if jhsdb && len(w.StackTrace) == 0 {
			// jhsdb points every thread root at the empty dummy
			// trace; the oracle follows it, we use the thread's
			// own STACK TRACE record (documented in the README).
			continue
		}
		if strings.Join(frames, "\n") != strings.Join(w.StackTrace, "\n") {
			t.Errorf("thread %q:\n got %q\nwant %q", w.Name, frames, w.StackTrace)
		}
	}
	if jhsdb {
		withStack := 0
		for _, th := range g.Threads {
			if th.Stack != 0 {
				withStack++
			}
		}
		if withStack == 0 {
			t.Error("jhsdb dump: no thread got its stack from its STACK TRACE record")
		}
	}
}

// TestCorpusSweep converts every binary heap dump of the shared corpus
// that has an oracle, when the corpus is present beside the repo.
func TestCorpusSweep(t *testing.T) {
	var dumps []string
	for _, d := range []string{"heapdump", "hprof-agent"} {
		dumps = append(dumps, oracleDirs(t, filepath.Join("../../shared/corpus", d))...)
	}
	if len(dumps) == 0 {
		t.Skip("../shared/corpus not present")
	}
	for _, dump := range dumps {
		t.Run(filepath.Base(dump), func(t *testing.T) {
			g := convertForOracle(t, dump)
			compareHistograms(t, heapHistogram(t, g), oracleHistogram(t, dump+".oracle"))
		})
	}
}
