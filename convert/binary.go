package convert

import (
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
	"github.com/hprof2pprof/hprof2pprof/convert/javaname"
	"github.com/hprof2pprof/hprof2pprof/convert/retained"
)

// binDecoder turns the records of one binary HPROF input into a graph.
// Everything it keeps is per class, per trace or per thread: memory does
// not grow with the number of objects.
type binDecoder struct {
	g    *graph.Graph
	opts Options
	// in is the input: its records as the first pass reads them (r),
	// and the chosen heap dump again for the passes after it (thread
	// names, the retained graph, the heap rows).
	in *hprof.File
	r  *hprof.Reader
	// file, when set, is the plain input file: heap segments are mapped
	// from it and read in parallel (parallel.go); size is its length.
	file *os.File
	size int64

	sym   *hprof.Symbols // strings, classes, frames, traces, threads
	names *frames.Namer  // traces → graph stacks, frames named

	cpuByTrace  map[uint32]int64 // summed over the CPU SAMPLES records taken
	cpuTotal    int64            // sum of the records' own totals
	cpuRecords  int
	cpuTime     uint32
	sites       *hprof.AllocSites
	sitesTime   uint32
	siteRecords int
	control     *hprof.ControlSettings
	summary     *hprof.HeapSummary

	heap     *heapdump.Dump // the dump being read
	lastHeap *heapdump.Dump // the dump the heap view is taken from
	dumps    int
	// retained is the retained analysis of lastHeap when it was made
	// with its object IDs kept: the heap tables' per-object columns.
	retained *retained.Result

	progressNext int64
}

func newBinDecoder(g *graph.Graph, opts Options) *binDecoder {
	d := &binDecoder{
		g:          g,
		opts:       opts,
		sym:        hprof.NewSymbols(),
		cpuByTrace: map[uint32]int64{},
	}
	d.names = frames.NewNamer(d.sym, opts.Mapping, g)
	d.sym.NameClass = func(id uint64, name string) string { return d.names.ClassName(id, javaname.Class(name)) }
	d.sym.SoftFail = func(f hprof.SymbolFault) { d.g.SoftFail(symbolSoftKind[f]) }
	return d
}

// wantDump reports whether the n-th (1-based) dump-like record is one to
// keep: the one --dump names, or every one (the last wins) by default.
func (d *binDecoder) wantDump(n int) bool { return d.opts.Dump == 0 || d.opts.Dump == n }

// run reads every record (hprof.Walk's policy). A decoding error stops
// the walk; what was read before it stays in the decoder and the error
// becomes the graph's damage.
func (d *binDecoder) run(ctx context.Context, r *hprof.Reader) error {
	d.r = r
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

func (d *binDecoder) progress() {
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
func (d *binDecoder) record(rec hprof.Record, body []byte) error {
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
		return d.cpuSamples(rec, body)
	case hprof.TagControlSettings:
		v, err := r.DecodeControlSettings(rec, body)
		if err != nil {
			return err
		}
		d.control = &v
	}
	return nil
}

// cpuSamples adds a CPU SAMPLES record of the dump asked for (all of
// them by default: each holds the samples since the one before).
func (d *binDecoder) cpuSamples(rec hprof.Record, body []byte) error {
	v, err := d.r.DecodeCPUSamples(rec, body)
	if err != nil {
		return err
	}
	d.cpuRecords++
	if !d.wantDump(d.cpuRecords) {
		return nil
	}
	d.cpuTotal += int64(v.Total)
	d.cpuTime = rec.Time
	var sum int64
	for _, t := range v.Traces {
		d.cpuByTrace[t.TraceSerial] += int64(t.Count)
		sum += int64(t.Count)
	}
	if sum != int64(v.Total) {
		d.g.SoftFail(graph.SoftCPUSamplesTotal)
	}
	return nil
}

// finish builds the views from what was read.
func (d *binDecoder) finish(ctx context.Context) {
	g := d.g
	if d.heap != nil && d.lastHeap == nil {
		// The input ended inside the only dump: keep what was read.
		d.lastHeap = d.heap
	}
	if h := d.lastHeap; h != nil {
		d.finishDump(h)
		g.Source.Dump = h.Index
		if d.opts.wants(graph.ViewThreads) {
			d.resolveThreadNames(ctx)
		}
	}
	g.Source.Dumps = d.dumps
	if d.opts.wants(graph.ViewCPU) {
		d.buildCPU(g)
	}
	if d.opts.wants(graph.ViewAlloc) {
		d.buildAlloc(g)
	}
	if d.opts.wants(graph.ViewHeap) {
		d.buildHeap()
	}
	if d.opts.wants(graph.ViewThreads) {
		d.buildThreads(g)
	}
	if d.opts.asks(graph.ViewRetained) {
		d.buildRetained(ctx)
	}
}

// decodeBinary reads a binary HPROF input into a new graph: its records
// once (in.Records), then the chosen heap dump again (in.Heap) where a
// view needs a second look at objects seen before it knew it wanted
// them (thread names, the retained view, the heap rows).
func decodeBinary(ctx context.Context, in *hprof.File, g *graph.Graph, opts Options) (*binDecoder, error) {
	r := in.Records()
	g.Source.Format = "hprof-binary"
	g.Source.Version = r.Header.Version
	g.Source.IDSize = r.Header.IDSize
	g.Source.Time = r.Header.Time
	d := newBinDecoder(g, opts)
	d.in, d.size = in, -1
	if file, ok := in.ReaderAt().(*os.File); ok {
		if fi, err := file.Stat(); err == nil && fi.Mode().IsRegular() {
			d.file, d.size = file, fi.Size()
		}
	}
	runErr := d.run(ctx, r)
	if h := d.heap; h != nil && len(h.Spans) > 0 {
		// The input ended inside a dump: count what it holds.
		if err := d.scanSpans(ctx, h); err != nil && runErr == nil {
			runErr = err
		}
	}
	if err := d.damage(runErr); err != nil {
		return nil, err
	}
	g.StackBudget = graph.StackBudgetFor(r.Offset())
	d.finish(ctx)
	d.describe()
	return d, nil
}

// damage records where the first pass ended and what it lost: runErr
// (the walk's error) as the graph's damage, and a dump left without its
// HEAP DUMP END. A cancelled walk is returned: nothing is kept.
func (d *binDecoder) damage(runErr error) error {
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
	if d.heap != nil && d.heap != d.lastHeap && d.lastHeap != nil {
		// An incomplete dump after a complete one: report it, keep the
		// complete one.
		g.Source.Notes = append(g.Source.Notes, fmt.Sprintf("heap dump %d is incomplete and was not used", d.heap.Index))
	}
	if h := d.lastHeap; h != nil || d.heap != nil {
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
func (d *binDecoder) describe() {
	f := describe.Facts{
		Source: &d.g.Source, Soft: d.g.Soft, Control: d.control, Sites: d.sites, Summary: d.summary,
		Heap: d.lastHeap, Env: d.env(), MappingClasses: -1, Renamed: d.names.Renamed(),
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
