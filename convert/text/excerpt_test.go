package text

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
)

// The expected numbers below are read from the files by the plain
// readers of this file and oracle_test.go, never from the decoder.

// fileRows returns the data rows of the first section named name, as
// fields, and its header line.
func fileRows(t *testing.T, data []byte, name string) ([][]string, string) {
	t.Helper()
	for _, s := range readSections(data) {
		if s.name == name {
			return dataRows(s.rows), s.header
		}
	}
	t.Fatalf("no %s section", name)
	return nil, ""
}

// leafTotals sums a view's first value per leaf function.
func leafTotals(g *graph.Graph, v *graph.View) map[string]int64 {
	out := map[string]int64{}
	for _, s := range v.Samples {
		if st := g.Stacks[s.Stack]; len(st) > 0 {
			out[g.Frames[st[0]].Function()] += s.Values[0]
		}
	}
	return out
}

// TestJVMPISpecCPUSamples: the JVMPI specification's CPU SAMPLES example
// (javac, 1998) is an excerpt: no header, slash names, rows 1–10 of a
// table whose header says total = 252378. The cpu view holds that total;
// each method's samples are its rows' count column; the rest is on the
// not-shown frame.
func TestJVMPISpecCPUSamples(t *testing.T) {
	g, data := parseFixture(t, "javac-cpu-samples.jvmpi-spec.txt", Options{})
	rows, header := fileRows(t, data, "CPU SAMPLES")
	total := headerNum(header, "total = ")
	want := map[string]int64{}
	var shown int64
	for _, r := range rows {
		want[strings.ReplaceAll(r[5], "/", ".")] += col(r, 3)
		shown += col(r, 3)
	}
	if total != 252378 || len(rows) != 10 {
		t.Fatalf("reader: total %d, %d rows", total, len(rows))
	}
	v := g.View(graph.ViewCPU)
	if v == nil {
		t.Fatal("no cpu view")
	}
	if got := v.Totals()[0]; got != total {
		t.Errorf("cpu samples = %d, header total %d", got, total)
	}
	got := leafTotals(g, v)
	want[notShownFrame] = total - shown
	for fn, n := range want {
		if got[fn] != n {
			t.Errorf("%s: %d samples, the file says %d", fn, got[fn], n)
		}
	}
	// The top named frame is the rank-1 row's method.
	var top string
	for fn, n := range got {
		if fn != notShownFrame && (top == "" || n > got[top]) {
			top = fn
		}
	}
	if top != "sun.io.ByteToCharSingleByte.convert" {
		t.Errorf("top frame %q", top)
	}
	if g.SoftTotal() != 0 || g.Damage != nil {
		t.Errorf("soft %v, damage %v", g.Soft, g.Damage)
	}
	notes := strings.Join(g.Source.Notes, "\n")
	for _, w := range []string{"excerpt: no `JAVA PROFILE` header", "1 `...` line", "10 row(s) name 10 trace(s)"} {
		if !strings.Contains(notes, w) {
			t.Errorf("notes lack %q:\n%s", w, notes)
		}
	}
}

