package parquet

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
)

// flatSample is one sample in a form that both a graph and a pprof
// profile can be turned into, so the README queries' expected answers
// are computed the same way whichever of the two they come from.
type flatSample struct {
	source, view string
	labels       map[string]string
	functions    []string // leaf first
	method       string   // innermost Java method; "" when none
	values       map[string]int64
}

// flatView lists a view's sample types (for NULL columns) and samples.
type flatView struct {
	source, view string
	types        []string
	samples      []flatSample
}

// flattenGraph turns a graph's views into flatViews, walking stacks and
// frames directly (not through the writer's code).
func flattenGraph(source string, g *graph.Graph) []flatView {
	var out []flatView
	for _, v := range g.Views {
		fv := flatView{source: source, view: v.Name}
		for _, st := range v.SampleTypes {
			fv.types = append(fv.types, st.Type)
		}
		for _, s := range v.Samples {
			fs := flatSample{source: source, view: v.Name, labels: map[string]string{}, values: map[string]int64{}}
			for _, l := range s.Labels {
				if l.Str != "" {
					fs.labels[l.Key] = l.Str
				}
			}
			for _, f := range g.Stacks[s.Stack] {
				fr := g.Frames[f]
				fs.functions = append(fs.functions, fr.Function())
				if fr.Kind == graph.KindMethod && fs.method == "" {
					fs.method = fr.Function()
				}
			}
			for i, st := range v.SampleTypes {
				fs.values[st.Type] = s.Values[i]
			}
			fv.samples = append(fv.samples, fs)
		}
		out = append(out, fv)
	}
	return out
}

// sums adds values under string keys and renders "key|v1|v2" rows.
type sums struct {
	keys []string
	m    map[string][]int64
}

func (s *sums) add(key string, vals ...int64) {
	if s.m == nil {
		s.m = map[string][]int64{}
	}
	cur, ok := s.m[key]
	if !ok {
		cur = make([]int64, len(vals))
		s.keys = append(s.keys, key)
	}
	for i, v := range vals {
		cur[i] += v
	}
	s.m[key] = cur
}

func (s *sums) rows() []string {
	var out []string
	for _, k := range s.keys {
		parts := []string{k}
		for _, v := range s.m[k] {
			parts = append(parts, fmt.Sprint(v))
		}
		out = append(out, strings.Join(parts, "|"))
	}
	return out
}

func orNull(s string) string {
	if s == "" {
		return "NULL"
	}
	return s
}

// totalsColumns are the README view_totals query's names for the
// ValueColumns, in the same order.
var totalsColumns = []string{"samples", "cpu_ns", "alloc_objects", "alloc_space", "inuse_objects", "inuse_space", "threads", "calls", "time_ns", "contentions", "delay_ns"}

// expected holds, per README query, the columns compared and the rows
// expected.
type expected struct {
	cols []string
	rows []string
}

