package parquet

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/source"
)

// TestHeapTablesUnderMemoryLimit writes heap tables of millions of rows
// (6 M objects, 12 M references, 600 K Strings: a third of the 1 GB
// bench dump's) while the process holds itself to a Go heap limit the
// way the CLI's --max-memory does (debug.SetMemoryLimit and
// source.WatchMemory, which cancels at the first sample over it): the
// tables hold two row groups per table whatever the rows, and must not
// leave so much garbage that the watch fires. The limit, 320 MiB, is
// below the 384 MiB the CLI sets itself in a 512 MiB container; the heap
// peaks near 230 MiB here (the collector lets it reach twice the live
// data). No time is asserted.
func TestHeapTablesUnderMemoryLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("millions of rows")
	}
	const limit = 320 << 20
	const objects, refsPer = 6_000_000, 2
	runtime.GC()
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(limit))
	ctx, stop := source.WatchMemory(context.Background(), limit)
	defer stop()
	peak := make(chan uint64)
	done := make(chan struct{})
	go func() {
		sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		var most uint64
		for {
			select {
			case <-done:
				peak <- most
				return
			case <-time.After(2 * time.Millisecond):
				metrics.Read(sample)
				most = max(most, sample[0].Value.Uint64())
			}
		}
	}()

	w, err := NewWriter(t.TempDir(), Options{HeapTables: HeapTables})
	if err != nil {
		t.Fatal(err)
	}
	sink := w.ObjectSink("bench.hprof")
	classes := make([]string, 500)
	for i := range classes {
		classes[i] = fmt.Sprintf("com.example.app.module%d.Class%d", i%37, i)
	}
	fields := []string{"next", "value", "table", "key", "parent", "left", "right", "owner"}
	var o graph.Object
	var r graph.Ref
	var s graph.String
	write := func() error {
		for i := range objects {
			if i%65536 == 0 && ctx.Err() != nil {
				return context.Cause(ctx)
			}
			id := uint64(0x7f0000000 + 24*i)
			o = graph.Object{ID: id, Class: classes[(i*7)%len(classes)], Kind: graph.ObjectInstance,
				Shallow: 24, HasShallow: true, Retained: int64(24 + i%4096), HasRetained: true,
				Dominator: id - 24, HasDominator: i > 0}
			if err := sink.Object(&o); err != nil {
				return err
			}
			for j := range refsPer {
				r = graph.Ref{From: id, To: uint64(0x7f0000000 + 24*((i*31+j*17)%objects)), Field: fields[(i+j)%len(fields)], Index: -1}
				if (i+j)%3 == 0 {
					r.Field, r.Index = "", int64(j)
				}
				if err := sink.Ref(&r); err != nil {
					return err
				}
			}
			if i%10 == 0 {
				s = graph.String{ID: id, Value: fmt.Sprintf("string value number %d", i), Length: 30, Coder: "latin1",
					Shallow: 24, Array: id + 24, Bytes: 48}
				if err := sink.String(&s); err != nil {
					return err
				}
			}
		}
		return nil
	}
	err = write()
	close(done)
	most := <-peak
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = context.Cause(ctx)
	}
	if err != nil {
		t.Fatalf("%d objects, %d references: %v", objects, objects*refsPer, err)
	}
	t.Logf("Go heap at most %.1f MiB (sampled) of a %d MiB limit", float64(most)/(1<<20), limit>>20)
}
