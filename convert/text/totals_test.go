package text

import (
	"bytes"
	"strings"
	"testing"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
)

// TestTotals converts every text report in testdata and, when present,
// in the shared corpus, and checks each view's totals against the
// numbers printed in the file itself: section header totals and row
// columns, read by the plain scanner in oracle_test.go.
func TestTotals(t *testing.T) {
	files := append(textFixtures(t), corpusFiles(t)...)
	if len(files) == 0 {
		t.Fatal("no text fixtures found")
	}
	for _, path := range files {
		t.Run(caseName(path), func(t *testing.T) {
			data := mustRead(t, path)
			g, err := Parse(bytes.NewReader(data), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if g.Damage != nil {
				t.Fatalf("damage on a complete file: %v", g.Damage)
			}
			if n := g.SoftTotal(); n != 0 {
				t.Errorf("soft failures: %v", g.Soft)
			}
			if bytes.HasPrefix(data, []byte(oldHeader)) {
				checkOld(t, data, g)
				return
			}
			checkReport(t, data, g)
		})
	}
}

func checkReport(t *testing.T, data []byte, g *graph.Graph) {
	secs := readSections(data)
	if len(secs) == 0 && bytes.HasPrefix(data, []byte("JAVA PROFILE ")) {
		t.Fatal("oracle found no section")
	}
	f := sumSections(secs)
	cpuTotal, cpuRows, cpuTimeCalls, monCalls := f.cpuTotal, f.cpuRows, f.cpuTimeCalls, f.monCalls
	cpuTimeSecs, monSecs, sites, heap, mdump := f.cpuTimeSecs, f.monSecs, f.sites, f.heap, f.mdump
	views := map[string]bool{}
	for _, v := range g.Views {
		views[v.Name] = true
	}
	expect := func(name string, present bool) *graph.View {
		t.Helper()
		if views[name] != present {
			t.Fatalf("view %s present=%v, want %v", name, views[name], present)
		}
		return g.View(name)
	}
	if v := expect(graph.ViewCPU, cpuTotal > 0 || cpuRows > 0); v != nil {
		tot := v.Totals()
		// The view holds the header's total: the rows, plus what the
		// agent's cutoff or an excerpt left out on one frame that
		// says so.
		rest := notShown(g, v)
		if tot[0] != cpuTotal || tot[0]-rest[0] != cpuRows || rest[0] != max(cpuTotal-cpuRows, 0) {
			t.Errorf("cpu samples = %d (%d not shown), header totals %d, rows %d", tot[0], rest[0], cpuTotal, cpuRows)
		}
		if tot[1] != tot[0]*int64(graph.DefaultCPUInterval) {
			t.Errorf("cpu ns = %d, want samples × interval", tot[1])
		}
	}
	if v := expect(graph.ViewCPUTime, len(cpuTimeSecs) > 0); v != nil {
		tot := v.Totals()
		if tot[0] != cpuTimeCalls {
			t.Errorf("cputime calls = %d, rows say %d", tot[0], cpuTimeCalls)
		}
		checkPercentTime(t, "cputime", tot[1], notShown(g, v)[1], cpuTimeSecs)
	}
	if v := expect(graph.ViewMonitor, len(monSecs) > 0); v != nil {
		tot := v.Totals()
		if tot[0] != monCalls {
			t.Errorf("monitor contentions = %d, rows say %d", tot[0], monCalls)
		}
		checkPercentTime(t, "monitor", tot[1], notShown(g, v)[1], monSecs)
	}
	if v := expect(graph.ViewAlloc, sites != nil); v != nil {
		checkAlloc(t, v, sites)
	}
	if v := expect(graph.ViewHeap, heap != nil); v != nil {
		checkHeap(t, g, v, heap)
	}
	if v := expect(graph.ViewThreads, mdump != nil); v != nil {
		checkThreads(t, v, mdump)
	}
}

// fileSums are the numbers the plain reader takes from a report's sections.
type fileSums struct {
	cpuTotal, cpuRows, cpuTimeCalls, monCalls int64
	cpuTimeSecs, monSecs                      []fileSection
	sites, heap, mdump                        *fileSection
}

func sumSections(secs []fileSection) fileSums {
	var f fileSums
	for i := range secs {
		s := &secs[i]
		switch s.name {
		case "CPU SAMPLES":
			f.cpuTotal += headerNum(s.header, "total = ")
			for _, r := range dataRows(s.rows) {
				f.cpuRows += col(r, 3)
			}
		case "CPU TIME (ms)":
			f.cpuTimeSecs = append(f.cpuTimeSecs, *s)
			for _, r := range dataRows(s.rows) {
				f.cpuTimeCalls += col(r, 3)
			}
		case "MONITOR TIME":
			f.monSecs = append(f.monSecs, *s)
			for _, r := range dataRows(s.rows) {
				f.monCalls += col(r, 3)
			}
		case "SITES":
			f.sites = s
		case "HEAP DUMP":
			f.heap = s
		case "MONITOR DUMP":
			f.mdump = s
		}
	}
	return f
}

// checkAlloc: the alloc view's totals are the SITES rows' column sums.
func checkAlloc(t *testing.T, v *graph.View, sites *fileSection) {
	t.Helper()
	var want [4]int64 // alloc objs, alloc bytes, live objs, live bytes
	for _, r := range dataRows(sites.rows) {
		want[0] += col(r, 6)
		want[1] += col(r, 5)
		want[2] += col(r, 4)
		want[3] += col(r, 3)
	}
	if got := v.Totals(); [4]int64(got) != want {
		t.Errorf("alloc totals %v, SITES rows say %v", got, want)
	}
}

// checkHeap: the heap view counts every OBJ and ARR record and its sz.
func checkHeap(t *testing.T, g *graph.Graph, v *graph.View, heap *fileSection) {
	t.Helper()
	var objs, bytes int64
	for _, r := range heap.rows {
		if len(r) > 2 && (r[0] == "OBJ" || r[0] == "ARR") {
			objs++
			bytes += headerNum(strings.Join(r, " "), "(sz=")
		}
	}
	// An excerpt's header count beyond its records is on the
	// not-shown frame.
	rest := notShown(g, v)
	if got := v.Totals(); got[0]-rest[0] != objs || got[1]-rest[1] != bytes {
		t.Errorf("heap totals %v (%v not shown), file has %d OBJ/ARR records, %d bytes", got, rest, objs, bytes)
	}
	if g.Source.Records["HEAP DUMP OBJ"]+g.Source.Records["HEAP DUMP ARR"] != objs {
		t.Errorf("Records = %v", g.Source.Records)
	}
}

// checkThreads: one sample per THREAD line of the MONITOR DUMP.
func checkThreads(t *testing.T, v *graph.View, mdump *fileSection) {
	t.Helper()
	var threads int64
	for _, r := range mdump.rows {
		if len(r) > 0 && r[0] == "THREAD" {
			threads++
		}
	}
	if got := v.Totals()[0]; got != threads {
		t.Errorf("threads = %d, MONITOR DUMP lists %d", got, threads)
	}
}

// checkPercentTime: the rows' time = Σ self% × total. The file's accum
// column of the last row is the same sum, rounded once; each self% is
// rounded to 0.01%, so the two agree within 0.005% of the total per row.
// When the last row's accum is below 100% (the agent's cutoff) or rows
// were left out (`...`), the view adds what is missing (rest) so that its
// time is the header's total.
func checkPercentTime(t *testing.T, view string, got, rest int64, secs []fileSection) {
	t.Helper()
	var want, slack, total int64
	short := false
	for _, s := range secs {
		total += headerNum(s.header, "total = ")
		rows := dataRows(s.rows)
		if len(rows) == 0 {
			short = true
			continue
		}
		accum := pctHundredths(rows[len(rows)-1][2])
		want += accum * headerNum(s.header, "total = ") * 100 // hundredths of % × ms → ns
		slack += int64(len(rows)+1) * headerNum(s.header, "total = ") * 50
		short = short || accum < 10000 || hasEllipsis(s.rows)
	}
	if d := got - rest - want; d > slack || -d > slack {
		t.Errorf("%s rows' time = %d ns, accum × total = %d ns (allowed ±%d)", view, got-rest, want, slack)
	}
	if short && got != total*1_000_000 {
		t.Errorf("%s time = %d ns (%d not shown), header total %d ms", view, got, rest, total)
	}
	if !short && rest != 0 {
		t.Errorf("%s: %d ns not shown in a table whose rows reach 100%%", view, rest)
	}
}

// hasEllipsis reports whether rows hold a `...` line.
func hasEllipsis(rows [][]string) bool {
	for _, r := range rows {
		if len(r) == 1 && strings.Trim(r[0], ".") == "" {
			return true
		}
	}
	return false
}

// notShown returns the values of the sample on the frame named
// "(rows not shown: cutoff or excerpt)", zeros when there is none.
func notShown(g *graph.Graph, v *graph.View) []int64 {
	out := make([]int64, len(v.SampleTypes))
	for _, s := range v.Samples {
		st := g.Stacks[s.Stack]
		if len(st) == 1 && g.Frames[st[0]].Function() == "(rows not shown: cutoff or excerpt)" {
			copy(out, s.Values)
		}
	}
	return out
}

func checkOld(t *testing.T, data []byte, g *graph.Graph) {
	var calls, ms, rows int64
	for _, line := range strings.Split(string(data), "\n")[1:] {
		f := strings.Fields(line)
		if len(f) < 4 {
			continue
		}
		rows++
		calls += col(f, 0)
		ms += col(f, len(f)-1)
	}
	v := g.View(graph.ViewCPUOld)
	if v == nil {
		t.Fatal("no cpuold view")
	}
	if got := v.Totals(); got[0] != calls || got[1] != ms*1_000_000 {
		t.Errorf("cpuold totals %v, rows say %d calls, %d ms", got, calls, ms)
	}
	if g.Source.Records["cpu=old row"] != rows {
		t.Errorf("rows = %d, file has %d", g.Source.Records["cpu=old row"], rows)
	}
}
