package convert

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/hprof"
	"github.com/hprof2pprof/hprof2pprof/pprofout"
)

func mustConvert(t *testing.T, path string, opts Options) *graph.Graph {
	t.Helper()
	g, err := ConvertFile(context.Background(), path, opts)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// sameEncoding reports whether view encodes to the same pprof bytes in
// a and b.
func sameEncoding(t *testing.T, a, b *graph.Graph, view string) bool {
	t.Helper()
	var ea, eb bytes.Buffer
	if err := pprofout.Write(&ea, a, view); err != nil {
		t.Fatal(err)
	}
	if err := pprofout.Write(&eb, b, view); err != nil {
		t.Fatal(err)
	}
	return bytes.Equal(ea.Bytes(), eb.Bytes())
}

// rawRecords reads every non-heap record of a file with the low-level
// reader, for tests that check views against the records themselves.
func rawRecords(t *testing.T, path string, fn func(r *hprof.Reader, rec hprof.Record, body []byte)) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := hprof.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if rec.Tag == hprof.TagHeapDump || rec.Tag == hprof.TagHeapDumpSegment {
			continue
		}
		body, err := r.Body()
		if err != nil {
			t.Fatal(err)
		}
		fn(r, rec, body)
	}
}

func TestCPUSamplesTotals(t *testing.T) {
	const path = "../testdata/cpu-samples.cpuwork.jdk17.hprof"
	g := mustConvert(t, path, Options{})
	v := g.View(graph.ViewCPU)
	if v == nil {
		t.Fatal("no cpu view")
	}
	// The corpus README: "CPU_SAMPLES: total samples 932, trace entries 123".
	tot := v.Totals()
	if tot[0] != 932 {
		t.Errorf("samples = %d, want 932", tot[0])
	}
	if tot[1] != 932*int64(graph.DefaultCPUInterval) {
		t.Errorf("cpu = %d ns, want 932 × 10ms", tot[1])
	}
	// Per trace: rebuild "leaf method → samples" from the raw records
	// and compare with the view's leaves.
	strs := map[uint64]string{}
	frameMethod := map[uint64]string{}
	traceLeaf := map[uint32]string{}
	want := map[string]int64{}
	entries := 0
	rawRecords(t, path, func(r *hprof.Reader, rec hprof.Record, body []byte) {
		switch rec.Tag {
		case hprof.TagUTF8:
			u, _ := r.DecodeUTF8(rec, body)
			strs[u.ID] = string(u.Text)
		case hprof.TagFrame:
			f, _ := r.DecodeFrame(rec, body)
			frameMethod[f.ID] = strs[f.MethodID]
		case hprof.TagTrace:
			tr, _ := r.DecodeTrace(rec, body, nil)
			if len(tr.Frames) > 0 {
				traceLeaf[tr.Serial] = frameMethod[tr.Frames[0]]
			}
		case hprof.TagCPUSamples:
			c, _ := r.DecodeCPUSamples(rec, body)
			entries += len(c.Traces)
			for _, e := range c.Traces {
				want[traceLeaf[e.TraceSerial]] += int64(e.Count)
			}
		}
	})
	if entries != 123 {
		t.Errorf("raw record has %d entries, README says 123", entries)
	}
	got := map[string]int64{}
	for _, s := range v.Samples {
		leaf := ""
		if st := g.Stacks[s.Stack]; len(st) > 0 {
			leaf = g.Frames[st[0]].Method
		}
		got[leaf] += s.Values[0]
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("leaf %q: %d samples, records say %d", k, got[k], w)
		}
	}
}

func TestCPUBlockedLabels(t *testing.T) {
	g := mustConvert(t, "../testdata/cpu-samples.cpuwork.jdk17.hprof", Options{})
	v := g.View(graph.ViewCPU)
	blocked := map[string]int64{}
	for _, s := range v.Samples {
		for _, l := range s.Labels {
			if l.Key == graph.LabelState && l.Str == "blocked" {
				blocked[g.Frames[g.Stacks[s.Stack][0]].Function()] += s.Values[0]
			}
		}
	}
	// CpuWork parks one thread in accept() and one in read(); the agent
	// counts both as running (corpus README).
	for _, fn := range []string{"sun.nio.ch.Net.accept", "sun.nio.ch.SocketDispatcher.read0"} {
		if blocked[fn] == 0 {
			t.Errorf("%s not labelled state=blocked (blocked: %v)", fn, blocked)
		}
	}
	for fn := range blocked {
		if strings.HasPrefix(fn, "CpuWork.") {
			t.Errorf("%s labelled blocked", fn)
		}
	}
}

