package text

import (
	"fmt"
	"strings"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
)

// build turns the sections read into views, following the dump rules.
func (p *parser) build() error {
	dumps := p.completeDumps()
	p.g.Source.Dumps = len(dumps)
	if p.opts.Dump > 0 && !dumps[p.opts.Dump] {
		return fmt.Errorf("%w: dump %d asked for, the file has %d complete dump(s)", ErrNoDump, p.opts.Dump, len(dumps))
	}
	chosen := p.chosenSections()
	if len(chosen) == 0 {
		p.noteNothingChosen()
	}
	p.buildViews(chosen)
	p.noteMonitorEvents()
	return nil
}

// noteMonitorEvents says, in info's notes and in every view's comments,
// how many monitor=y event lines (WAIT, WAITED, SLEEP, EXIT) the report
// holds: no view is made of them.
func (p *parser) noteMonitorEvents() {
	var counts []string
	for _, kind := range []string{"WAIT", "WAITED", "SLEEP", "EXIT"} {
		if n := p.records[kind]; n > 0 {
			counts = append(counts, fmt.Sprintf("%d %s", n, kind))
		}
	}
	if len(counts) == 0 {
		return
	}
	note := "monitor events not converted (no view shows them): " + strings.Join(counts, ", ")
	p.g.Source.Notes = append(p.g.Source.Notes, note)
	for _, v := range p.g.Views {
		v.Comments = append(v.Comments, note)
	}
}

// completeDumps returns the dump numbers that have a complete section.
func (p *parser) completeDumps() map[int]bool {
	dumps := map[int]bool{}
	for _, s := range p.sections {
		if s.complete {
			dumps[s.dump] = true
		}
	}
	return dumps
}

// chosenSections returns the complete sections of the dump asked for
// (every dump when none was asked for), in file order.
func (p *parser) chosenSections() []*section {
	var chosen []*section
	for _, s := range p.sections {
		if s.complete && (p.opts.Dump == 0 || s.dump == p.opts.Dump) {
			chosen = append(chosen, s)
		}
	}
	return chosen
}

// noteNothingChosen says why no view is made when no section was
// chosen: an excerpt without sections gets a note, a report with a
// header but no complete section is damage (its writer was killed).
func (p *parser) noteNothingChosen() {
	if p.g.Damage != nil {
		return
	}
	if !p.ex.header {
		p.g.Source.Notes = append(p.g.Source.Notes, "excerpt: no SITES, CPU SAMPLES, CPU TIME, HEAP DUMP or MONITOR section: nothing to make a view of (its TRACE and THREAD records are listed above)")
		return
	}
	p.g.Damage = fmt.Errorf("%w: the report ends after %d line(s) without a single BEGIN … END section", ErrNoData, p.lr.n)
	p.g.Lost = "everything the writer had not flushed (the JVM was probably killed)"
}

// buildViews makes each view from the chosen sections of its kind: the
// sampled views from all of them, the snapshot views from the last.
func (p *parser) buildViews(chosen []*section) {
	if ss := sectionsOf(chosen, secCPUSamples); len(ss) > 0 {
		p.cpuView(ss)
	}
	if ss := sectionsOf(chosen, secCPUTime); len(ss) > 0 {
		p.percentView(graph.NewCPUTimeView(), ss, "CPU TIME (ms)")
	}
	if ss := sectionsOf(chosen, secMonitorTime); len(ss) > 0 {
		p.percentView(graph.NewMonitorView(), ss, "MONITOR TIME")
	}
	if s := lastOf(chosen, secSites); s != nil {
		p.allocView(s)
		p.g.Source.Dump = s.dump
	}
	if s := lastOf(chosen, secHeapDump); s != nil {
		p.heapView(s)
		p.g.Source.Dump = s.dump
	}
	if s := lastOf(chosen, secMonitorDump); s != nil {
		p.threadsView(s)
	}
}

