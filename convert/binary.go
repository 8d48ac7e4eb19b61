package convert

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/hprof"
	"github.com/hprof2pprof/hprof2pprof/convert/internal/describe"
	"github.com/hprof2pprof/hprof2pprof/convert/internal/frames"
	"github.com/hprof2pprof/hprof2pprof/convert/internal/heapdump"
	"github.com/hprof2pprof/hprof2pprof/convert/internal/testhooks"
	"github.com/hprof2pprof/hprof2pprof/convert/javaname"
	"github.com/hprof2pprof/hprof2pprof/convert/retained"
	"github.com/hprof2pprof/hprof2pprof/internal/sysmem"
)

// binData is what the first pass keeps of a binary input for the views:
// the symbol tables, the CPU samples and allocation sites asked for, the
// chosen heap dump. Everything but that dump is per class, per trace or
// per thread: memory does not grow with the number of objects.
type binData struct {
	sym   *hprof.Symbols // strings, classes, frames, traces, threads
	names *frames.Namer  // class and frame names (Namer.Stacks builds a graph's stacks)

	cpu         cpuSums
	sites       *hprof.AllocSites
	sitesTime   uint32
	siteRecords int
	control     *hprof.ControlSettings
	summary     *hprof.HeapSummary

	dump  *heapdump.Dump // the dump the heap views are taken from
	dumps int            // how many dumps the input holds
	// retained is the retained analysis of dump when it was made with
	// its object IDs kept: the heap tables' per-object columns.
	retained *retained.Result
}

// cpuSums are the CPU SAMPLES records taken, summed.
type cpuSums struct {
	byTrace map[uint32]int64 // summed over the records
	total   int64            // sum of the records' own totals
	records int
	time    uint32 // TIME of the last record
}

// binReader is the first pass over a binary input: it reads every record
// into its binData, soft failures into g.
type binReader struct {
	*binData
	g    *graph.Graph
	opts Options
	// in is the input: its records as the first pass reads them (r),
	// and the chosen heap dump again for the passes after it.
	in *hprof.File
	r  *hprof.Reader
	// file, when set, is the plain input file: heap segments are mapped
	// from it and read in parallel (parallel.go); size is its length.
	file *os.File
	size int64

	heap *heapdump.Dump // the dump being read
	// scan parses the spans of heap that came before the ones pending,
	// while the first pass reads on (parallel.go); nil when none is.
	scan         *heapdump.SpanScan
	window       int64 // spanWindow, or the tests' (testhooks.Hooks.SpanWindow)
	dropBehind   bool  // drop the page cache of parsed spans (dropsBehind)
	progressNext int64
}

func newBinReader(g *graph.Graph, r *hprof.Reader, opts Options) *binReader {
	sym := hprof.NewSymbols()
	d := &binData{sym: sym, names: frames.NewNamer(sym, opts.Mapping), cpu: cpuSums{byTrace: map[uint32]int64{}}}
	sym.NameClass = func(id uint64, name string) string { return d.names.ClassName(id, javaname.Class(name)) }
	sym.SoftFail = func(f hprof.SymbolFault) { g.SoftFail(symbolSoftKind[f]) }
	return &binReader{binData: d, g: g, opts: opts, r: r, size: -1}
}

// wantDump reports whether the n-th (1-based) dump-like record is one to
// keep: the one --dump names, or every one (the last wins) by default.
func (d *binReader) wantDump(n int) bool { return d.opts.Dump == 0 || d.opts.Dump == n }

