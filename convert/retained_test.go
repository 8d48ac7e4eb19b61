package convert

import (
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/internal/testhooks"
	"github.com/hprof2pprof/hprof2pprof/convert/retained"
)

// oracleRetained is one row of retained-top-objects.csv or
// retained-top-classes.csv.
type oracleRetained struct {
	id       uint64
	class    string
	retained int64
}

func readRetainedCSV(t *testing.T, path string, idCol, classCol, retCol int) []oracleRetained {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out []oracleRetained
	for _, r := range rows[1:] {
		id, err := strconv.ParseUint(r[idCol], 0, 64)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		ret, err := strconv.ParseInt(r[retCol], 10, 64)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, oracleRetained{id: id, class: r[classCol], retained: ret})
	}
	return out
}

// retainedOf converts path with the retained view and keeps the analysis,
// objects sized in the oracle's model (convertForOracle says why).
func retainedOf(t *testing.T, path string, garbageHolds bool) (*graph.Graph, *retained.Result) {
	t.Helper()
	probe := &testhooks.Retained{GarbageHolds: garbageHolds}
	g, err := ConvertFile(testhooks.With(context.Background(), testhooks.Hooks{Retained: probe}), path, Options{Views: []string{graph.ViewRetained}, VisualVMSizes: true})
	if err != nil {
		t.Fatal(err)
	}
	if probe.Result == nil {
		t.Fatalf("no retained analysis; notes %v, soft %v", g.Source.Notes, g.Soft)
	}
	return g, probe.Result
}

// checkRetainedOracle compares retained sizes with the oracle's top
// objects and classes. In the oracle's model (garbage holds what it
// points to) every row must match; in the default model (garbage holds
// nothing) retained sizes can only grow.
func checkRetainedOracle(t *testing.T, path, oracle string) {
	objs := readRetainedCSV(t, filepath.Join(oracle, "retained-top-objects.csv"), 1, 2, 4)
	classes := readRetainedCSV(t, filepath.Join(oracle, "retained-top-classes.csv"), 1, 2, 3)
	g, res := retainedOf(t, path, true)
	_, live := retainedOf(t, path, false)
	bad := 0
	check := func(what string, got, want, gotLive int64, ok bool) {
		if gotLive < got {
			t.Errorf("%s: %d without garbage's references, %d with them", what, gotLive, got)
		}
		if !ok || got != want {
			if bad++; bad <= 20 {
				t.Errorf("%s: retained %d (reachable %v), oracle %d", what, got, ok, want)
			}
		}
	}
	for _, o := range objs {
		got, ok := res.Retained(o.id)
		gotLive, _ := live.Retained(o.id)
		check(fmt.Sprintf("object 0x%x (%s)", o.id, o.class), got, o.retained, gotLive, ok)
	}
	for _, c := range classes {
		got := res.ByClass[c.id]
		check(fmt.Sprintf("class %s (0x%x) by class", c.class, c.id), got, c.retained, live.ByClass[c.id], true)
	}
	if bad > 0 {
		t.Errorf("%d of %d oracle rows differ", bad, len(objs)+len(classes))
	}
	// The view's total is the sum of the roots' retained sizes.
	v := g.View(graph.ViewRetained)
	if v == nil {
		t.Fatal("no retained view")
	}
	if tot := v.Totals(); tot[1] != res.Stats.ReachableBytes || tot[0] != int64(res.Stats.Reachable) {
		t.Errorf("view totals %v, reachable %d objects %d bytes", tot, res.Stats.Reachable, res.Stats.ReachableBytes)
	}
	// Class objects weigh nothing, so reachable and unreachable bytes
	// together are the heap view's total, which the oracle's histogram
	// checks elsewhere.
	g2, err := ConvertFile(context.Background(), path, Options{Views: []string{graph.ViewHeap}, VisualVMSizes: true})
	if err != nil {
		t.Fatal(err)
	}
	if h := g2.View(graph.ViewHeap).Totals()[1]; res.Stats.ReachableBytes+res.Stats.UnreachableBytes != h {
		t.Errorf("reachable %d + unreachable %d bytes, heap view %d", res.Stats.ReachableBytes, res.Stats.UnreachableBytes, h)
	}
}

func TestRetainedOracle(t *testing.T) {
	for _, name := range []string{"jdk17-zoo-live.hprof"} {
		t.Run(name, func(t *testing.T) {
			checkRetainedOracle(t, filepath.Join("..", "testdata", name), filepath.Join("..", "testdata", name+".oracle"))
		})
	}
}

// TestRetainedChain checks the shared corpus dump with a 200,000-object
// linked list when it is present: the chain's head retains the whole
// chain (the oracle's figure), and the view holds the chain as one frame.
func TestRetainedChain(t *testing.T) {
	corpus := filepath.Join("..", "..", "shared", "corpus")
	if c := os.Getenv("HPROF_CORPUS"); c != "" {
		corpus = c
	}
	path := filepath.Join(corpus, "heapdump", "jdk17-zoo-chain200k.hprof.gz")
	if _, err := os.Stat(path); err != nil {
		t.Skip("shared corpus not present")
	}
	g, res := retainedOf(t, path, true)
	objs := readRetainedCSV(t, path+".oracle/retained-top-objects.csv", 1, 2, 4)
	equal := 0
	for _, o := range objs {
		if o.class != "corpus.Zoo$Link" {
			continue
		}
		if got, _ := res.Retained(o.id); got != o.retained {
			t.Errorf("object 0x%x (%s): retained %d, oracle %d", o.id, o.class, got, o.retained)
		} else {
			equal++
		}
	}
	if equal == 0 {
		t.Error("no chain objects in the oracle's top objects")
	}
	// The chain is one frame named by its class alone; the run's length
	// is the sample's "run" label.
	v := g.View(graph.ViewRetained)
	found := false
	for _, s := range v.Samples {
		if f := g.Frames[g.Stacks[s.Stack][0]]; f.Class == "corpus.Zoo$Link" && s.Values[0] == 200000 {
			found = true
			if s.Values[1] != 200000*24 {
				t.Errorf("chain sample %v, want 200000 objects of 24 bytes", s.Values)
			}
			if !slices.Contains(s.Labels, graph.Label{Key: retained.LabelRun, Num: 200000, Unit: "objects"}) {
				t.Errorf("chain sample labels %v, want run=200000", s.Labels)
			}
		}
	}
	if !found {
		t.Error("no frame corpus.Zoo$Link holding the 200000 chain objects")
	}
}

