package parquet

import (
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/hprof2pprof/hprof2pprof/convert"
	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/javaname"
	"github.com/hprof2pprof/hprof2pprof/pprofout"
)

// fixture is a real input from testdata/ and the source name it gets.
// The README's class_growth query compares the sources "before.hprof"
// and "after.hprof": two hprof-agent heap dumps of the same AllocWork
// program (JDK 17, then JDK 25) play those parts.
type fixture struct{ file, source string }

var fixtures = []fixture{
	{"heap-dump.allocwork.jdk17.hprof", "before.hprof"},
	{"heap-all-cpu-samples.allocwork.jdk25.hprof", "after.hprof"},
	{"cpu-samples.cpuwork.jdk17.hprof", "cpu-samples.cpuwork.jdk17.hprof"},
	{"heap-sites.allocwork.jdk17.hprof", "heap-sites.allocwork.jdk17.hprof"},
	{"monitor.monitorpileup.jdk17.txt.gz", "monitor.monitorpileup.jdk17.txt.gz"},
	{"cpu-times.monitorwork.jdk25.txt", "cpu-times.monitorwork.jdk25.txt"},
}

// flattenProfile turns a pprof profile of one view into a flatView, the
// form the expected answers are computed from. What pprof does not mark
// is taken from how the views are built: an alloc stack is the site's
// trace under the allocated class, so its innermost method is the frame
// below the leaf; a heap stack's leaf is the class, whether or not the
// sample has a class label. In other views the innermost method is the
// first frame that is not the sample's class or one of its packages.
func flattenProfile(source, view string, p *profile.Profile) flatView {
	fv := flatView{source: source, view: view}
	for _, st := range p.SampleType {
		fv.types = append(fv.types, st.Type)
	}
	for _, s := range p.Sample {
		fs := flatSample{source: source, view: view, labels: map[string]string{}, values: map[string]int64{}}
		for k, v := range s.Label {
			if len(v) > 0 {
				fs.labels[k] = v[0]
			}
		}
		for _, loc := range s.Location {
			for _, ln := range loc.Line { // leaf (inlined callee) first
				fs.functions = append(fs.functions, ln.Function.Name)
			}
		}
		class := fs.labels[graph.LabelClass]
		switch {
		case view == graph.ViewAlloc:
			if len(fs.functions) > 1 {
				fs.method = fs.functions[1]
			}
		default:
			for _, name := range fs.functions {
				if class == "" || (name != class && !strings.HasPrefix(class, name+".")) {
					fs.method = name
					break
				}
			}
		}
		if class == "" && (view == graph.ViewAlloc || view == graph.ViewHeap) && len(fs.functions) > 0 {
			fs.labels[graph.LabelClass] = fs.functions[0]
		}
		for i, st := range p.SampleType {
			fs.values[st.Type] = s.Value[i]
		}
		fv.samples = append(fv.samples, fs)
	}
	return fv
}

// TestREADMEQueriesFixtures converts real hprof files, writes each into
// its own directory (as separate runs would), and runs the README
// queries in DuckDB over all directories at once. Every answer must
// equal the same figure computed from the pprof profiles that pprofout
// makes of the same graphs; threads and sources, which pprof does not
// carry, are compared with the graphs. The heap histograms are also
// compared with the independent oracle's (VisualVM's heap library).
func TestREADMEQueriesFixtures(t *testing.T) {
	modules := duckdbModules(t)
	qs := readmeQueries(t)
	root := moduleRoot(t)
	var paths []fixture
	for _, fx := range fixtures {
		paths = append(paths, fixture{filepath.Join(root, "testdata", fx.file), fx.source})
	}
	raw := []namedQuery{
		{"classes_raw", "SELECT source, class_raw, instances, shallow_bytes FROM classes"},
		{"frames_raw", "SELECT DISTINCT class, class_raw FROM frames WHERE class <> class_raw"},
		{"samples_raw", "SELECT DISTINCT class, class_raw FROM samples WHERE class <> class_raw"},
	}
	res, exp := convertAndQuery(t, modules, append(slices.Clone(qs), raw...), paths)
	// Where class and class_raw differ, class is the exact name
	// normalised.
	for _, q := range []string{"frames_raw", "samples_raw"} {
		rows := res.rows(t, q, "class", "class_raw")
		if len(rows) == 0 {
			t.Errorf("%s: no hidden class with its exact name", q)
		}
		for _, r := range rows {
			if c, exact, _ := strings.Cut(r, "|"); javaname.Normalize(exact) != c {
				t.Errorf("%s: class %q, class_raw %q", q, c, exact)
			}
		}
	}
	for _, q := range []string{"class_histogram", "class_growth", "top_allocating_methods", "cpu_by_thread", "cpu_flat", "cpu_cumulative", "monitor_contention"} {
		if len(exp[q].rows) == 0 {
			t.Errorf("fixtures give query %s nothing to answer", q)
		}
	}
	checkQueries(t, qs, res, exp)

	// The classes table against the oracle's histogram of the same dumps:
	// row by row by exact name (class_raw), and summed by class, the
	// normalised name, as the README's class_histogram sums it.
	got := res.rows(t, "class_histogram", "source", "class", "instances", "shallow_bytes")
	gotRaw := res.rows(t, "classes_raw", "source", "class_raw", "instances", "shallow_bytes")
	for _, fx := range fixtures {
		oracle := filepath.Join(root, "testdata", fx.file+".oracle", "histogram-by-name.csv")
		if _, err := os.Stat(oracle); err != nil {
			continue
		}
		want := oracleHistogram(t, oracle, fx.source)
		wantNorm := normalizedHistogram(want)
		sort.Strings(wantNorm)
		for _, c := range []struct {
			what      string
			got, want []string
		}{{"class_raw", gotRaw, want}, {"class", got, wantNorm}} {
			var mine []string
			for _, r := range c.got {
				if strings.HasPrefix(r, fx.source+"|") {
					mine = append(mine, r)
				}
			}
			sort.Strings(mine)
			if !slices.Equal(mine, c.want) {
				t.Errorf("%s: classes table by %s (%d rows) differs from the oracle histogram (%d rows)", fx.file, c.what, len(mine), len(c.want))
			} else {
				t.Logf("%s: classes table by %s equals the oracle histogram (%d classes)", fx.file, c.what, len(c.want))
			}
		}
	}
}

