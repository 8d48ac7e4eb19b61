package parquet

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow/go/v15/arrow/memory"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
)

// peakAllocator records the most Arrow memory held at once.
type peakAllocator struct {
	mem       memory.Allocator
	mu        sync.Mutex
	cur, peak int
}

func (p *peakAllocator) track(delta int) {
	p.mu.Lock()
	p.cur += delta
	p.peak = max(p.peak, p.cur)
	p.mu.Unlock()
}

func (p *peakAllocator) Allocate(n int) []byte {
	p.track(n)
	return p.mem.Allocate(n)
}

func (p *peakAllocator) Reallocate(n int, b []byte) []byte {
	p.track(n - len(b))
	return p.mem.Reallocate(n, b)
}

func (p *peakAllocator) Free(b []byte) {
	p.track(-len(b))
	p.mem.Free(b)
}

// bigGraph is a cpu view with n distinct stacks, one sample each.
func bigGraph(n int) *graph.Graph {
	g := graph.New()
	g.Source.Path = "big.hprof"
	v := graph.NewCPUView(graph.DefaultCPUInterval)
	a := graph.NewAggregator(v)
	run := g.Frame(graph.Frame{Class: "com.example.Worker", Method: "run", Signature: "()V", File: "Worker.java", Line: 40})
	for i := range n {
		f := g.Frame(graph.Frame{Class: fmt.Sprintf("com.example.gen.C%d", i%5000), Method: fmt.Sprintf("m%d", i), Signature: "()V", File: "Gen.java", Line: int32(i%900 + 1)})
		st := g.Stack([]graph.FrameID{f, run})
		a.Add(st, []graph.Label{{Key: graph.LabelThread, Str: fmt.Sprintf("worker-%d", i%16)}}, 1, int64(graph.DefaultCPUInterval))
	}
	g.AddView(v)
	return g
}

// TestMemoryBounded writes the same large graph with small and with huge
// row groups: the Arrow memory held at once must shrink with the row
// group size, since at most two row groups per table are held (one
// written while the next is collected). All buffers are returned at the
// end.
// (Row groups are kept few: Arrow v15 builds a new zstd encoder for every
// page, which is what costs time here, not the rows.)
func TestMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("large graph")
	}
	const n, small = 40_000, 4_000
	g := bigGraph(n)
	peak := func(rows int) int {
		checked := memory.NewCheckedAllocator(memory.NewGoAllocator())
		p := &peakAllocator{mem: checked}
		if err := WriteDir(t.TempDir(), Options{RowGroupRows: rows, Allocator: p}, g); err != nil {
			t.Fatal(err)
		}
		checked.AssertSize(t, 0)
		return p.peak
	}
	got, whole := peak(small), peak(n)
	t.Logf("peak Arrow memory: %d B with %d-row groups, %d B with one %d-row group", got, small, whole, n)
	if got*4 > whole {
		t.Errorf("peak with %d-row groups %d B is not well below the whole-table peak %d B", small, got, whole)
	}
}

// BenchmarkWriter writes a 20,000-sample cpu graph (with its stacks and
// frames) per iteration; MB/s counts the Parquet bytes written. Most of
// the time and allocation is Arrow v15 creating a zstd encoder for every
// page (~170 pages per set of row groups), a fixed cost per row group,
// not per row.
func BenchmarkWriter(b *testing.B) {
	g := bigGraph(20_000)
	dir := b.TempDir()
	b.ReportAllocs()
	var size int64
	for b.Loop() {
		if err := WriteDir(dir, Options{}, g); err != nil {
			b.Fatal(err)
		}
		if size == 0 {
			for _, name := range Tables {
				fi, err := os.Stat(filepath.Join(dir, name+".parquet"))
				if err != nil {
					b.Fatal(err)
				}
				size += fi.Size()
			}
			b.SetBytes(size)
		}
	}
}

// TestWriteErrorSurfaces writes a table whose file is the kernel's full
// device (a symlink at the table's temporary name: every write fails with
// ENOSPC), so that not even the file's first bytes can be written, where
// Arrow v15 panics: the failure must come back as an error naming the
// table, and no table file be left under its final name.
func TestWriteErrorSurfaces(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full here")
	}
	dir := t.TempDir()
	if err := os.Symlink("/dev/full", filepath.Join(dir, "."+TableSamples+".parquet.tmp")); err != nil {
		t.Skip(err)
	}
	err := WriteDir(dir, Options{RowGroupRows: 1000}, bigGraph(20_000))
	if err == nil || !strings.Contains(err.Error(), TableSamples) {
		t.Fatalf("writing onto a full device: got %v, want an error naming table %s", err, TableSamples)
	}
	if _, serr := os.Stat(filepath.Join(dir, TableSamples+".parquet")); serr == nil {
		t.Errorf("%s.parquet left behind after %v", TableSamples, err)
	}
	t.Log(err)
}