// TestJVMPISpecSites: the specification's SITES example with its traces:
// `char []` allocated at TRACE 1073, whose top frame is
// java/lang/String.<init>, gives a char[] leaf under
// java.lang.String.<init> with the row's alloc'ed objects.
func TestJVMPISpecSites(t *testing.T) {
	g, data := parseFixture(t, "javac-heap-sites-with-traces.jvmpi-spec.txt", Options{})
	rows, _ := fileRows(t, data, "SITES")
	// The reader: row 1's trace and counts, the trace's frames.
	r := rows[0]
	if strings.Join(r[8:], " ") != "char []" {
		t.Fatalf("row 1 = %v", r)
	}
	frames := traceFrames(data, r[7])
	if len(frames) == 0 {
		t.Fatalf("TRACE %s not found", r[7])
	}
	v := g.View(graph.ViewAlloc)
	s, fr, ok := sampleWithLeaf(g, v, "char[]")
	if !ok {
		t.Fatal("no char[] sample")
	}
	if s.Values[0] != col(r, 6) || s.Values[1] != col(r, 5) || s.Values[2] != col(r, 4) || s.Values[3] != col(r, 3) {
		t.Errorf("char[] values %v, row %v", s.Values, r)
	}
	if s.Values[0] != 129884 {
		t.Errorf("char[] allocated %d", s.Values[0])
	}
	if len(fr) != len(frames)+1 {
		t.Fatalf("stack %+v, trace %v", fr, frames)
	}
	for i, want := range frames {
		if got := fr[i+1].Function(); got != want {
			t.Errorf("frame %d = %s, trace says %s", i, got, want)
		}
	}
	if fr[1].Function() != "java.lang.String.<init>" || fr[1].Line != 244 || fr[1].File != "String.java" {
		t.Errorf("frame under char[]: %+v", fr[1])
	}
	if label(s, graph.LabelClass) != "char[]" {
		t.Errorf("labels %v", s.Labels)
	}
	// Every row is in the view: the SITES rows shown are the total.
	var objs int64
	for _, r := range rows {
		objs += col(r, 6)
	}
	if got := v.Totals()[0]; got != objs {
		t.Errorf("alloc objects %d, rows %d", got, objs)
	}
	if _, _, ok := sampleWithLeaf(g, v, "java.util.Hashtable$Entry"); !ok {
		t.Error("no java.util.Hashtable$Entry leaf")
	}
	if g.Source.Writer != "hprof agent (JVMPI, JDK 1.2–1.4)" || g.SoftTotal() != 0 {
		t.Errorf("writer %q, soft %v", g.Source.Writer, g.Soft)
	}
}

// traceFrames returns the frames of TRACE serial as the file prints
// them, with slashes read as dots and the location dropped.
func traceFrames(data []byte, serial string) []string {
	var out []string
	in := false
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "TRACE ") {
			in = strings.HasPrefix(line, "TRACE "+serial+":")
			continue
		}
		if in && strings.HasPrefix(line, "\t") {
			name, _, _ := strings.Cut(strings.TrimSpace(line), "(")
			out = append(out, strings.ReplaceAll(name, "/", "."))
		} else {
			in = false
		}
	}
	return out
}

// TestJVMPIHeapHistogram: the JDK 1.4 text heap dump's class histogram.
// A separate reader counts the file's OBJ and ARR lines per class; for
// ARR it turns the JVMPI-era element type into the array's type itself.
func TestJVMPIHeapHistogram(t *testing.T) {
	g, data := parseFixture(t, "eiffel-jvmpi-heapdump-sites.hprof.txt", Options{})
	want := map[string][2]int64{}
	in := false
	for _, line := range strings.Split(string(data), "\n") {
		switch {
		case strings.HasPrefix(line, "HEAP DUMP BEGIN"):
			in = true
		case line == "HEAP DUMP END":
			in = false
		case in && (strings.HasPrefix(line, "OBJ ") || strings.HasPrefix(line, "ARR ")):
			class := elemArrayName(line)
			c := want[class]
			c[0]++
			c[1] += headerNum(line, "(sz=")
			want[class] = c
		}
	}
	got := map[string][2]int64{}
	v := g.View(graph.ViewHeap)
	for _, s := range v.Samples {
		c := got[label(s, graph.LabelClass)]
		c[0] += s.Values[0]
		c[1] += s.Values[1]
		got[label(s, graph.LabelClass)] = c
	}
	if len(got) != len(want) {
		t.Errorf("%d classes, the file has %d", len(got), len(want))
	}
	for class, w := range want {
		if got[class] != w {
			t.Errorf("%s: %v, the file has %v", class, got[class], w)
		}
	}
	// The JVMPI element types the reader saw, each in its array form.
	for _, class := range []string{"char[]", "char[][]", "java.util.HashMap$Entry[]", "java.lang.Object[]", "int[]"} {
		if want[class][0] == 0 {
			t.Errorf("reader found no %s", class)
		}
	}
	if g.SoftTotal() != 0 {
		t.Errorf("soft failures %v (trace 0 is the agent's \"no trace\")", g.Soft)
	}
	if g.Source.Writer != "hprof agent (JVMPI, JDK 1.2–1.4)" {
		t.Errorf("writer %q", g.Source.Writer)
	}
}