// expectFromViews computes the expected answers of the README queries
// that the views alone determine.
func expectFromViews(views []flatView, before, after string) map[string]expected {
	var hist, top, thr, flat, cum, growth, mon sums
	type classSums struct{ n, b int64 }
	bySource := map[string]map[string]*classSums{}
	totals := map[string]expected{}
	var totalRows []string
	for _, fv := range views {
		tot := map[string]int64{}
		for _, s := range fv.samples {
			for k, v := range s.values {
				tot[k] += v
			}
			switch fv.view {
			case graph.ViewHeap:
				c := s.labels[graph.LabelClass]
				hist.add(fv.source+"|"+c, s.values["inuse_objects"], s.values["inuse_space"])
				if bySource[fv.source] == nil {
					bySource[fv.source] = map[string]*classSums{}
				}
				cs := bySource[fv.source][c]
				if cs == nil {
					cs = &classSums{}
					bySource[fv.source][c] = cs
				}
				cs.n += s.values["inuse_objects"]
				cs.b += s.values["inuse_space"]
			case graph.ViewAlloc:
				top.add(orNull(s.method), s.values["alloc_space"], s.values["alloc_objects"])
			case graph.ViewMonitor:
				mon.add(fv.source+"|"+orNull(s.labels[graph.LabelMonitor])+"|"+orNull(s.method), s.values["contentions"], s.values["delay"])
			case graph.ViewCPU:
				thr.add(fv.source+"|"+orNull(s.labels[graph.LabelThread]), s.values["samples"], s.values["cpu"])
				leaf := ""
				if len(s.functions) > 0 {
					leaf = s.functions[0]
				}
				flat.add(fv.source+"|"+orNull(leaf), s.values["cpu"])
				seen := map[string]bool{}
				for _, f := range s.functions {
					if !seen[f] {
						seen[f] = true
						cum.add(fv.source+"|"+f, s.values["cpu"])
					}
				}
			}
		}
		row := []string{fv.source, fv.view}
		for _, c := range ValueColumns {
			if slices.Contains(fv.types, c) {
				row = append(row, fmt.Sprint(tot[c]))
			} else {
				row = append(row, "NULL")
			}
		}
		totalRows = append(totalRows, strings.Join(row, "|"))
	}
	totals["view_totals"] = expected{
		cols: append([]string{"source", "view"}, totalsColumns...),
		rows: totalRows,
	}
	if b, a := bySource[before], bySource[after]; b != nil && a != nil {
		classes := map[string]bool{}
		for c := range b {
			classes[c] = true
		}
		for c := range a {
			classes[c] = true
		}
		for c := range classes {
			var dn, db int64
			if x := a[c]; x != nil {
				dn, db = dn+x.n, db+x.b
			}
			if x := b[c]; x != nil {
				dn, db = dn-x.n, db-x.b
			}
			growth.add(c, dn, db)
		}
	}
	out := map[string]expected{
		"class_histogram":        {[]string{"source", "class", "instances", "shallow_bytes"}, hist.rows()},
		"top_allocating_methods": {[]string{"function", "alloc_bytes", "alloc_objects"}, top.rows()},
		"cpu_by_thread":          {[]string{"source", "thread", "samples", "cpu_ns"}, thr.rows()},
		"cpu_flat":               {[]string{"source", "function", "flat_ns"}, flat.rows()},
		"cpu_cumulative":         {[]string{"source", "function", "cum_ns"}, cum.rows()},
		"class_growth":           {[]string{"class", "instances_delta", "bytes_delta"}, growth.rows()},
		"monitor_contention":     {[]string{"source", "monitor", "function", "contentions", "delay_ns"}, mon.rows()},
	}
	out["view_totals"] = totals["view_totals"]
	return out
}

// expectFromGraphs adds the answers only the graphs know: threads and
// sources.
func expectFromGraphs(exp map[string]expected, names []string, gs []*graph.Graph) {
	var threads, sources []string
	for i, g := range gs {
		for _, th := range g.Threads {
			fn := ""
			for _, f := range g.Stacks[th.Stack] {
				if g.Frames[f].Kind == graph.KindMethod {
					fn = g.Frames[f].Function()
					break
				}
			}
			threads = append(threads, strings.Join([]string{names[i], orNull(th.Name), orNull(th.State), orNull(fn)}, "|"))
		}
		damage := ""
		if g.Damage != nil {
			damage = g.Damage.Error()
		}
		idSize := "NULL" // unknown for text reports
		if g.Source.IDSize != 0 {
			idSize = fmt.Sprint(g.Source.IDSize)
		}
		sources = append(sources, strings.Join([]string{names[i], orNull(g.Source.Format), orNull(g.Source.Version),
			idSize, fmt.Sprint(g.Source.Bytes), fmt.Sprint(g.SoftTotal()), orNull(damage)}, "|"))
	}
	exp["thread_states"] = expected{[]string{"source", "name", "state", "function"}, threads}
	exp["sources"] = expected{[]string{"source", "format", "version", "id_size", "bytes", "soft_total", "damage"}, sources}
}

// checkQueries compares every README query's DuckDB result with its
// expected rows (as sets), and fails for a README query nothing checks.
func checkQueries(t *testing.T, qs []namedQuery, res duckdbResult, exp map[string]expected) {
	t.Helper()
	for _, q := range qs {
		e, ok := exp[q.Name]
		if !ok {
			t.Errorf("README query %s: no expected answer in the test", q.Name)
			continue
		}
		got := res.rows(t, q.Name, e.cols...)
		want := append([]string(nil), e.rows...)
		sort.Strings(got)
		sort.Strings(want)
		if !slices.Equal(got, want) {
			t.Errorf("README query %s (%s):\n got  %d rows %q\n want %d rows %q", q.Name, strings.Join(e.cols, "|"), len(got), got, len(want), want)
		} else {
			t.Logf("README query %s: %d rows agree", q.Name, len(got))
		}
	}
}

func TestTotalsColumnsMatch(t *testing.T) {
	if len(totalsColumns) != len(ValueColumns) {
		t.Fatalf("totalsColumns has %d names for %d ValueColumns", len(totalsColumns), len(ValueColumns))
	}
}
