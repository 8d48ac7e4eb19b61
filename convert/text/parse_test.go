package text

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
)

func parseFixture(t *testing.T, name string, opts Options) (*graph.Graph, []byte) {
	t.Helper()
	path := filepath.Join(testdataDir, name)
	var data []byte
	if b, err := readFixture(path, 0); err == nil {
		data = b
	} else {
		data = mustRead(t, path+".gz")
	}
	g, err := Parse(bytes.NewReader(data), opts)
	if err != nil {
		t.Fatal(err)
	}
	return g, data
}

// findFrames returns the frames (leaf first) of the first sample whose
// leaf is fn.
func sampleWithLeaf(g *graph.Graph, v *graph.View, fn string) (graph.Sample, []graph.Frame, bool) {
	for _, s := range v.Samples {
		st := g.Stacks[s.Stack]
		if len(st) > 0 && g.Frames[st[0]].Function() == fn {
			fr := make([]graph.Frame, len(st))
			for i, id := range st {
				fr[i] = g.Frames[id]
			}
			return s, fr, true
		}
	}
	return graph.Sample{}, nil, false
}

func label(s graph.Sample, key string) string {
	for _, l := range s.Labels {
		if l.Key == key {
			return l.Str
		}
	}
	return ""
}

func TestFrameNames(t *testing.T) {
	g, _ := parseFixture(t, "cpu-samples.cpuwork.jdk17.txt", Options{})
	v := g.View(graph.ViewCPU)
	// TRACE 300094: sun.nio.ch.Net.accept(Net.java:Unknown line) … 8 frames.
	s, fr, ok := sampleWithLeaf(g, v, "sun.nio.ch.Net.accept")
	if !ok {
		t.Fatal("no Net.accept sample")
	}
	want := graph.Frame{Kind: graph.KindMethod, Class: "sun.nio.ch.Net", Method: "accept", File: "Net.java", Line: graph.LineUnknown}
	if fr[0] != want {
		t.Errorf("leaf = %+v, want %+v", fr[0], want)
	}
	if len(fr) != 8 || fr[7].Function() != "CpuWork.lambda$main$1" || fr[7].Line != 75 {
		t.Errorf("stack = %+v", fr)
	}
	if s.Values[0] != 124 || label(s, graph.LabelState) != "blocked" {
		t.Errorf("Net.accept sample = %+v", s)
	}
	// TRACE 300111: hidden lambda class with <Unknown Source>, Thread.run at 840.
	_, fr, ok = sampleWithLeaf(g, v, "CpuWork.mandel")
	if !ok {
		t.Fatal("no mandel sample")
	}
	lambda := graph.Frame{Kind: graph.KindMethod, Class: "CpuWork$$Lambda$44.0x00000007c00c1ab8", Method: "run", Line: graph.LineUnknown}
	run := graph.Frame{Kind: graph.KindMethod, Class: "java.lang.Thread", Method: "run", File: "Thread.java", Line: 840}
	if fr[2] != lambda || fr[len(fr)-1] != run {
		t.Errorf("mandel stack = %+v", fr)
	}
}

func TestParseFrameLines(t *testing.T) {
	cases := map[string]graph.Frame{
		"java.lang.Thread.run(Thread.java:840)":            {Kind: graph.KindMethod, Class: "java.lang.Thread", Method: "run", File: "Thread.java", Line: 840},
		"java.lang.Object.wait(Object.java:Native method)": {Kind: graph.KindMethod, Class: "java.lang.Object", Method: "wait", File: "Object.java", Line: graph.LineNative},
		"Foo.bar(Foo.java:Compiled method)":                {Kind: graph.KindMethod, Class: "Foo", Method: "bar", File: "Foo.java", Line: graph.LineCompiled},
		"java.lang.Thread.<init>(Thread.java:402)":         {Kind: graph.KindMethod, Class: "java.lang.Thread", Method: "<init>", File: "Thread.java", Line: 402},
		// JVMPI era (JDK 1.2–1.4): slash names, `<Unknown>` for no file.
		"java/lang/String.<init>(String.java:244)": {Kind: graph.KindMethod, Class: "java.lang.String", Method: "<init>", File: "String.java", Line: 244},
		"org.apache.xerces.impl.XMLEntityManager.startEntity(<Unknown>:Unknown line)": {
			Kind: graph.KindMethod, Class: "org.apache.xerces.impl.XMLEntityManager", Method: "startEntity", Line: graph.LineUnknown},
		"java.lang.invoke.LambdaForm$MH.0x0000000801001000.invoke(LambdaForm$MH:Unknown line)": {
			Kind: graph.KindMethod, Class: "java.lang.invoke.LambdaForm$MH.0x0000000801001000", Method: "invoke", File: "LambdaForm$MH", Line: graph.LineUnknown},
	}
	for in, want := range cases {
		got, ok := parseFrame(in)
		if !ok || got != want {
			t.Errorf("parseFrame(%q) = %+v %v, want %+v", in, got, ok, want)
		}
	}
	for _, bad := range []string{"", "noparen", "Foo.bar(Foo.java)", "bar(Foo.java:1)", "Foo.bar(Foo.java:-5)", "Foo.bar(Foo.java:x)"} {
		if f, ok := parseFrame(bad); ok {
			t.Errorf("parseFrame(%q) accepted: %+v", bad, f)
		}
	}
}