// elemArrayName is the test's own reading of an OBJ or ARR line's class.
func elemArrayName(line string) string {
	if _, c, ok := strings.Cut(line, "class="); ok {
		c, _, _ = strings.Cut(c, "@")
		return strings.TrimSuffix(c, ")")
	}
	_, e, _ := strings.Cut(line, "elem type=")
	e, _, _ = strings.Cut(e, "@")
	e = strings.TrimSuffix(e, ")")
	prims := map[string]string{"Z": "boolean", "B": "byte", "C": "char", "S": "short", "I": "int", "J": "long", "F": "float", "D": "double"}
	dims := strings.Count(e, "[")
	base := strings.TrimLeft(e, "[")
	if dims > 0 {
		if p, ok := prims[base]; ok {
			base = p
		} else {
			base = strings.TrimSuffix(strings.TrimPrefix(base, "L"), ";")
		}
	}
	return base + strings.Repeat("[]", dims+1)
}

// TestCutoffTotal: a JDK 8 CPU SAMPLES table cut by the agent's cutoff:
// its header says total = 42483, its rows add up to less; the cpu view
// says 42483, the difference on the not-shown frame.
func TestCutoffTotal(t *testing.T) {
	g, data := parseFixture(t, "xfvrp-cpu-samples.hprof.txt", Options{})
	rows, header := fileRows(t, data, "CPU SAMPLES")
	var shown int64
	for _, r := range rows {
		shown += col(r, 3)
	}
	total := headerNum(header, "total = ")
	v := g.View(graph.ViewCPU)
	if got := v.Totals()[0]; got != total || total != 42483 {
		t.Errorf("cpu samples %d, header %d", got, total)
	}
	if got := notShown(g, v)[0]; got != total-shown || got != 658 {
		t.Errorf("not shown %d, header − rows = %d", got, total-shown)
	}
	if !strings.Contains(strings.Join(v.Comments, "\n"), "the other 658") {
		t.Errorf("comments %q", v.Comments)
	}
	if len(g.Source.Notes) != 0 {
		t.Errorf("a whole report has notes %q", g.Source.Notes)
	}
}

// TestExcerptShapes: whole reports and excerpts in the shapes people
// paste them; each against the same report read whole.
func TestExcerptShapes(t *testing.T) {
	whole, data := parseFixture(t, "cpu-samples.cpuwork.jdk17.txt", Options{})
	body := data[bytes.Index(data, []byte("--------\n"))+len("--------\n"):]
	header := data[:bytes.IndexByte(data, '\n')+1]
	indented := regexpIndent(body, "    ")
	cases := []struct {
		name  string
		input []byte
		note  string
	}{
		{"header, no prelude", append(append([]byte{}, header...), body...), "no prelude: the records follow the header line"},
		{"no header", body, "no `JAVA PROFILE` header"},
		{"indented by four spaces", indented, "no `JAVA PROFILE` header"},
		{"CRLF and a line of prose", append([]byte("Our profile from Tuesday:\r\n\r\n"), bytes.ReplaceAll(body, []byte("\n"), []byte("\r\n"))...), "1 line of other text"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g, err := Parse(bytes.NewReader(c.input), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if g.Damage != nil || g.SoftTotal() != 0 {
				t.Fatalf("damage %v, soft %v", g.Damage, g.Soft)
			}
			if !strings.Contains(strings.Join(g.Source.Notes, "\n"), c.note) {
				t.Errorf("notes %q lack %q", g.Source.Notes, c.note)
			}
			a, b := whole.View(graph.ViewCPU), g.View(graph.ViewCPU)
			if b == nil || !bytes.Equal(dumpStacks(whole, a), dumpStacks(g, b)) {
				t.Errorf("cpu view differs from the whole report's")
			}
		})
	}
}

// dumpStacks is dumpView without the header lines (time, comments).
func dumpStacks(g *graph.Graph, v *graph.View) []byte {
	d := dumpView(g, v)
	return d[bytes.Index(d, []byte("totals ")):]
}

// regexpIndent indents every line by prefix.
func regexpIndent(b []byte, prefix string) []byte {
	lines := strings.Split(string(b), "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = prefix + l
		}
	}
	return []byte(strings.Join(lines, "\n"))
}