// decodeBinary reads a binary HPROF input into g: its records once
// (in.Records), then the chosen heap dump again (in.Heap) where a view
// needs a second look at objects seen before it knew it wanted them
// (thread names, the retained view). The heap rows are a pass of their
// own (rows.go).
func decodeBinary(ctx context.Context, in *hprof.File, g *graph.Graph, opts Options) (*binData, error) {
	r := in.Records()
	g.Source.Format = "hprof-binary"
	g.Source.Version = r.Header.Version
	g.Source.IDSize = r.Header.IDSize
	g.Source.Time = r.Header.Time
	d := newBinReader(g, r, opts)
	d.window = cmp.Or(testhooks.From(ctx).SpanWindow, spanWindow)
	d.in = in
	if file, ok := in.ReaderAt().(*os.File); ok {
		if fi, err := file.Stat(); err == nil && fi.Mode().IsRegular() {
			d.file, d.size = file, fi.Size()
			d.dropBehind = dropsBehind(d.size, sysmem.Limit(), sysmem.Available())
		}
	}
	runErr := d.run(ctx)
	if h := d.heap; h != nil && d.unscanned(h) {
		// The input ended inside a dump: count what it holds.
		if err := d.scanSpans(ctx, h); err != nil && runErr == nil {
			runErr = err
		}
	}
	if err := d.damage(runErr); err != nil {
		return nil, err
	}
	g.StackBudget = graph.StackBudgetFor(r.Offset())
	d.chooseDump(ctx)
	buildViews(ctx, g, in, d.binData, opts)
	d.describe()
	return d.binData, nil
}

// buildViews builds the views opts wants from what the first pass read
// (each in its file: cpu.go, alloc.go, heap.go, threads.go, retained.go),
// all naming their stacks through one Stacks.
func buildViews(ctx context.Context, g *graph.Graph, in *hprof.File, d *binData, opts Options) {
	st := d.names.Stacks(g)
	if opts.wants(graph.ViewCPU) {
		buildCPU(g, st, d, opts.interval())
	}
	if opts.wants(graph.ViewAlloc) && d.sites != nil {
		buildAlloc(g, st, d.sym, d.sites, d.sitesTime)
	}
	if opts.wants(graph.ViewHeap) && d.dump != nil {
		buildHeap(g, st, d)
	}
	if opts.wants(graph.ViewThreads) {
		buildThreads(g, st, d)
	}
	if opts.asksGraph() {
		d.retained = buildRetained(ctx, g, in, d, newRootNamer(d, st), opts)
	}
}

// run reads every record (hprof.Walk's policy). A decoding error stops
// the walk; what was read before it stays in binData and the error
// becomes the graph's damage.
func (d *binReader) run(ctx context.Context) error {
	r := d.r
	return hprof.Walk(ctx, r, func(rec hprof.Record) error {
		d.progress()
		d.g.Source.Records[rec.Tag.String()]++
		if !rec.Tag.Known() {
			d.g.SoftFailDetail(graph.SoftUnknownRecordTag, fmt.Sprintf("0x%02X", uint8(rec.Tag)))
			return nil // the walk skips the body
		}
		switch rec.Tag {
		case hprof.TagHeapDump, hprof.TagHeapDumpSegment:
			return d.heapRecord(ctx, rec)
		case hprof.TagHeapDumpEnd:
			return d.endDump(ctx)
		}
		body, err := r.Body()
		if err != nil {
			return err
		}
		return d.record(rec, body)
	})
}

// progress reports the offset read to Options.Progress every 4 MiB.
func (d *binReader) progress() {
	if d.opts.Progress == nil {
		return
	}
	if off := d.r.Offset(); off >= d.progressNext {
		d.opts.Progress(off)
		d.progressNext = off + 4<<20
	}
}

// record absorbs one record other than a heap dump's: symbols go to
// the symbol tables, the rest is kept for the views.
func (d *binReader) record(rec hprof.Record, body []byte) error {
	if hprof.IsSymbol(rec.Tag) {
		return d.sym.Add(d.r, rec, body)
	}
	r := d.r
	switch rec.Tag {
	case hprof.TagAllocSites:
		v, err := r.DecodeAllocSites(rec, body)
		if err != nil {
			return err
		}
		d.siteRecords++
		if d.wantDump(d.siteRecords) {
			d.sites, d.sitesTime = &v, rec.Time
		}
	case hprof.TagHeapSummary:
		v, err := r.DecodeHeapSummary(rec, body)
		if err != nil {
			return err
		}
		d.summary = &v
	case hprof.TagCPUSamples:
		return d.addCPUSamples(rec, body)
	case hprof.TagControlSettings:
		v, err := r.DecodeControlSettings(rec, body)
		if err != nil {
			return err
		}
		d.control = &v
	}
	return nil
}

