package convert

import (
	"bytes"
	"context"
	"runtime"
	"testing"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/pprofout"
)

// Memory bounds for a hostile input of at most 1 MB: what the decoded
// graph keeps alive, and everything allocated on the way (garbage
// included). The fuzz targets check the same.
const (
	maxLivePerMB  = 64 << 20
	maxTotalPerMB = 256 << 20
)

// decodeMeasured converts data and reports the bytes the result keeps
// alive and the bytes allocated in all.
func decodeMeasured(t *testing.T, data []byte) (g *graph.Graph, live, total uint64) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	g, err := Convert(context.Background(), bytes.NewReader(data), "hostile", Options{})
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(g)
	if after.HeapAlloc > before.HeapAlloc {
		live = after.HeapAlloc - before.HeapAlloc
	}
	return g, live, after.TotalAlloc - before.TotalAlloc
}

func checkBounded(t *testing.T, data []byte, live, total uint64) {
	t.Helper()
	if len(data) > 1<<20 {
		t.Fatalf("test input of %d bytes is over 1 MB", len(data))
	}
	if live > maxLivePerMB || total > maxTotalPerMB {
		t.Errorf("%d input bytes: %d MB kept, %d MB allocated", len(data), live>>20, total>>20)
	}
}

// A small file naming one deep trace from many allocation sites: every
// (trace, class) pair used to copy the whole trace, so 1 MB of input
// asked for gigabytes.
func TestManySitesOnOneDeepTrace(t *testing.T) {
	const depth, sites = 50000, 20000
	trace := []any{uint32(1), uint32(0), uint32(depth)}
	for i := 0; i < depth; i++ {
		trace = append(trace, uint64(i+1))
	}
	body := []any{uint16(0), uint32(0), uint32(0), uint32(0), uint64(0), uint64(0), uint32(sites)}
	for i := 0; i < sites; i++ {
		// live bytes, live objects, allocated bytes, allocated objects
		body = append(body, uint8(0), uint32(i+1), uint32(1), uint32(8), uint32(1), uint32(8), uint32(1))
	}
	data := newHprofFile().record(0x05, be(trace...)).record(0x06, be(body...)).Bytes()
	g, live, total := decodeMeasured(t, data)
	checkBounded(t, data, live, total)
	v := g.View(graph.ViewAlloc)
	if v == nil || len(v.Samples) != sites {
		t.Fatalf("alloc view: %v", v)
	}
	if got := v.Totals()[0]; got != sites {
		t.Errorf("alloc_objects = %d, want %d: truncating stacks must not lose samples", got, sites)
	}
	if g.Soft.Texts()["stack truncated: the stack table reached its size limit"] == 0 {
		t.Errorf("truncation not counted: %v", g.Soft)
	}
	if _, err := pprofout.Profile(g, graph.ViewAlloc); err != nil {
		t.Fatal(err)
	}
}

// A class name with thousands of package levels: each level's frame
// names the whole prefix, which used to cost the square of the name.
func TestDeepPackageName(t *testing.T) {
	name := append(bytes.Repeat([]byte("a/"), 20000), 'X')
	classDump := be(uint8(0x20), uint64(100), uint32(0), uint64(0), uint64(0), uint64(0), uint64(0), uint64(0), uint64(0), uint32(0), uint16(0), uint16(0), uint16(0))
	data := newHprofFile().
		record(0x01, be(uint64(7), name)).
		record(0x02, be(uint32(1), uint64(100), uint32(0), uint64(7))).
		record(0x1C, append(classDump, be(uint8(0x21), uint64(1), uint32(0), uint64(100), uint32(0))...)).
		record(0x2C, nil).Bytes()
	g, live, total := decodeMeasured(t, data)
	checkBounded(t, data, live, total)
	v := g.View(graph.ViewHeap)
	if v == nil || len(v.Samples) != 1 {
		t.Fatalf("heap view: %v", v)
	}
	if d := len(g.Stacks[v.Samples[0].Stack]); d > 40 {
		t.Errorf("class stack %d frames deep", d)
	}
	if _, err := pprofout.Profile(g, graph.ViewHeap); err != nil {
		t.Fatal(err)
	}
}

// Many threads and many traces: each thread without its own trace used
// to scan every trace (and every CPU trace every thread root), which is
// quadratic. This checks the answers at a size where that took minutes;
// the go test timeout is the guard.
func TestManyThreadsManyTraces(t *testing.T) {
	const threads, traces = 10000, 20000
	f := newHprofFile().
		record(0x01, be(uint64(1), []byte("run"))).
		record(0x01, be(uint64(2), []byte("Worker"))).
		record(0x02, be(uint32(1), uint64(100), uint32(0), uint64(2))).
		record(0x04, be(uint64(1), uint64(1), uint64(0), uint64(0), uint32(1), uint32(10)))
	for i := 0; i < threads; i++ {
		f.record(0x0A, be(uint32(i+1), uint64(1000+i), uint32(0), uint64(0), uint64(0), uint64(0)))
	}
	for i := 0; i < traces; i++ {
		// Traces of no thread, and one per thread with a frame.
		if i < threads {
			f.record(0x05, be(uint32(i+1), uint32(i+1), uint32(1), uint64(1)))
		} else {
			f.record(0x05, be(uint32(i+1), uint32(threads+1), uint32(0)))
		}
	}
	data := f.Bytes()
	g, live, total := decodeMeasured(t, data)
	checkBounded(t, data, live, total)
	if len(g.Threads) != threads {
		t.Fatalf("%d threads, want %d", len(g.Threads), threads)
	}
	for _, th := range g.Threads {
		if st := g.Stacks[th.Stack]; len(st) != 1 || g.Frames[st[0]].Function() != "Worker.run" {
			t.Fatalf("thread %d: stack %v, want Worker.run", th.Serial, st)
		}
	}
}

// checkFuzzMemory applies the same bounds inside a fuzz target: total
// allocation since before, and (only when that is large, since a
// collection per run is slow) what the result keeps alive.
func checkFuzzMemory(t *testing.T, n int, before *runtime.MemStats, result any) {
	t.Helper()
	if n > 1<<20 {
		return
	}
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	total := after.TotalAlloc - before.TotalAlloc
	if total <= maxLivePerMB {
		return
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(result)
	var live uint64
	if after.HeapAlloc > before.HeapAlloc {
		live = after.HeapAlloc - before.HeapAlloc
	}
	if live > maxLivePerMB || total > maxTotalPerMB {
		t.Fatalf("%d input bytes: %d MB kept, %d MB allocated", n, live>>20, total>>20)
	}
}