// sectionsOf returns the sections of kind k, in order.
func sectionsOf(ss []*section, k sectionKind) []*section {
	var out []*section
	for _, s := range ss {
		if s.kind == k {
			out = append(out, s)
		}
	}
	return out
}

// lastOf returns the last section of kind k, or nil.
func lastOf(ss []*section, k sectionKind) *section {
	for i := len(ss) - 1; i >= 0; i-- {
		if ss[i].kind == k {
			return ss[i]
		}
	}
	return nil
}

// stack returns the stack of a trace serial. Trace 0 is the JVMPI-era
// agent's "no trace" (never printed): the empty stack. Any other serial
// the file lacks is a soft failure in a whole report, and an expected
// gap in an excerpt (info lists it).
func (p *parser) stack(trace uint32) graph.StackID {
	id, ok := p.traces[trace]
	if !ok && trace != 0 {
		p.missingTrace(trace)
	}
	return id
}

// rowStack is stack for a CPU SAMPLES or CPU TIME row: when the file
// lacks the row's trace, the method column gives a one-frame stack, so
// an excerpt of the table alone still names its hot methods.
func (p *parser) rowStack(r row) graph.StackID {
	if _, ok := p.traces[r.trace]; ok || r.method == "" {
		return p.stack(r.trace)
	}
	p.missingTrace(r.trace)
	dot := strings.LastIndexByte(r.method, '.')
	if dot <= 0 || dot == len(r.method)-1 {
		return 0
	}
	f := graph.Frame{Kind: graph.KindMethod, Class: javaClassName(r.method[:dot]), Method: r.method[dot+1:]}
	return p.g.Stack([]graph.FrameID{p.g.Frame(f)})
}

// notShownFrame names the sample that carries what a table's header
// total holds beyond its rows.
const notShownFrame = "(rows not shown: cutoff or excerpt)"

// notShown returns the one-frame stack of that sample.
func (p *parser) notShown() graph.StackID {
	return p.g.Stack([]graph.FrameID{p.g.Frame(graph.Frame{Kind: graph.KindRoot, Class: notShownFrame})})
}

// elided reports whether any of the sections holds a `...` line.
func elided(ss []*section) bool {
	for _, s := range ss {
		if s.elided {
			return true
		}
	}
	return false
}

// threadLabel names a thread serial ("thread 200003" when the file has no
// THREAD START for it).
// traceLabels starts the labels of a row of trace serial: its thread,
// when the trace names one (the agent's thread=y).
func (p *parser) traceLabels(labels []graph.Label, trace uint32) []graph.Label {
	labels = labels[:0]
	if th, ok := p.traceThread[trace]; ok {
		labels = append(labels, p.threadLabel(th))
	}
	return labels
}

func (p *parser) threadLabel(serial uint32) graph.Label {
	name, ok := p.threadName[serial]
	if !ok {
		name = fmt.Sprintf("thread %d", serial)
	}
	return graph.Label{Key: graph.LabelThread, Str: name}
}

// timed sets a view's start to the file header time and its duration to
// the time of the last section used.
func (p *parser) timed(v *graph.View, ss []*section) {
	v.Time = p.g.Source.Time
	end := ss[len(ss)-1].when
	if !v.Time.IsZero() && end.After(v.Time) {
		v.Duration = end.Sub(v.Time)
	}
}

func dumpNote(ss []*section) string {
	if len(ss) == 1 {
		return fmt.Sprintf("dump %d", ss[0].dump)
	}
	nums := make([]string, len(ss))
	for i, s := range ss {
		nums[i] = fmt.Sprint(s.dump)
	}
	return "sum of dumps " + strings.Join(nums, ", ")
}

