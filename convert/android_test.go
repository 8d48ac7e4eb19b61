package convert

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/hprof"
	"github.com/hprof2pprof/hprof2pprof/convert/mapping"
	"github.com/hprof2pprof/hprof2pprof/convert/source"
)

const ahatDump = "../testdata/ahat-test-dump.hprof.gz"

// androidFile assembles an Android-style file: JAVA PROFILE 1.0.3, ID size 4.
func androidFile() *hprofFile {
	f := &hprofFile{}
	f.WriteString("JAVA PROFILE 1.0.3\x00")
	binary.Write(f, binary.BigEndian, uint32(4))
	binary.Write(f, binary.BigEndian, uint64(1700000000000))
	return f
}

func TestAndroidHeapLabel(t *testing.T) {
	// java.lang.Object (8 bytes, as ART writes it) and Foo (16 bytes);
	// two Foos in the zygote heap, one in the app heap, the heap switch
	// carrying over a segment boundary.
	classDump := func(id, super uint32, size uint32) []byte {
		return be(uint8(0x20), id, uint32(0), super, uint32(0), uint32(0), uint32(0), uint32(0), uint32(0), size, uint16(0), uint16(0), uint16(0))
	}
	inst := func(id uint32) []byte { return be(uint8(0x21), id, uint32(0), uint32(200), uint32(0)) }
	info := func(heap uint32, name uint32) []byte { return be(uint8(0xFE), heap, name) }
	cat := func(bs ...[]byte) []byte { return bytes.Join(bs, nil) }
	f := androidFile().
		record(0x01, be(uint32(1), []byte("java.lang.Object"))).
		record(0x01, be(uint32(2), []byte("com.example.Foo"))).
		record(0x01, be(uint32(3), []byte("zygote"))).
		record(0x01, be(uint32(4), []byte("app"))).
		record(0x02, be(uint32(1), uint32(100), uint32(0), uint32(1))).
		record(0x02, be(uint32(2), uint32(200), uint32(0), uint32(2))).
		record(0x1C, cat(info('Z', 3), classDump(100, 0, 8), classDump(200, 100, 16), inst(1))).
		record(0x1C, cat(inst(2), info('A', 4), inst(3))).
		record(0x2C, nil)
	g, err := Convert(context.Background(), bytes.NewReader(f.Bytes()), "android", Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][2]int64{}
	for _, s := range g.View(graph.ViewHeap).Samples {
		for _, l := range s.Labels {
			if l.Key == graph.LabelHeap {
				x := got[l.Str]
				x[0] += s.Values[0]
				x[1] += s.Values[1]
				got[l.Str] = x
			}
		}
	}
	want := map[string][2]int64{"zygote": {2, 32}, "app": {1, 16}}
	if len(got) != len(want) || got["zygote"] != want["zygote"] || got["app"] != want["app"] {
		t.Errorf("by heap %v, want %v", got, want)
	}
}

// TestAndroidAllocationStacks: ART recorded allocation stacks for the
// objects of ahat's test dump; every object whose trace has frames gets
// that trace as its heap stack. The counts come from reading the file's
// heap sub-records directly.
func TestAndroidAllocationStacks(t *testing.T) {
	g := mustConvert(t, ahatDump, Options{})
	frames := map[uint32]int{} // trace serial → frame count
	var withStack int64
	f, err := os.Open(ahatDump)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	in, _, _, err := source.Decompress(f)
	if err != nil {
		t.Fatal(err)
	}
	r, err := hprof.NewReader(in)
	if err != nil {
		t.Fatal(err)
	}
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		switch rec.Tag {
		case hprof.TagTrace:
			body, _ := r.Body()
			tr, err := r.DecodeTrace(rec, body, nil)
			if err != nil {
				t.Fatal(err)
			}
			frames[tr.Serial] = len(tr.Frames)
		case hprof.TagHeapDump, hprof.TagHeapDumpSegment:
			hr := r.Heap()
			for {
				s, err := hr.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				switch s.Tag {
				case hprof.InstanceDump, hprof.ObjArrayDump, hprof.PrimArrayDump, hprof.PrimArrayNoData:
					if frames[s.TraceSerial] > 0 {
						withStack++
					}
				}
			}
		}
	}
	if withStack == 0 {
		t.Fatal("the fixture has no objects with allocation stacks")
	}
	var got, heapApp, all int64
	for _, s := range g.View(graph.ViewHeap).Samples {
		all += s.Values[0]
		if fr := g.Stacks[s.Stack]; len(fr) > 1 && g.Frames[fr[1]].Kind == graph.KindMethod {
			got += s.Values[0]
		}
		for _, l := range s.Labels {
			if l.Key == graph.LabelHeap && l.Str == "app" {
				heapApp += s.Values[0]
			}
		}
	}
	if got != withStack {
		t.Errorf("%d objects under an allocation stack, the file has %d with a non-empty trace", got, withStack)
	}
	if heapApp != all {
		t.Errorf("%d of %d objects labelled heap=app (the dump has only the app heap)", heapApp, all)
	}
}