func TestAllocSitesSums(t *testing.T) {
	for _, path := range []string{"../testdata/heap-sites.allocwork.jdk17.hprof", "../testdata/heap-all-cpu-samples.allocwork.jdk25.hprof"} {
		t.Run(path, func(t *testing.T) {
			g := mustConvert(t, path, Options{})
			v := g.View(graph.ViewAlloc)
			if v == nil {
				t.Fatal("no alloc view")
			}
			var want [4]int64
			rawRecords(t, path, func(r *hprof.Reader, rec hprof.Record, body []byte) {
				if rec.Tag == hprof.TagAllocSites {
					s, err := r.DecodeAllocSites(rec, body)
					if err != nil {
						t.Fatal(err)
					}
					want = [4]int64{}
					for _, x := range s.Sites {
						want[0] += int64(x.AllocObjects)
						want[1] += int64(x.AllocBytes)
						want[2] += int64(x.LiveInstances)
						want[3] += int64(x.LiveBytes)
					}
				}
			})
			got := v.Totals()
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("%s = %d, site rows sum to %d", v.SampleTypes[i].Type, got[i], want[i])
				}
			}
			for _, s := range v.Samples {
				leaf := g.Frames[g.Stacks[s.Stack][0]]
				if leaf.Kind != graph.KindClass || leaf.Class != s.Labels[0].Str {
					t.Errorf("alloc sample leaf %+v does not name its class label %v", leaf, s.Labels)
				}
			}
		})
	}
}

func TestAgentHeapDumpStacks(t *testing.T) {
	// heap=dump objects carry the trace of their allocation: the stack
	// is that trace with the class as leaf.
	g := mustConvert(t, "../testdata/heap-dump.allocwork.jdk17.hprof", Options{})
	v := g.View(graph.ViewHeap)
	withTrace := 0
	for _, s := range v.Samples {
		st := g.Stacks[s.Stack]
		if len(st) > 1 && g.Frames[st[1]].Kind == graph.KindMethod {
			withTrace++
			if g.Frames[st[0]].Function() != s.Labels[0].Str {
				t.Errorf("leaf %q is not the class %q", g.Frames[st[0]].Function(), s.Labels[0].Str)
			}
		}
	}
	if withTrace == 0 {
		t.Error("no heap sample has an allocation trace")
	}
}

func TestKilledAgentFileIsPartial(t *testing.T) {
	g := mustConvert(t, "../testdata/killed-cpu-samples.cpuwork.jdk17.hprof", Options{})
	if !errors.Is(g.Damage, hprof.ErrTruncated) {
		t.Fatalf("damage = %v, want ErrTruncated", g.Damage)
	}
	var fe *hprof.FormatError
	if !errors.As(g.Damage, &fe) || !strings.Contains(fe.Record, "STRING IN UTF8 record at byte 65523") {
		t.Errorf("damage does not name the cut record: %v", g.Damage)
	}
	// The corpus README counts the records before the cut.
	for tag, n := range map[string]int64{"LOAD CLASS": 922, "START THREAD": 2, "CONTROL SETTINGS": 1} {
		if g.Source.Records[tag] != n {
			t.Errorf("%s: %d records, want %d", tag, g.Source.Records[tag], n)
		}
	}
	if !strings.Contains(g.Lost, "65523") {
		t.Errorf("Lost = %q", g.Lost)
	}
}

