package convert

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/hprof"
	"github.com/hprof2pprof/hprof2pprof/convert/internal/describe"
	"github.com/hprof2pprof/hprof2pprof/convert/internal/frames"
	"github.com/hprof2pprof/hprof2pprof/convert/internal/heapdump"
	"github.com/hprof2pprof/hprof2pprof/convert/javaname"
)

// binDecoder turns the records of one binary HPROF input into a graph.
// Everything it keeps is per class, per trace or per thread: memory does
// not grow with the number of objects.
type binDecoder struct {
	g    *graph.Graph
	opts Options
	r    *hprof.Reader
	// file, when set, is the plain input file: heap segments are read
	// from it in parallel (parallel.go); size is its length.
	file     io.ReaderAt
	size     int64
	mapSpans bool // map spans instead of reading them (no copy)

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
	d.sym.SoftFail = func(msg string) { d.g.SoftFail(msg) }
	return d
}

// wantDump reports whether the n-th (1-based) dump-like record is one to
// keep: the one --dump names, or every one (the last wins) by default.
func (d *binDecoder) wantDump(n int) bool { return d.opts.Dump == 0 || d.opts.Dump == n }

// run reads every record. A decoding error stops the loop; what was read
// before it stays in the decoder and the error becomes the graph's damage.
func (d *binDecoder) run(ctx context.Context, r *hprof.Reader) error {
	d.r = r
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		d.progress()
		rec, err := r.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		d.g.Source.Records[rec.Tag.String()]++
		if !rec.Tag.Known() {
			d.g.SoftFail(fmt.Sprintf("unknown record tag 0x%02X skipped", uint8(rec.Tag)))
			continue // Next skips the body
		}
		switch rec.Tag {
		case hprof.TagHeapDump, hprof.TagHeapDumpSegment:
			err = d.heapRecord(ctx, rec)
		case hprof.TagHeapDumpEnd:
			err = d.endDump(ctx)
		default:
			var body []byte
			if body, err = r.Body(); err == nil {
				err = d.record(rec, body)
			}
		}
		if err != nil {
			return err
		}
	}
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
		d.g.SoftFail("CPU SAMPLES total differs from the sum of its traces")
	}
	return nil
}

// threadName is the name of a thread serial from START THREAD records,
// or the name found in the heap dump's thread objects.
func (d *binDecoder) threadName(serial uint32) string {
	if serial == 0 {
		return ""
	}
	if t, ok := d.sym.Threads[serial]; ok {
		return d.sym.Strings[t.NameID]
	}
	if d.lastHeap == nil {
		return ""
	}
	return d.lastHeap.RootName(serial)
}

// finish builds the views from what was read.
func (d *binDecoder) finish(ctx context.Context, reopen func() (io.ReadCloser, error)) {
	g := d.g
	if d.heap != nil && d.lastHeap == nil {
		// The input ended inside the only dump: keep what was read.
		d.lastHeap = d.heap
	}
	if h := d.lastHeap; h != nil {
		d.finishDump(h)
		g.Source.Dump = h.Index
		if d.opts.wants(graph.ViewThreads) {
			d.resolveThreadNames(ctx, reopen)
		}
	}
	g.Source.Dumps = d.dumps
	if d.opts.wants(graph.ViewCPU) {
		d.buildCPU()
	}
	if d.opts.wants(graph.ViewAlloc) {
		d.buildAlloc()
	}
	if d.opts.wants(graph.ViewHeap) {
		d.buildHeap()
	}
	if d.opts.wants(graph.ViewThreads) {
		d.buildThreads()
	}
	if d.opts.asks(graph.ViewRetained) {
		d.buildRetained(ctx, reopen)
	}
}

