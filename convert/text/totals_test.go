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
	if len(secs) == 0 {
		t.Fatal("oracle found no section")
	}
	var cpuTotal, cpuRows, cpuTimeCalls, monCalls int64
	var cpuTimeSecs, monSecs []fileSection
	var sites, heap, mdump *fileSection
	for i := range secs {
		s := &secs[i]
		switch s.name {
		case "CPU SAMPLES":
			cpuTotal += headerNum(s.header, "total = ")
			for _, r := range dataRows(s.rows) {
				cpuRows += col(r, 3)
			}
		case "CPU TIME (ms)":
			cpuTimeSecs = append(cpuTimeSecs, *s)
			for _, r := range dataRows(s.rows) {
				cpuTimeCalls += col(r, 3)
			}
		case "MONITOR TIME":
			monSecs = append(monSecs, *s)
			for _, r := range dataRows(s.rows) {
				monCalls += col(r, 3)
			}
		case "SITES":
			sites = s
		case "HEAP DUMP":
			heap = s
		case "MONITOR DUMP":
			mdump = s
		}
	}
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
		// The agent lists every trace in CPU SAMPLES: the rows add up
		// to the header total.
		if tot[0] != cpuTotal || tot[0] != cpuRows {
			t.Errorf("cpu samples = %d, header totals %d, rows %d", tot[0], cpuTotal, cpuRows)
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
		checkPercentTime(t, "cputime", tot[1], cpuTimeSecs)
	}
	if v := expect(graph.ViewMonitor, len(monSecs) > 0); v != nil {
		tot := v.Totals()
		if tot[0] != monCalls {
			t.Errorf("monitor contentions = %d, rows say %d", tot[0], monCalls)
		}
		checkPercentTime(t, "monitor", tot[1], monSecs)
	}
	if v := expect(graph.ViewAlloc, sites != nil); v != nil {
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
	if v := expect(graph.ViewHeap, heap != nil); v != nil {
		var objs, bytes int64
		for _, r := range heap.rows {
			if len(r) > 2 && (r[0] == "OBJ" || r[0] == "ARR") {
				objs++
				bytes += headerNum(strings.Join(r, " "), "(sz=")
			}
		}
		if got := v.Totals(); got[0] != objs || got[1] != bytes {
			t.Errorf("heap totals %v, file has %d OBJ/ARR records, %d bytes", got, objs, bytes)
		}
		if g.Source.Records["HEAP DUMP OBJ"]+g.Source.Records["HEAP DUMP ARR"] != objs {
			t.Errorf("Records = %v", g.Source.Records)
		}
	}
	if v := expect(graph.ViewThreads, mdump != nil); v != nil {
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
}

// checkPercentTime: time = Σ self% × total. The file's accum column of
// the last row is the same sum, rounded once; each self% is rounded to
// 0.01%, so the two agree within 0.005% of the total per row.
func checkPercentTime(t *testing.T, view string, got int64, secs []fileSection) {
	t.Helper()
	var want, slack int64
	for _, s := range secs {
		total := headerNum(s.header, "total = ")
		rows := dataRows(s.rows)
		if len(rows) == 0 {
			continue
		}
		accum := pctHundredths(rows[len(rows)-1][2])
		want += accum * total * 100 // hundredths of % × ms → ns
		slack += int64(len(rows)+1) * total * 50
	}
	if d := got - want; d > slack || -d > slack {
		t.Errorf("%s time = %d ns, accum × total = %d ns (allowed ±%d)", view, got, want, slack)
	}
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