// TestAndroidMapping: with ahat's R8 mapping the heap view equals the
// oracle's histogram with its class names renamed through the mapping's
// own class lines, and the obfuscated allocation site DumpedStuff.e is
// shown as the method the mapping names, shouldNotGc.
func TestAndroidMapping(t *testing.T) {
	const mapFile = "../testdata/mappings/ahat-test-dump.map"
	m, err := mapping.ParseFile(mapFile)
	if err != nil {
		t.Fatal(err)
	}
	g := mustConvert(t, ahatDump, Options{Mapping: m})
	b, err := os.ReadFile(mapFile)
	if err != nil {
		t.Fatal(err)
	}
	rename := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if line != "" && line[0] != ' ' && line[0] != '#' {
			orig, obf, _ := strings.Cut(strings.TrimSuffix(line, ":"), " -> ")
			rename[obf] = orig
		}
	}
	want := map[string][2]int64{}
	for c, v := range oracleHistogram(t, ahatDump+".oracle") {
		base := strings.TrimRight(c, "[]")
		if o, ok := rename[base]; ok {
			c = o + c[len(base):]
		}
		want[c] = v
	}
	compareHistograms(t, heapHistogram(t, g), want)
	found := false
	for _, f := range g.Frames {
		if f.Class == "DumpedStuff" && f.Method == "e" {
			t.Errorf("obfuscated frame %v left", f)
		}
		if f.Class == "DumpedStuff" && f.Method == "shouldNotGc" {
			found = true
		}
	}
	if !found {
		t.Error("no frame DumpedStuff.shouldNotGc")
	}
}

// TestAndroidHeapsMappedAndStreamed: a plain file (read through a
// mapping, possibly in parallel) and the same file gzipped (streamed)
// give the same objects per class and heap.
func TestAndroidHeapsMappedAndStreamed(t *testing.T) {
	byClassHeap := func(g *graph.Graph) map[string][2]int64 {
		out := map[string][2]int64{}
		for _, s := range g.View(graph.ViewHeap).Samples {
			var k string
			for _, l := range s.Labels {
				k += l.Key + "=" + l.Str + ";"
			}
			x := out[k]
			x[0] += s.Values[0]
			x[1] += s.Values[1]
			out[k] = x
		}
		return out
	}
	f, err := os.Open(ahatDump)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	in, _, _, err := source.Decompress(f)
	if err != nil {
		t.Fatal(err)
	}
	plain := t.TempDir() + "/ahat.hprof"
	out, err := os.Create(plain)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	out.Close()
	a, b := byClassHeap(mustConvert(t, plain, Options{})), byClassHeap(mustConvert(t, ahatDump, Options{}))
	if len(a) != len(b) {
		t.Errorf("%d class/heap groups mapped, %d streamed", len(a), len(b))
	}
	for k, v := range b {
		if a[k] != v {
			t.Errorf("%s: mapped %v, streamed %v", k, a[k], v)
		}
	}
}