// TestExcerptSections: tables without END, a heap dump excerpt, traces
// after a table, each against the numbers written in the input.
func TestExcerptSections(t *testing.T) {
	heap := "HEAP DUMP BEGIN (10 objects, 400 bytes) Fri Oct 10 10:27:05 2003\n" +
		"OBJ b0ac020 (sz=24, trace=0, class=java.lang.String@6aeef0)\n" +
		"\tvalue\t\tb0adfc0\n" +
		"...\n" +
		"ARR b0adfc0 (sz=48, trace=0, nelems=18, elem type=char)\n" +
		"HEAP DUMP END\n"
	g, err := Parse(strings.NewReader(heap), Options{})
	if err != nil {
		t.Fatal(err)
	}
	v := g.View(graph.ViewHeap)
	if tot := v.Totals(); tot[0] != 10 || tot[1] != 400 || notShown(g, v)[0] != 8 || notShown(g, v)[1] != 328 {
		t.Errorf("heap totals %v, not shown %v", tot, notShown(g, v))
	}
	if _, _, ok := sampleWithLeaf(g, v, "char[]"); !ok || g.SoftTotal() != 0 {
		t.Errorf("no char[] from `elem type=char`, soft %v", g.Soft)
	}

	// A table without END followed by its traces (the JVMTI manual's
	// layout), and a table that ends the text without END.
	for _, name := range []string{"jvmti-sites-traces.excerpt.txt"} {
		g, data := parseFixture(t, name, Options{})
		rows, _ := fileRows(t, data, "SITES")
		v := g.View(graph.ViewAlloc)
		if v == nil || len(v.Samples) != len(rows) {
			t.Fatalf("alloc view %v, %d rows", v, len(rows))
		}
		for _, r := range rows {
			frames := traceFramesIndented(data, r[7])
			_, fr, ok := sampleWithLeaf(g, v, r[8])
			if !ok || len(fr) != len(frames)+1 || fr[1].Function() != frames[0] {
				t.Errorf("row %v: stack %+v, trace %v", r, fr, frames)
			}
		}
		if !strings.Contains(strings.Join(g.Source.Notes, "\n"), "the SITES section has no END line") {
			t.Errorf("notes %q", g.Source.Notes)
		}
	}
	g, err = Parse(strings.NewReader("CPU SAMPLES BEGIN (total = 9) Fri Feb  6 13:33:07 2004\nrank   self  accum   count trace method\n   1 44.44% 44.44%       4 300187 java.util.zip.ZipFile.getNextEntry"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if v := g.View(graph.ViewCPU); v == nil || v.Totals()[0] != 9 || notShown(g, v)[0] != 5 || g.Damage != nil {
		t.Errorf("cpu view %v, damage %v", v, g.Damage)
	}
}

// TestJVMPIMonitorDump: the JVMPI-era MONITOR DUMP, with slash names and
// the VM's raw monitors, gives one thread sample per THREAD line and the
// monitor each one waits on.
func TestJVMPIMonitorDump(t *testing.T) {
	in := "THREAD START (obj=6aeaf0, id = 3, name=\"main\", group=\"main\")\n" +
		"THREAD START (obj=6b7f70, id = 7, name=\"Thread-0\", group=\"main\")\n" +
		"TRACE 12: (thread=3)\n\tjava/lang/Object.wait(Object.java:Native method)\n" +
		"TRACE 13: (thread=7)\n\tWorker.run(Worker.java:40)\n" +
		"MONITOR DUMP BEGIN\n" +
		"    THREAD 3, trace 12, status: CW\n" +
		"    THREAD 7, trace 13, status: MW\n" +
		"    MONITOR java/util/Vector\n\towner: thread 9, entry count: 1\n\twaiting to be notified: thread 3\n" +
		"    RAW MONITOR \"Heap lock\"(0x1d5a70)\n\towner: thread 9, entry count: 1\n\twaiting to enter: thread 7\n" +
		"MONITOR DUMP END\n"
	g, err := Parse(strings.NewReader(in), Options{})
	if err != nil {
		t.Fatal(err)
	}
	v := g.View(graph.ViewThreads)
	if v == nil || len(v.Samples) != 2 || g.SoftTotal() != 0 {
		t.Fatalf("threads view %v, soft %v", v, g.Soft)
	}
	want := map[string][2]string{"main": {"waiting", "java.util.Vector"}, "Thread-0": {"blocked", "\"Heap lock\"(0x1d5a70)"}}
	for _, s := range v.Samples {
		w := want[label(s, graph.LabelThread)]
		if label(s, graph.LabelState) != w[0] || label(s, graph.LabelMonitor) != w[1] {
			t.Errorf("sample labels %v, want %v", s.Labels, w)
		}
	}
}

// traceFramesIndented is traceFrames for frames indented by spaces.
func traceFramesIndented(data []byte, serial string) []string {
	return traceFrames(bytes.ReplaceAll(data, []byte("        "), []byte("\t")), serial)
}

// TestTracesOnly: an excerpt of traces and threads makes no view, and
// says so; it is neither damaged nor an error.
func TestTracesOnly(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(localTestdata, "javac-traces.jvmpi-spec.txt"))
	if err != nil {
		t.Fatal(err)
	}
	g, err := Parse(bytes.NewReader(data), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Views) != 0 || g.Damage != nil || g.Source.Records["TRACE"] != int64(bytes.Count(data, []byte("TRACE "))) {
		t.Errorf("views %d, damage %v, records %v", len(g.Views), g.Damage, g.Source.Records)
	}
	if len(g.Threads) != 1 || g.Threads[0].Name != "main" || g.Threads[0].Serial != 1 {
		t.Errorf("threads %+v", g.Threads)
	}
	if !strings.Contains(strings.Join(g.Source.Notes, "\n"), "nothing to make a view of") {
		t.Errorf("notes %q", g.Source.Notes)
	}
}

// TestNotText: text that holds no hprof record is still refused, and so
// is the agent's prelude alone, which names the records in prose.
func TestNotText(t *testing.T) {
	prelude := mustRead(t, filepath.Join(testdataDir, "cpu-samples.cpuwork.jdk17.txt"))
	prelude = prelude[bytes.IndexByte(prelude, '\n')+1 : bytes.Index(prelude, []byte("--------"))]
	for name, in := range map[string]string{
		"prose":                  "Dear team,\nthe SITES table below shows…\nregards\n",
		"prelude":                string(prelude),
		"trace without colon":    "TRACE 300001\n\tFoo.bar(Foo.java:1)\n",
		"binary before a record": "\x00\x01\x02\nTRACE 1:\n",
	} {
		if Sniff([]byte(in)) {
			t.Errorf("%s: Sniff accepts it", name)
		}
		if _, err := Parse(strings.NewReader(in), Options{}); !errors.Is(err, ErrNotText) {
			t.Errorf("%s: err = %v, want ErrNotText", name, err)
		}
	}
	for _, in := range []string{
		"TRACE 1073: (thread=1)\n\tjava/lang/String.<init>(String.java:244)\n",
		"Command used: javac -J-agentlib:hprof=heap=sites Hello.java\n\nSITES BEGIN (ordered by live bytes) Fri Feb  6 13:13:42 2004\n",
		"    CPU SAMPLES BEGIN (total = 462) Fri Feb  6 13:33:07 2004\n",
		"THREAD START (obj=1d6b20, id = 1, name=\"main\", group=\"main\")\n",
		"CPU TIME (ms) BEGIN (total = 2082665289) Fri Feb  6 13:43:42 2004\r\n",
		"MONITOR TIME BEGIN (total = 1 ms) Sat Nov 21 22:45:50 2026\n",
		"WAIT: MONITOR Ljava/lang/Object;, timeout=0, thread 200001\n",
	} {
		if !Sniff([]byte(in)) {
			t.Errorf("Sniff(%.50q) = false", in)
		}
	}
	// A record line the 512-byte peek cuts is still recognised.
	if !Sniff([]byte(strings.Repeat("x", 480) + "\nSITES BEGIN (ordered by")) {
		t.Error("a BEGIN line cut by the peek is not recognised")
	}
}