// addCPUSamples adds a CPU SAMPLES record of the dump asked for (all of
// them by default: each holds the samples since the one before).
func (d *binReader) addCPUSamples(rec hprof.Record, body []byte) error {
	v, err := d.r.DecodeCPUSamples(rec, body)
	if err != nil {
		return err
	}
	c := &d.cpu
	c.records++
	if !d.wantDump(c.records) {
		return nil
	}
	c.total += int64(v.Total)
	c.time = rec.Time
	var sum int64
	for _, t := range v.Traces {
		c.byTrace[t.TraceSerial] += int64(t.Count)
		sum += int64(t.Count)
	}
	if sum != int64(v.Total) {
		d.g.SoftFail(graph.SoftCPUSamplesTotal)
	}
	return nil
}

// damage records where the first pass ended and what it lost: runErr
// (the walk's error) as the graph's damage, and a dump left without its
// HEAP DUMP END. A cancelled walk is returned: nothing is kept.
func (d *binReader) damage(runErr error) error {
	g := d.g
	g.Source.Bytes = d.r.Offset()
	var fe *hprof.FormatError
	if errors.As(runErr, &fe) && errors.Is(runErr, hprof.ErrTruncated) {
		g.Source.Bytes = max(g.Source.Bytes, fe.Off) // where the input ends
	}
	if runErr != nil {
		if errors.Is(runErr, context.Canceled) || errors.Is(runErr, context.DeadlineExceeded) {
			return runErr
		}
		g.Damage = runErr
		g.Lost = hprof.Lost(runErr)
	}
	if d.heap != nil && d.heap != d.dump && d.dump != nil {
		// An incomplete dump after a complete one: report it, keep the
		// complete one.
		g.Source.Notes = append(g.Source.Notes, fmt.Sprintf("heap dump %d is incomplete and was not used", d.heap.Index))
	}
	if h := d.dump; h != nil || d.heap != nil {
		if h == nil {
			h = d.heap
		}
		if !h.Complete && runErr == nil {
			// Segments with no HEAP DUMP END: the writer stopped, or the
			// file was cut at a record boundary.
			g.Damage = &hprof.FormatError{
				Off:    g.Source.Bytes,
				Record: "HEAP DUMP SEGMENT",
				Msg:    "no HEAP DUMP END before the end of the input",
				Err:    hprof.ErrTruncated,
			}
			g.Lost = hprof.JoinLost(g.Lost, fmt.Sprintf("heap dump %d has no HEAP DUMP END: the input ends after its last whole record, so later objects may be missing", h.Index))
		} else if !h.Complete {
			g.Lost = hprof.JoinLost(g.Lost, fmt.Sprintf("heap dump %d is incomplete", h.Index))
		}
	}
	return nil
}

// describe fills the writer guess and the notes of `info`.
func (d *binReader) describe() {
	f := describe.Facts{
		Source: &d.g.Source, Soft: d.g.Soft, Control: d.control, Sites: d.sites, Summary: d.summary,
		Heap: d.dump, Env: d.env(d.g), MappingClasses: -1, Renamed: d.names.Renamed(),
		RepeatedLoads: d.sym.RepeatedLoads, ClassName: d.sym.ClassName,
	}
	if d.opts.Mapping != nil {
		f.MappingClasses = d.opts.Mapping.Len()
	}
	describe.Describe(f)
}

// usec converts a record TIME field (µs since the header time).
func usec(t uint32) time.Duration { return time.Duration(t) * time.Microsecond }

// symbolSoftKind is the soft failure kind of each symbol table fault.
var symbolSoftKind = [...]graph.SoftKind{
	hprof.SymDuplicateString:    graph.SoftDuplicateString,
	hprof.SymClassMissingString: graph.SoftClassMissingString,
	hprof.SymClassTwoNames:      graph.SoftClassTwoNames,
	hprof.SymDuplicateFrame:     graph.SoftDuplicateFrame,
	hprof.SymDuplicateTrace:     graph.SoftDuplicateTrace,
	hprof.SymThreadSerialReused: graph.SoftThreadSerialReused,
	hprof.SymEndUnknownThread:   graph.SoftEndUnknownThread,
}