// convertAndQuery converts each input (file is a path here), writes it
// into a directory of its own as a separate run would, runs the queries
// in DuckDB over all directories together, and computes the expected
// answers from pprofout's profiles of the same graphs (threads and
// sources, which pprof does not carry, from the graphs). Inputs the
// decoder rejects are skipped.
func convertAndQuery(t *testing.T, modules string, qs []namedQuery, inputs []fixture) (duckdbResult, map[string]expected) {
	t.Helper()
	var (
		dirs  []string
		views []flatView
		names []string
		gs    []*graph.Graph
	)
	base := t.TempDir()
	for i, in := range inputs {
		g, err := convert.ConvertFile(context.Background(), in.file, convert.Options{})
		if err != nil {
			t.Logf("%s: skipped: %v", in.file, err)
			continue
		}
		dir := filepath.Join(base, fmt.Sprint(i))
		w, err := NewWriter(dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.AddAs(in.source, g); err != nil {
			t.Fatalf("%s: %v", in.file, err)
		}
		if err := w.Close(); err != nil {
			t.Fatalf("%s: %v", in.file, err)
		}
		dirs = append(dirs, dir)
		names = append(names, in.source)
		gs = append(gs, g)
		for _, v := range g.Views {
			p, err := pprofout.Profile(g, v.Name)
			if err != nil {
				t.Fatalf("%s: pprof view %s: %v", in.file, v.Name, err)
			}
			views = append(views, flattenProfile(in.source, v.Name, p))
		}
	}
	if len(dirs) == 0 {
		t.Fatal("no input converted")
	}
	res := runDuckDB(t, modules, dirs, qs)
	exp := expectFromViews(views, "before.hprof", "after.hprof")
	expectFromGraphs(exp, names, gs)
	return res, exp
}

// TestREADMEQueriesCorpus does the same over every binary file of the
// shared corpus, when it is present beside the repository.
func TestREADMEQueriesCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("corpus sweep")
	}
	root := moduleRoot(t)
	corpus := filepath.Join(root, "..", "shared", "corpus")
	if _, err := os.Stat(corpus); err != nil {
		t.Skip("no shared corpus at " + corpus)
	}
	modules := duckdbModules(t)
	qs := readmeQueries(t)
	var inputs []fixture
	for _, pat := range []string{"*/*.hprof", "*/*.hprof.gz", "*/*.hprof.bz2", "*/*.bin", "*/*.android-hprof", "*/*.txt"} {
		m, _ := filepath.Glob(filepath.Join(corpus, pat))
		for _, p := range m {
			rel, _ := filepath.Rel(corpus, p)
			inputs = append(inputs, fixture{p, rel})
		}
	}
	res, exp := convertAndQuery(t, modules, qs, inputs)
	checkQueries(t, qs, res, exp)
}

// oracleHistogram reads the oracle's histogram-by-name.csv as
// "source|class|instances|shallow_bytes" rows, classes without instances
// left out (the heap view has no sample for them).
func oracleHistogram(t *testing.T, path, source string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var out []string
	for _, r := range recs[1:] { // class_name,instances,shallow_bytes,...
		if r[1] == "0" {
			continue
		}
		out = append(out, fmt.Sprintf("%s|%s|%s|%s", source, r[0], r[1], r[2]))
	}
	sort.Strings(out)
	return out
}