// cutCopy writes the first n bytes of src to a temp file.
func cutCopy(t *testing.T, src string, n int64) string {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	p := t.TempDir() + "/cut.hprof"
	if err := os.WriteFile(p, b[:n], 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestTruncatedHeapDump(t *testing.T) {
	const src = "../testdata/jdk17-zoo-live.hprof"
	fi, err := os.Stat(src)
	if err != nil {
		t.Fatal(err)
	}
	full := heapHistogram(t, mustConvert(t, src, Options{}))
	var fullObjs int64
	for _, x := range full {
		fullObjs += x[0]
	}
	for _, frac := range []float64{0.02, 0.3, 0.6, 0.95} {
		n := int64(float64(fi.Size()) * frac)
		g := mustConvert(t, cutCopy(t, src, n), Options{})
		if !errors.Is(g.Damage, hprof.ErrTruncated) {
			t.Errorf("cut at %d: damage = %v", n, g.Damage)
			continue
		}
		if g.Lost == "" {
			t.Errorf("cut at %d: nothing says what was lost", n)
		}
		if v := g.View(graph.ViewHeap); v != nil {
			objs := v.Totals()[0]
			if objs >= fullObjs {
				t.Errorf("cut at %d: %d objects, the whole file has %d", n, objs, fullObjs)
			}
		}
	}
	// Cut exactly before HEAP DUMP END: every object is there, but the
	// dump is not known to be complete.
	g := mustConvert(t, cutCopy(t, src, fi.Size()-9), Options{})
	if !errors.Is(g.Damage, hprof.ErrTruncated) || !strings.Contains(g.Lost, "no HEAP DUMP END") {
		t.Errorf("missing HEAP DUMP END not reported: %v; %q", g.Damage, g.Lost)
	}
	compareHistograms(t, heapHistogram(t, g), full)
}

// hprofFile assembles a binary HPROF file with ID size 8.
type hprofFile struct{ bytes.Buffer }

func newHprofFile() *hprofFile {
	f := &hprofFile{}
	f.WriteString("JAVA PROFILE 1.0.2\x00")
	binary.Write(f, binary.BigEndian, uint32(8))
	binary.Write(f, binary.BigEndian, uint64(1700000000000))
	return f
}

func (f *hprofFile) record(tag byte, body []byte) *hprofFile {
	f.WriteByte(tag)
	binary.Write(f, binary.BigEndian, uint32(0))
	binary.Write(f, binary.BigEndian, uint32(len(body)))
	f.Write(body)
	return f
}

func be(vals ...any) []byte {
	var b bytes.Buffer
	for _, v := range vals {
		binary.Write(&b, binary.BigEndian, v)
	}
	return b.Bytes()
}

func TestMalformedInputs(t *testing.T) {
	for _, c := range []struct {
		name   string
		data   []byte
		err    error  // for inputs that yield no graph
		damage error  // for inputs that yield a partial graph
		where  string // text the error must contain
	}{
		{"empty", nil, ErrNotHPROF, nil, "empty"},
		{"random", []byte("\x00\x01\x02garbage\xff\xfe"), ErrNotHPROF, nil, "unknown"},
		{"jfr", []byte("FLR\x00\x00\x02\x00\x00"), ErrNotHPROF, nil, "Flight Recorder"},
		{"bad version", []byte("JAVA PROFILE 1.0.9\x00\x00\x00\x00\x08\x00\x00\x00\x00\x00\x00\x00\x00"), ErrUnsupported, nil, "1.0.9"},
		{"id size 3", []byte("JAVA PROFILE 1.0.2\x00\x00\x00\x00\x03\x00\x00\x00\x00\x00\x00\x00\x00"), ErrUnsupported, nil, "identifier size 3"},
		{"header cut", []byte("JAVA PROFILE 1.0.2\x00\x00\x00"), hprof.ErrTruncated, nil, "header"},
		{"record header cut", append(newHprofFile().Bytes(), 0x01, 0, 0), nil, hprof.ErrTruncated, "byte 31"},
		{"body longer than file", newHprofFile().record(0x01, be(uint64(1), []byte("abc"))).withoutLast(3), nil, hprof.ErrTruncated, "STRING IN UTF8 record at byte 31"},
		{"trace count lies", newHprofFile().record(0x05, be(uint32(1), uint32(0), uint32(1<<30))).Bytes(), nil, hprof.ErrCorrupt, "count 1073741824"},
		{"sites count lies", newHprofFile().record(0x06, be(uint16(0), uint32(0), uint32(0), uint32(0), uint64(0), uint64(0), uint32(1<<31))).Bytes(), nil, hprof.ErrCorrupt, "ALLOC SITES"},
		{"load class short", newHprofFile().record(0x02, be(uint32(1))).Bytes(), nil, hprof.ErrCorrupt, "LOAD CLASS record at byte 31"},
		{"unknown heap sub-record", newHprofFile().record(0x1C, []byte{0x77, 1, 2, 3}).Bytes(), nil, hprof.ErrUnsupported, "0x77"},
		{"instance longer than segment", newHprofFile().record(0x1C, be(uint8(0x21), uint64(1), uint32(0), uint64(2), uint32(1<<31))).Bytes(), nil, hprof.ErrCorrupt, "INSTANCE DUMP"},
		{"array count lies", newHprofFile().record(0x1C, be(uint8(0x23), uint64(1), uint32(0), uint32(1<<31), uint8(10))).Bytes(), nil, hprof.ErrCorrupt, "PRIMITIVE ARRAY DUMP"},
		{"bad element type", newHprofFile().record(0x1C, be(uint8(0x23), uint64(1), uint32(0), uint32(1), uint8(3))).Bytes(), nil, hprof.ErrCorrupt, "element type 3"},
		{"class dump field type", newHprofFile().record(0x1C, append(be(uint8(0x20), uint64(1), uint32(0), uint64(0), uint64(0), uint64(0), uint64(0), uint64(0), uint64(0), uint32(0), uint16(0), uint16(0), uint16(1), uint64(5)), 99)).Bytes(), nil, hprof.ErrCorrupt, "instance field type 99"},
	} {
		t.Run(c.name, func(t *testing.T) {
			g, err := Convert(context.Background(), bytes.NewReader(c.data), c.name, Options{})
			if c.err != nil {
				if !errors.Is(err, c.err) {
					t.Fatalf("err = %v, want %v", err, c.err)
				}
				if !strings.Contains(err.Error(), c.where) {
					t.Errorf("error %q does not say %q", err, c.where)
				}
				return
			}
			if err != nil {
				t.Fatalf("err = %v, want a partial graph", err)
			}
			if !errors.Is(g.Damage, c.damage) {
				t.Fatalf("damage = %v, want %v", g.Damage, c.damage)
			}
			if !strings.Contains(g.Damage.Error(), c.where) {
				t.Errorf("damage %q does not say %q", g.Damage, c.where)
			}
		})
	}
}

// withoutLast drops the last n bytes : a record whose body the file lacks.
func (f *hprofFile) withoutLast(n int) []byte { b := f.Bytes(); return b[:len(b)-n] }

func TestSeveralDumps(t *testing.T) {
	// Two heap dumps: one object in the first, two in the second. The
	// default takes the last; --dump 1 the first.
	classDump := func(id uint64) []byte {
		return be(uint8(0x20), id, uint32(0), uint64(0), uint64(0), uint64(0), uint64(0), uint64(0), uint64(0), uint32(0), uint16(0), uint16(0), uint16(0))
	}
	inst := func(id uint64) []byte { return be(uint8(0x21), id, uint32(0), uint64(100), uint32(0)) }
	f := newHprofFile().
		record(0x01, be(uint64(7), []byte("com/example/Foo"))).
		record(0x02, be(uint32(1), uint64(100), uint32(0), uint64(7))).
		record(0x1C, append(classDump(100), inst(1)...)).
		record(0x2C, nil).
		record(0x1C, append(append(classDump(100), inst(1)...), inst(2)...)).
		record(0x2C, nil)
	for _, c := range []struct{ dump, objs int }{{0, 2}, {1, 1}, {2, 2}} {
		g, err := Convert(context.Background(), bytes.NewReader(f.Bytes()), "two", Options{Dump: c.dump})
		if err != nil {
			t.Fatal(err)
		}
		h := heapHistogram(t, g)
		if h["com.example.Foo"][0] != int64(c.objs) {
			t.Errorf("--dump %d: %v, want %d objects", c.dump, h, c.objs)
		}
		if g.Source.Dumps != 2 {
			t.Errorf("dumps = %d", g.Source.Dumps)
		}
	}
}