func (d *binDecoder) buildCPU() {
	if d.cpuRecords == 0 {
		return
	}
	g := d.g
	v := graph.NewCPUView(d.opts.interval())
	v.Time = g.Source.Time
	v.Duration = usec(d.cpuTime)
	agg := graph.NewAggregator(v)
	for serial, count := range d.cpuByTrace {
		st := d.names.Stack(serial)
		agg.Add(st, d.cpuLabels(serial, st), count, count*v.Period)
	}
	g.SortSamples(v)
	v.Comments = append(v.Comments,
		fmt.Sprintf("CPU SAMPLES: %d records, total %d samples", d.cpuRecords, d.cpuTotal),
		fmt.Sprintf("cpu/nanoseconds = samples × interval %v (the file does not record the interval; set it with --interval)", d.opts.interval()))
	g.AddView(v)
}

// cpuLabels are the labels of a CPU sample of trace serial (graph stack
// st): the thread's name, and state=blocked for a blocking native leaf.
func (d *binDecoder) cpuLabels(serial uint32, st graph.StackID) []graph.Label {
	g := d.g
	var labels []graph.Label
	if t, ok := d.sym.Traces[serial]; ok {
		if name := d.threadName(t.ThreadSerial); name != "" {
			labels = append(labels, graph.Label{Key: graph.LabelThread, Str: name})
		}
	}
	if g.Blocked(st) {
		labels = append(labels, graph.BlockedState)
	}
	return labels
}

// siteClass is the source name of the class an ALLOC SITES site allocates.
func (d *binDecoder) siteClass(site hprof.AllocSite) string {
	g := d.g
	if site.ArrayType != 0 && site.ArrayType != hprof.TypeObject {
		class := site.ArrayType.JavaName() + "[]"
		if class == "[]" {
			g.SoftFail("site has invalid array type")
			class = fmt.Sprintf("array-type-%d[]", site.ArrayType)
		}
		return class
	}
	if obj, ok := d.sym.ClassSerial[site.ClassSerial]; ok {
		return d.sym.ClassName[obj]
	}
	g.SoftFail("site names missing class")
	return fmt.Sprintf("unknown-class-serial-%d", site.ClassSerial)
}

func (d *binDecoder) buildAlloc() {
	if d.sites == nil {
		return
	}
	g := d.g
	s := d.sites
	v := graph.NewAllocView()
	v.Time = g.Source.Time
	v.Duration = usec(d.sitesTime)
	agg := graph.NewAggregator(v)
	for _, site := range s.Sites {
		class := d.siteClass(site)
		st := g.WithLeaf(d.names.Stack(site.TraceSerial), class)
		agg.Add(st, []graph.Label{{Key: graph.LabelClass, Str: class}},
			int64(site.AllocObjects), int64(site.AllocBytes), int64(site.LiveInstances), int64(site.LiveBytes))
	}
	g.SortSamples(v)
	v.Comments = append(v.Comments,
		fmt.Sprintf("ALLOC SITES totals: live %d bytes in %d instances; allocated %d bytes in %d instances; %d sites",
			s.LiveBytes, s.LiveInstances, s.AllocBytes, s.AllocInstances, len(s.Sites)))
	if len(s.Sites) > 0 {
		v.Comments = append(v.Comments, "the hprof agent lists only sites above its cutoff, so the sites may sum to less than the totals")
	}
	g.AddView(v)
}