// cpuView: CPU SAMPLES rows → cpu view; samples in blocking natives get
// state=blocked, traces with a thread get its name.
func (p *parser) cpuView(ss []*section) {
	v := graph.NewCPUView(p.opts.Interval)
	agg := graph.NewAggregator(v)
	var total, shown int64
	var labels []graph.Label
	for _, s := range ss {
		total += s.total
		for _, r := range s.rows {
			st := p.rowStack(r)
			labels = p.traceLabels(labels, r.trace)
			if p.g.Blocked(st) {
				labels = append(labels, graph.BlockedState)
			}
			agg.Add(st, labels, r.count, r.count*int64(p.opts.Interval))
			shown += r.count
		}
	}
	v.Comments = append(v.Comments,
		fmt.Sprintf("CPU SAMPLES total = %d (%s)", total, dumpNote(ss)),
		fmt.Sprintf("sampling interval %s assumed (the file does not record it)", p.opts.Interval),
		"state=blocked marks samples whose leaf is a native method that blocks while the JVM reports RUNNABLE")
	if rest := total - shown; rest > 0 {
		agg.Add(p.notShown(), nil, rest, rest*int64(p.opts.Interval))
		v.Comments = append(v.Comments, fmt.Sprintf("the rows shown hold %d samples; the other %d (rows below the agent's cutoff%s) are on the frame %q",
			shown, rest, excerptWord(ss), notShownFrame))
	}
	p.timed(v, ss)
	p.g.AddView(v)
}

// percentView: CPU TIME or MONITOR TIME rows → a view with the count
// column and time = self% × section total (ms).
func (p *parser) percentView(v *graph.View, ss []*section, name string) {
	agg := graph.NewAggregator(v)
	var total, shown int64
	short := false // a section's rows stop short of 100%
	var labels []graph.Label
	for _, s := range ss {
		total += s.total
		for _, r := range s.rows {
			st := p.rowStack(r)
			labels = p.traceLabels(labels, r.trace)
			if r.name != "" {
				labels = append(labels, graph.Label{Key: graph.LabelMonitor, Str: r.name})
			}
			// pct is in 1/100 %, total in ms: ns = pct/10000 × total × 1e6.
			agg.Add(st, labels, r.count, r.pct*s.total*100)
			shown += r.pct * s.total * 100
		}
		short = short || s.elided || len(s.rows) == 0 || s.rows[len(s.rows)-1].accum < 100*100
	}
	v.Comments = append(v.Comments,
		fmt.Sprintf("%s total = %d ms (%s)", name, total, dumpNote(ss)),
		"time per trace = self% × total; the agent prints self% rounded to 0.01%, rows below its cutoff are left out")
	// Rows that reach 100.00% are the whole table: what is left is
	// rounding. Otherwise the header's total minus the rows is what the
	// cutoff or the excerpt left out.
	if rest := total*1_000_000 - shown; short && rest > 0 {
		agg.Add(p.notShown(), nil, 0, rest)
		v.Comments = append(v.Comments, fmt.Sprintf("the rows shown hold %d ns; the other %d ns (rows below the agent's cutoff%s, and the rounding of self%%) are on the frame %q",
			shown, rest, excerptWord(ss), notShownFrame))
	}
	p.timed(v, ss)
	p.g.AddView(v)
}

// excerptWord completes "rows below the agent's cutoff" when a section
// is an excerpt.
func excerptWord(ss []*section) string {
	if elided(ss) {
		return " or left out of this excerpt"
	}
	return ""
}

// allocView: SITES rows → alloc view, the class as leaf on the trace.
func (p *parser) allocView(s *section) {
	v := graph.NewAllocView()
	agg := graph.NewAggregator(v)
	for _, r := range s.rows {
		st := p.g.WithLeaf(p.stack(r.trace), r.name)
		agg.Add(st, []graph.Label{{Key: graph.LabelClass, Str: r.name}}, r.allocObjs, r.allocBytes, r.liveObjs, r.liveBytes)
	}
	v.Comments = append(v.Comments,
		fmt.Sprintf("SITES of dump %d: %d sites (alloc'ed and live are cumulative since the JVM started)", s.dump, len(s.rows)))
	if p.ex.jvmpi {
		v.Comments = append(v.Comments, "JVMPI-era SITES name an array of objects by its element class, as the JVM's allocation event did: "+
			"a java.lang.Object row may count Object[] arrays, a char[] row (`[C`) char[][] arrays; the same trace and class then have two rows")
	}
	p.timed(v, []*section{s})
	p.g.AddView(v)
}

