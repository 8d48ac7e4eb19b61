package text

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
)

var update = flag.Bool("update", false, "rewrite the golden view dumps in testdata")

// goldenCases are the fixtures with golden dumps: small ones covering
// every view kind.
var goldenCases = []string{
	"cpu-samples.cpuwork.jdk17.txt",
	"cpu-times.monitorwork.jdk25.txt",
	"sigquit-cpu-samples.cpuwork.jdk17.txt",
	"monitor.monitorpileup.jdk17.txt",
	"heap-sites.allocwork.jdk17.txt",
}

// TestGolden compares a readable dump of each view with
// testdata/<case>.<view>.txt.
func TestGolden(t *testing.T) {
	for _, name := range goldenCases {
		g, _ := parseFixture(t, name, Options{})
		for _, v := range g.Views {
			path := filepath.Join(testdataDir, name+"."+v.Name+".txt")
			got := dumpView(g, v)
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from %s; run with -update and review the diff", v.Name, path)
			}
		}
	}
}

// dumpView writes a view as text: a header, then one line per sample,
// sorted: values | labels | stack root→leaf.
func dumpView(g *graph.Graph, v *graph.View) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "view %s\n", v.Name)
	for _, st := range v.SampleTypes {
		fmt.Fprintf(&b, "type %s/%s\n", st.Type, st.Unit)
	}
	fmt.Fprintf(&b, "default %s\nperiod %s/%s %d\n", v.DefaultSampleType, v.PeriodType.Type, v.PeriodType.Unit, v.Period)
	fmt.Fprintf(&b, "time %s duration %s\n", v.Time.Format("2006-01-02 15:04:05"), v.Duration)
	for _, c := range v.Comments {
		fmt.Fprintf(&b, "comment %s\n", c)
	}
	fmt.Fprintf(&b, "totals %v\nsamples %d\n", v.Totals(), len(v.Samples))
	lines := make([]string, 0, len(v.Samples))
	for _, s := range v.Samples {
		var l strings.Builder
		for i, x := range s.Values {
			if i > 0 {
				l.WriteByte(' ')
			}
			fmt.Fprint(&l, x)
		}
		l.WriteString(" |")
		for _, lb := range s.Labels {
			fmt.Fprintf(&l, " %s=%s", lb.Key, lb.Str)
		}
		l.WriteString(" |")
		st := g.Stacks[s.Stack]
		for i := len(st) - 1; i >= 0; i-- {
			l.WriteByte(' ')
			l.WriteString(frameString(g.Frames[st[i]]))
		}
		lines = append(lines, l.String())
	}
	sort.Strings(lines)
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func frameString(f graph.Frame) string {
	if f.Kind != graph.KindMethod {
		return "[" + f.Function() + "]"
	}
	line := fmt.Sprint(f.Line)
	switch f.Line {
	case graph.LineUnknown:
		line = "?"
	case graph.LineNative:
		line = "native"
	case graph.LineCompiled:
		line = "compiled"
	}
	return fmt.Sprintf("%s(%s:%s)", f.Function(), f.File, line)
}