func (d *binDecoder) buildThreads() {
	g := d.g
	v := graph.NewThreadsView()
	v.Time = g.Source.Time
	if h := d.lastHeap; h != nil && len(h.ThreadRoots) > 0 {
		for _, t := range h.ThreadRoots {
			st := d.names.Stack(t.TraceSerial)
			if st == 0 {
				// jhsdb points every thread root at the empty dummy
				// trace; the thread's own STACK TRACE names its serial.
				st = d.names.StackOfThread(t.ThreadSerial)
			}
			th := graph.Thread{Serial: t.ThreadSerial, ObjectID: t.ObjectID, Name: t.Name, Class: t.Class, Stack: st}
			if st, ok := d.sym.Threads[t.ThreadSerial]; ok {
				// The agent names its threads in START THREAD records;
				// its heap dumps carry no field values to read names from.
				if th.Name == "" {
					th.Name = d.sym.Strings[st.NameID]
				}
				th.Group = d.sym.Strings[st.GroupID]
			}
			g.Threads = append(g.Threads, th)
		}
	} else {
		for serial, t := range d.sym.Threads {
			if d.sym.Ended[serial] {
				continue
			}
			th := graph.Thread{Serial: serial, ObjectID: t.ObjectID, Name: d.sym.Strings[t.NameID], Group: d.sym.Strings[t.GroupID],
				Stack: d.names.Stack(t.TraceSerial)}
			if th.Stack == 0 {
				th.Stack = d.names.StackOfThread(serial)
			}
			g.Threads = append(g.Threads, th)
		}
	}
	if len(g.Threads) == 0 {
		return
	}
	graph.SortThreads(g.Threads)
	agg := graph.NewAggregator(v)
	for _, th := range g.Threads {
		name := th.Name
		if name == "" {
			name = fmt.Sprintf("thread-serial-%d", th.Serial)
		}
		agg.Add(th.Stack, []graph.Label{{Key: graph.LabelThread, Str: name}}, 1)
	}
	v.Comments = append(v.Comments, fmt.Sprintf("%d threads", len(g.Threads)))
	g.AddView(v)
}

// decodeBinary reads a binary HPROF stream into a new graph. reopen, when
// not nil, opens the same input again from the start: the thread view of
// a heap dump may need a second look at objects seen before it knew it
// wanted them.
func decodeBinary(ctx context.Context, r *hprof.Reader, file *os.File, g *graph.Graph, opts Options, reopen func() (io.ReadCloser, error)) error {
	g.Source.Format = "hprof-binary"
	g.Source.Version = r.Header.Version
	g.Source.IDSize = r.Header.IDSize
	g.Source.Time = r.Header.Time
	d := newBinDecoder(g, opts)
	d.size = -1
	if file != nil {
		if fi, err := file.Stat(); err == nil && fi.Mode().IsRegular() {
			d.file, d.size = file, fi.Size()
			d.mapSpans = true
		}
	}
	runErr := d.run(ctx, r)
	if h := d.heap; h != nil && len(h.Spans) > 0 {
		// The input ended inside a dump: count what it holds.
		if err := d.scanSpans(ctx, h); err != nil && runErr == nil {
			runErr = err
		}
	}
	g.Source.Bytes = r.Offset()
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
			g.Damage = &hprof.FormatError{Off: g.Source.Bytes, Record: "HEAP DUMP SEGMENT", Msg: "no HEAP DUMP END before the end of the input", Err: hprof.ErrTruncated}
			g.Lost = hprof.JoinLost(g.Lost, fmt.Sprintf("heap dump %d has no HEAP DUMP END: the input ends after its last whole record, so later objects may be missing", h.Index))
		} else if !h.Complete {
			g.Lost = hprof.JoinLost(g.Lost, fmt.Sprintf("heap dump %d is incomplete", h.Index))
		}
	}
	g.StackBudget = graph.StackBudgetFor(r.Offset())
	d.finish(ctx, reopen)
	d.describe()
	return nil
}

// describe fills the writer guess and the notes of `info`.
func (d *binDecoder) describe() {
	f := describe.Facts{
		Source: &d.g.Source, Soft: d.g.Soft, Control: d.control, Sites: d.sites, Summary: d.summary,
		Heap: d.lastHeap, Env: d.env(), MappingClasses: -1, Renamed: d.names.Renamed(),
		RepeatedLoads: d.sym.RepeatedLoads, ClassName: d.sym.ClassName,
	}
	if d.lastHeap != nil {
		f.Ref, f.RefWhy = d.oopSize(d.lastHeap)
	}
	if d.opts.Mapping != nil {
		f.MappingClasses = d.opts.Mapping.Len()
	}
	describe.Describe(f)
}

// usec converts a record TIME field (µs since the header time).
func usec(t uint32) time.Duration { return time.Duration(t) * time.Microsecond }
