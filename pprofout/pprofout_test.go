package pprofout

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/hprof2pprof/hprof2pprof/convert"
	"github.com/hprof2pprof/hprof2pprof/convert/graph"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// goldenCases are the binary fixtures with a golden dump per view
// (testdata/<case>.<view>.txt). Text reports have theirs from
// convert/text.
var goldenCases = []string{
	"cpu-samples.cpuwork.jdk17.hprof",
	"heap-sites.allocwork.jdk17.hprof",
	"heap-all-cpu-samples.allocwork.jdk25.hprof",
	"jdk17-zoo-live.hprof",
	"jdk17-zoo-jhsdb.hprof",
	"killed-cpu-samples.cpuwork.jdk17.hprof",
}

// render prints a parsed pprof profile readably: sample types, then
// every sample (values, labels, stack leaf first), sorted.
func render(p *profile.Profile) string {
	var b strings.Builder
	var types []string
	for _, st := range p.SampleType {
		types = append(types, st.Type+"/"+st.Unit)
	}
	fmt.Fprintf(&b, "sample types: %s (default %q)\n", strings.Join(types, " "), p.DefaultSampleType)
	if p.PeriodType != nil {
		fmt.Fprintf(&b, "period: %d %s/%s\n", p.Period, p.PeriodType.Type, p.PeriodType.Unit)
	}
	for _, c := range p.Comments {
		if !strings.HasPrefix(c, "source: ") { // names the path, which differs per run
			fmt.Fprintf(&b, "comment: %s\n", c)
		}
	}
	var rows []string
	for _, s := range p.Sample {
		var r strings.Builder
		fmt.Fprintf(&r, "%v", s.Value)
		var keys []string
		for k := range s.Label {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(&r, " %s=%s", k, strings.Join(s.Label[k], ","))
		}
		for _, l := range s.Location {
			for _, ln := range l.Line {
				fmt.Fprintf(&r, "\n    %s", ln.Function.Name)
				if ln.Function.Filename != "" {
					fmt.Fprintf(&r, " (%s:%d)", ln.Function.Filename, ln.Line)
				}
			}
		}
		rows = append(rows, r.String())
	}
	sort.Strings(rows)
	for _, r := range rows {
		b.WriteString(r)
		b.WriteByte('\n')
	}
	return b.String()
}

func TestGolden(t *testing.T) {
	for _, c := range goldenCases {
		path := filepath.Join("..", "testdata", c)
		g, err := convert.ConvertFile(context.Background(), path, convert.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range g.Views {
			t.Run(c+"/"+v.Name, func(t *testing.T) {
				var buf bytes.Buffer
				if err := Write(&buf, g, v.Name); err != nil {
					t.Fatal(err)
				}
				// Round trip through the real pprof parser.
				p, err := profile.Parse(&buf)
				if err != nil {
					t.Fatal(err)
				}
				if err := p.CheckValid(); err != nil {
					t.Fatal(err)
				}
				checkTotals(t, g, v, p)
				got := render(p)
				golden := path + "." + v.Name + ".txt"
				if *update {
					if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatalf("%v (run with -update to create)", err)
				}
				if got != string(want) {
					t.Errorf("%s differs from the output; rerun with -update and review the diff", golden)
				}
			})
		}
	}
}

// checkTotals: the pprof profile holds exactly the graph's values.
func checkTotals(t *testing.T, g *graph.Graph, v *graph.View, p *profile.Profile) {
	t.Helper()
	want := v.Totals()
	got := make([]int64, len(p.SampleType))
	for _, s := range p.Sample {
		for i, x := range s.Value {
			got[i] += x
		}
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("%s: pprof total %d, graph %d", p.SampleType[i].Type, got[i], want[i])
		}
	}
	if len(p.Sample) != len(v.Samples) {
		t.Errorf("%d pprof samples, %d in the graph", len(p.Sample), len(v.Samples))
	}
}

func TestNamesReadAsJava(t *testing.T) {
	g, err := convert.ConvertFile(context.Background(), "../testdata/heap-sites.allocwork.jdk17.hprof", convert.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := Profile(g, "alloc")
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]*profile.Function{}
	for _, f := range p.Function {
		names[f.Name] = f
	}
	for _, want := range []string{"java.util.HashMap.resize", "java.lang.String.<init>", "int[]", "java.lang.String[]", "AllocWork.main"} {
		if names[want] == nil {
			t.Errorf("no function %q", want)
		}
	}
	if f := names["java.util.HashMap.resize"]; f != nil {
		if f.Filename != "HashMap.java" || !strings.HasPrefix(f.SystemName, "java.util.HashMap.resize()") {
			t.Errorf("resize: file %q system name %q", f.Filename, f.SystemName)
		}
	}
}

func TestNoSuchView(t *testing.T) {
	g := graph.New()
	if _, err := Profile(g, "cpu"); err == nil {
		t.Fatal("no error for a missing view")
	}
}