// BenchmarkRetained converts a heap dump with the retained view only.
// HPROF_BENCH_DUMP names another dump (e.g. bench-1g.hprof).
func BenchmarkRetained(b *testing.B) {
	path := filepath.Join("..", "testdata", "jdk17-zoo-live.hprof")
	if p := os.Getenv("HPROF_BENCH_DUMP"); p != "" {
		path = p
	}
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(fi.Size())
	b.ReportAllocs()
	for b.Loop() {
		g, err := ConvertFile(context.Background(), path, Options{Views: []string{graph.ViewRetained}})
		if err != nil {
			b.Fatal(err)
		}
		if g.View(graph.ViewRetained) == nil {
			b.Fatalf("no retained view: %v", g.Source.Notes)
		}
	}
}

// TestRetainedClassWithoutDump: an instance whose class has no CLASS DUMP
// has no known fields, so none of its bytes are references (they were
// once read as a Reference's referent: a bogus edge, and a panic when
// the instance had fewer than 8 bytes). Here U's 8 bytes hold B's ID;
// B is still A's alone, and an empty instance of an unknown class
// converts.
func TestRetainedClassWithoutDump(t *testing.T) {
	cls := be(uint8(0x20), uint64(100), uint32(0), uint64(0), uint64(0), uint64(0), uint64(0), uint64(0), uint64(0),
		uint32(8), uint16(0), uint16(0), uint16(1), uint64(2), uint8(2)) // one object field
	inst := func(id, class uint64, payload ...any) []byte {
		p := be(payload...)
		return cat(be(uint8(0x21), id, uint32(0), class, uint32(len(p))), p)
	}
	root := func(id uint64) []byte { return be(uint8(0xFF), id) }
	dump := base().record(0x1C, cat(cls,
		inst(8, 100, uint64(16)), // A -> B
		inst(16, 100, uint64(0)), // B
		inst(24, 999, uint64(16)),
		inst(32, 999),
		root(8), root(24), root(32))).record(0x2C, nil).Bytes()
	path := filepath.Join(t.TempDir(), "unknown-class.hprof")
	if err := os.WriteFile(path, dump, 0o644); err != nil {
		t.Fatal(err)
	}
	_, res := retainedOf(t, path, false)
	a, _ := res.Retained(8)
	b, _ := res.Retained(16)
	if a <= b || b <= 0 {
		t.Errorf("retained: A %d, B %d; want A to hold B (A > B > 0)", a, b)
	}
}

// TestRetainedWithoutHeapView: asked for the retained view alone, the
// first pass counts no objects into the heap histogram (nothing reads
// it); the retained view and the record counts are those of a run that
// builds the heap view too.
func TestRetainedWithoutHeapView(t *testing.T) {
	path := filepath.Join("..", "testdata", "jdk17-zoo-live.hprof")
	alone, err := ConvertFile(context.Background(), path, Options{Views: []string{graph.ViewRetained}})
	if err != nil {
		t.Fatal(err)
	}
	both, err := ConvertFile(context.Background(), path, Options{Views: []string{graph.ViewHeap, graph.ViewRetained}})
	if err != nil {
		t.Fatal(err)
	}
	if alone.View(graph.ViewHeap) != nil || both.View(graph.ViewHeap) == nil {
		t.Fatal("the heap view is built when it is not asked for, or not when it is")
	}
	a, b := alone.View(graph.ViewRetained), both.View(graph.ViewRetained)
	if a == nil || b == nil || len(a.Samples) == 0 {
		t.Fatal("no retained view")
	}
	// Frame and stack IDs differ (the heap view interns its frames
	// first): compare the samples by what they name.
	if sa, sb := resolvedSamples(alone, a), resolvedSamples(both, b); !slices.Equal(sa, sb) {
		t.Errorf("the retained view differs without the heap view: %d samples, totals %v; with it %d, %v", len(sa), a.Totals(), len(sb), b.Totals())
	}
	ca, cb := *a, *b
	ca.Samples, cb.Samples = nil, nil
	if !reflect.DeepEqual(ca, cb) {
		t.Errorf("the retained view's other fields differ without the heap view:\n%+v\n%+v", ca, cb)
	}
	if !reflect.DeepEqual(alone.Source.Records, both.Source.Records) {
		t.Errorf("record counts differ: %v, with the heap view %v", alone.Source.Records, both.Source.Records)
	}
}

// resolvedSamples lists v's samples as text: frames (leaf first),
// values, labels.
func resolvedSamples(g *graph.Graph, v *graph.View) []string {
	out := make([]string, 0, len(v.Samples))
	for _, smp := range v.Samples {
		var b strings.Builder
		for _, f := range g.Stacks[smp.Stack] {
			fmt.Fprintf(&b, "%s;", g.Frames[f].Function())
		}
		fmt.Fprintf(&b, " %v %v", smp.Values, smp.Labels)
		out = append(out, b.String())
	}
	return out
}