func TestJavaClassName(t *testing.T) {
	cases := map[string]string{
		"char[]":                    "char[]",
		"[C":                        "char[]",
		"[[I":                       "int[][]",
		"[Ljava/lang/String;":       "java.lang.String[]",
		"[[Ljava.lang.String;":      "java.lang.String[][]",
		"Ljava/lang/Thread;":        "java.lang.Thread",
		"java/util/HashMap$Node":    "java.util.HashMap$Node",
		"char []":                   "char[]",
		"java/lang/Object [] []":    "java.lang.Object[][]",
		"java/util/Hashtable$Entry": "java.util.Hashtable$Entry",
		"java.lang.String[][]":      "java.lang.String[][]",
		"AllocWork$$Lambda$36.0x00000007c00c4220": "AllocWork$$Lambda$36.0x00000007c00c4220",
	}
	for in, want := range cases {
		if got := javaClassName(in); got != want {
			t.Errorf("javaClassName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestBlockedLabel: the samples labelled blocked are exactly the rows
// whose method column names a blocking native, by the file's own table.
func TestBlockedLabel(t *testing.T) {
	g, data := parseFixture(t, "cpu-samples.cpuwork.jdk17.txt", Options{})
	var want int64
	for _, s := range readSections(data) {
		for _, r := range dataRows(s.rows) {
			if r[5] == "sun.nio.ch.Net.accept" || r[5] == "sun.nio.ch.SocketDispatcher.read0" {
				want += col(r, 3)
			}
		}
	}
	var got int64
	for _, s := range g.View(graph.ViewCPU).Samples {
		if label(s, graph.LabelState) == "blocked" {
			got += s.Values[0]
		}
	}
	if got != want || want == 0 {
		t.Errorf("blocked samples = %d, file rows say %d", got, want)
	}
}

func TestThreadLabels(t *testing.T) {
	path := filepath.Join(corpusDirs[1], "cykl-cpu=samples,depth=100,interval=10,lineno=y,thread=y.hprof.txt")
	data, err := readFixture(path, 0)
	if err != nil {
		t.Skip("shared corpus not present:", err)
	}
	g, err := Parse(bytes.NewReader(data), Options{Interval: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	// TRACE 301000 is (thread=200001), THREAD START names 200001 "main".
	s, _, ok := sampleWithLeaf(g, g.View(graph.ViewCPU), "java.lang.ClassLoader.defineClass1")
	if !ok || label(s, graph.LabelThread) != "main" {
		t.Errorf("defineClass1 sample = %+v", s)
	}
}

func TestDumps(t *testing.T) {
	_, data := parseFixture(t, "sigquit-cpu-samples.cpuwork.jdk17.txt", Options{})
	secs := readSections(data)
	if len(secs) != 3 {
		t.Fatalf("oracle found %d sections", len(secs))
	}
	for i, s := range secs {
		g, _ := parseFixture(t, "sigquit-cpu-samples.cpuwork.jdk17.txt", Options{Dump: i + 1})
		want := headerNum(s.header, "total = ")
		if got := g.View(graph.ViewCPU).Totals()[0]; got != want {
			t.Errorf("dump %d: %d samples, header says %d", i+1, got, want)
		}
		if g.Source.Dumps != 3 {
			t.Errorf("Dumps = %d", g.Source.Dumps)
		}
	}
	_, err := Parse(bytes.NewReader(data), Options{Dump: 4})
	if !errors.Is(err, ErrNoDump) {
		t.Errorf("dump 4: err = %v, want ErrNoDump", err)
	}
}

func TestMonitorViews(t *testing.T) {
	g, data := parseFixture(t, "monitor.monitorpileup.jdk17.txt", Options{})
	v := g.View(graph.ViewMonitor)
	if v == nil || len(v.Samples) != 1 {
		t.Fatalf("monitor view = %+v", v)
	}
	// `1 100.00% 100.00% 300 300031 java.lang.Object (Java)`, total = 1 ms.
	s := v.Samples[0]
	if s.Values[0] != 300 || s.Values[1] != 1_000_000 || label(s, graph.LabelMonitor) != "java.lang.Object" {
		t.Errorf("monitor sample = %+v", s)
	}
	th := g.View(graph.ViewThreads)
	states := map[string]int64{}
	for _, s := range th.Samples {
		states[label(s, graph.LabelState)] += s.Values[0]
	}
	// The file's MONITOR DUMP: status R = runnable, ZO = terminated.
	want := map[string]int64{}
	for _, sec := range readSections(data) {
		for _, r := range sec.rows {
			if sec.name == "MONITOR DUMP" && len(r) == 6 {
				want[map[string]string{"R": "runnable", "ZO": "terminated"}[r[5]]]++
			}
		}
	}
	if len(want) != 2 || states["runnable"] != want["runnable"] || states["terminated"] != want["terminated"] {
		t.Errorf("states = %v, file says %v", states, want)
	}
}

// cut returns data up to the first occurrence of marker (plus extra bytes).
func cut(t *testing.T, data []byte, marker string, extra int) []byte {
	t.Helper()
	i := bytes.Index(data, []byte(marker))
	if i < 0 {
		t.Fatalf("marker %q not found", marker)
	}
	return data[:i+extra]
}

func TestTruncated(t *testing.T) {
	_, cpu := parseFixture(t, "cpu-samples.cpuwork.jdk17.txt", Options{})
	_, sq := parseFixture(t, "sigquit-cpu-samples.cpuwork.jdk17.txt", Options{})
	secs := readSections(sq)
	firstTwo := headerNum(secs[0].header, "total = ") + headerNum(secs[1].header, "total = ")
	cases := []struct {
		name     string
		data     []byte
		want     error
		cpu      int64 // samples expected in the cpu view; -1 none
		lostWord string
	}{
		// The real killed text file stops right after the separator.
		{"after prelude", cut(t, cpu, "--------\n\n", len("--------\n\n")), ErrNoData, -1, "flushed"},
		{"inside prelude", cut(t, cpu, "THIS SOFTWARE", 0), ErrTruncated, -1, "first"},
		{"inside CPU SAMPLES", cut(t, cpu, "  10  1.08%", 0), ErrTruncated, -1, "CPU SAMPLES"},
		{"mid frame line", cut(t, cpu, "\tsun.nio.ch.NioSocketImpl.accept(", 12), ErrTruncated, -1, "line"},
		{"mid row of a later dump", cut(t, sq, "CPU SAMPLES BEGIN (total = 265)", 300), ErrTruncated, firstTwo, "dump 3"},
		{"third dump cut", cut(t, sq, "CPU SAMPLES BEGIN (total = 265)", 200), ErrTruncated, firstTwo, "dump 3"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g, err := Parse(bytes.NewReader(c.data), Options{})
			if err != nil {
				t.Fatalf("err = %v, want a damaged graph", err)
			}
			if !errors.Is(g.Damage, c.want) {
				t.Errorf("Damage = %v, want %v", g.Damage, c.want)
			}
			if !strings.Contains(g.Lost, c.lostWord) {
				t.Errorf("Lost = %q, want it to mention %q", g.Lost, c.lostWord)
			}
			v := g.View(graph.ViewCPU)
			switch {
			case c.cpu < 0 && v != nil:
				t.Errorf("cpu view from an incomplete section: %v", v.Totals())
			case c.cpu >= 0 && (v == nil || v.Totals()[0] != c.cpu):
				t.Errorf("cpu view = %v, want %d samples", v, c.cpu)
			}
		})
	}
}

func TestMalformed(t *testing.T) {
	head := "JAVA PROFILE 1.0.1, created Sat Nov 21 22:43:29 2026\n\nprelude\r\n--------\n\n"
	cases := []struct {
		body string
		line int
	}{
		{"TRACE x:\n", 6},
		{"TRACE 1:\n\tnot a frame\n", 7},
		{"TRACE 1:\n\tFoo.bar(Foo.java:12)\n\tFoo.baz(Foo.java:zz)\n", 8},
		{"THREAD START (obj=zz, id = 1, name=\"a\", group=\"b\")\n", 6},
		{"THREAD END (id = x)\n", 6},
		{"CPU SAMPLES BEGIN (total = x) Sat Nov 21 22:43:32 2026\nCPU SAMPLES END\n", 6},
		{"CPU SAMPLES BEGIN (total = 3) Sat Nov 21 22:43:32 2026\nrank   self  accum   count trace method\n   1 bad 100.00% 3 300001 Foo.bar\nCPU SAMPLES END\n", 8},
		{"SITES BEGIN (ordered by live bytes) Sat Nov 21 22:43:44 2026\n    1 31.59% 31.59%   3904160 3754   8320000\nSITES END\n", 7},
		{"HEAP DUMP BEGIN (1 objects, 16 bytes) Sat Nov 21 22:44:46 2026\nOBJ 50000347 (sz=x, trace=300007, class=java.lang.Object@50000335)\nHEAP DUMP END\n", 7},
		{"MONITOR DUMP BEGIN\n    THREAD 200001, status: ZO\nMONITOR DUMP END\n", 7},
		{"WAIT: MONITOR Lfoo;, timeout=0, thread x\n", 6},
		{"x\n" + strings.Repeat("y", maxLine+10) + "\n", 7},
	}
	for _, c := range cases {
		_, err := Parse(strings.NewReader(head+c.body), Options{})
		var se *SyntaxError
		if !errors.Is(err, ErrSyntax) || !errors.As(err, &se) {
			t.Errorf("%.40q: err = %v, want ErrSyntax", c.body, err)
			continue
		}
		if se.Line != c.line {
			t.Errorf("%.40q: line %d, want %d (%v)", c.body, se.Line, c.line, err)
		}
	}
	// cpu=old rows.
	_, err := Parse(strings.NewReader("count callee caller time\n1 Foo.bar()V Foo.baz()V 3\nx y z\n"), Options{})
	var se *SyntaxError
	if !errors.As(err, &se) || se.Line != 3 {
		t.Errorf("cpu=old: err = %v, want a syntax error at line 3", err)
	}
}

func TestSniff(t *testing.T) {
	cases := map[string]bool{
		"JAVA PROFILE 1.0.1, created Sat Nov 21 22:43:29 2026\n": true,
		"JAVA PROFILE 1.0.1, cr":                                 true, // short prefix
		"JAVA PROFILE 1.0.2\x00\x00\x00\x00\x04":                 false,
		"JAVA PROFILE 1.0.1":                                     false,
		"count callee caller time\n1 a b 2\n":                    true,
		"count callee caller time\r\n":                           true,
		"count callee caller timex":                              false,
		"":                                                       false,
		"PK\x03\x04":                                             false,
	}
	for in, want := range cases {
		if got := Sniff([]byte(in)); got != want {
			t.Errorf("Sniff(%q) = %v, want %v", in, got, want)
		}
	}
	if _, err := Parse(strings.NewReader("JAVA PROFILE 1.0.2\x00"), Options{}); !errors.Is(err, ErrNotText) {
		t.Errorf("binary header: err = %v, want ErrNotText", err)
	}
}

func TestSourceInfo(t *testing.T) {
	g, data := parseFixture(t, "heap-dump.allocwork.jdk17.txt", Options{})
	src := g.Source
	if src.Format != "hprof-text" || src.Version != "JAVA PROFILE 1.0.1" || src.Dumps != 1 || src.Dump != 1 {
		t.Errorf("Source = %+v", src)
	}
	// The header line of this file: `created Sat Nov 21 22:44:46 2026`.
	if want := time.Date(2026, 11, 21, 22, 44, 46, 0, time.UTC); !src.Time.Equal(want) {
		t.Errorf("header time %v, want %v", src.Time, want)
	}
	if src.Bytes != int64(len(data)) {
		t.Errorf("Bytes = %d, file has %d", src.Bytes, len(data))
	}
	// The header's object count differs from the records (dead objects):
	// the view says both.
	c := strings.Join(g.View(graph.ViewHeap).Comments, "\n")
	if !strings.Contains(c, "header says 5999 objects") || !strings.Contains(c, "17927 OBJ/ARR records") {
		t.Errorf("heap comments = %q", c)
	}
}