// heapView: HEAP DUMP OBJ/ARR records → heap view.
func (p *parser) heapView(s *section) {
	v := graph.NewHeapView()
	agg := graph.NewAggregator(v)
	for i, k := range s.keys {
		st := p.g.WithLeaf(p.stack(k.trace), k.class)
		agg.Add(st, []graph.Label{{Key: graph.LabelClass, Str: k.class}}, s.cells[i].objects, s.cells[i].bytes)
	}
	recs := s.heapRecs["OBJ"] + s.heapRecs["ARR"]
	v.Comments = append(v.Comments,
		fmt.Sprintf("HEAP DUMP of dump %d: header says %d objects, %d bytes; the dump holds %d OBJ/ARR records",
			s.dump, s.total, s.totalBytes, recs))
	switch {
	case s.elided && recs < s.total:
		// An excerpt: what the header counts beyond the records shown
		// was left out.
		var bytes int64
		for _, c := range s.cells {
			bytes += c.bytes
		}
		agg.Add(p.notShown(), nil, s.total-recs, max(s.totalBytes-bytes, 0))
		v.Comments = append(v.Comments, fmt.Sprintf("the records shown hold %d objects, %d bytes; the rest of the header's count is on the frame %q",
			recs, bytes, notShownFrame))
	case recs > s.total:
		v.Comments = append(v.Comments,
			"the hprof agent also writes records of objects freed by the last GC whose ObjectFree events it had not yet seen; all records are counted")
	case recs < s.total:
		v.Comments = append(v.Comments, "the file holds fewer OBJ/ARR records than its header counts; the view counts the records")
	}
	for _, k := range []string{"ROOT", "CLS", "OBJ", "ARR"} {
		p.records["HEAP DUMP "+k] += s.heapRecs[k]
	}
	p.timed(v, []*section{s})
	p.g.AddView(v)
}

// threadStates maps the agent's MONITOR DUMP status codes.
var threadStates = map[string]string{
	"R":  "runnable",
	"MW": "blocked", // waiting to enter a monitor
	"CW": "waiting", // Object.wait, park
	"SL": "sleeping",
	"ZO": "terminated",
	"NS": "new",
	"UN": "unknown",
}

// threadState turns `S|intr|native|R` into "runnable" (the flags are
// dropped; an unknown code is kept as printed).
func threadState(status string) string {
	i := strings.LastIndexByte(status, '|')
	code := status[i+1:]
	if st, ok := threadStates[code]; ok {
		return st
	}
	return status
}

// threadsView: MONITOR DUMP → one sample per thread, its stack rooted at
// a frame naming the thread, with state and the monitor it waits on.
func (p *parser) threadsView(s *section) {
	v := graph.NewThreadsView()
	agg := graph.NewAggregator(v)
	for _, t := range s.threads {
		state := threadState(t.status)
		thread := p.threadLabel(t.serial)
		labels := []graph.Label{thread, {Key: graph.LabelState, Str: state}}
		mon, ok := s.monitor[t.serial]
		if !ok {
			mon, ok = s.openWait[t.serial]
		}
		if ok && mon != "" {
			labels = append(labels, graph.Label{Key: graph.LabelMonitor, Str: mon})
		}
		st := p.stack(t.trace)
		agg.Add(p.g.ThreadRoot(st, thread.Str), labels, 1)
		if j, ok := p.threadIdx[t.serial]; ok {
			p.g.Threads[j].State = state
			p.g.Threads[j].Stack = st
		}
	}
	v.Comments = append(v.Comments, fmt.Sprintf("MONITOR DUMP of dump %d: %d threads", s.dump, len(s.threads)))
	v.Time = p.g.Source.Time
	if !v.Time.IsZero() && !s.when.IsZero() {
		v.Duration = s.when.Sub(v.Time)
	}
	p.g.AddView(v)
}
