package text

import (
	"fmt"
	"strings"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
)

// build turns the sections read into views, following the dump rules.
func (p *parser) build() error {
	dumps := map[int]bool{}
	for _, s := range p.sections {
		if s.complete {
			dumps[s.dump] = true
		}
	}
	p.g.Source.Dumps = len(dumps)
	if p.opts.Dump > 0 && !dumps[p.opts.Dump] {
		return fmt.Errorf("%w: dump %d asked for, the file has %d complete dump(s)", ErrNoDump, p.opts.Dump, len(dumps))
	}
	var chosen []*section
	for _, s := range p.sections {
		if s.complete && (p.opts.Dump == 0 || s.dump == p.opts.Dump) {
			chosen = append(chosen, s)
		}
	}
	if len(chosen) == 0 && p.g.Damage == nil {
		p.g.Damage = fmt.Errorf("%w: the report ends after %d line(s) without a single BEGIN … END section", ErrNoData, p.lr.n)
		p.g.Lost = "everything the writer had not flushed (the JVM was probably killed)"
	}
	byKind := func(k sectionKind) []*section {
		var out []*section
		for _, s := range chosen {
			if s.kind == k {
				out = append(out, s)
			}
		}
		return out
	}
	last := func(k sectionKind) *section {
		ss := byKind(k)
		if len(ss) == 0 {
			return nil
		}
		return ss[len(ss)-1]
	}
	if ss := byKind(secCPUSamples); len(ss) > 0 {
		p.cpuView(ss)
	}
	if ss := byKind(secCPUTime); len(ss) > 0 {
		p.percentView(graph.NewCPUTimeView(), ss, "CPU TIME (ms)")
	}
	if ss := byKind(secMonitorTime); len(ss) > 0 {
		p.percentView(graph.NewMonitorView(), ss, "MONITOR TIME")
	}
	if s := last(secSites); s != nil {
		p.allocView(s)
		p.g.Source.Dump = s.dump
	}
	if s := last(secHeapDump); s != nil {
		p.heapView(s)
		p.g.Source.Dump = s.dump
	}
	if s := last(secMonitorDump); s != nil {
		p.threadsView(s)
	}
	return nil
}

// stack returns the stack of a trace serial, counting unknown ones.
func (p *parser) stack(trace uint32) graph.StackID {
	id, ok := p.traces[trace]
	if !ok {
		p.g.SoftFail(graph.SoftRowMissingTrace)
	}
	return id
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
	var total int64
	var labels []graph.Label
	for _, s := range ss {
		total += s.total
		for _, r := range s.rows {
			st := p.stack(r.trace)
			labels = p.traceLabels(labels, r.trace)
			if p.g.Blocked(st) {
				labels = append(labels, graph.BlockedState)
			}
			agg.Add(st, labels, r.count, r.count*int64(p.opts.Interval))
		}
	}
	v.Comments = append(v.Comments,
		fmt.Sprintf("CPU SAMPLES total = %d (%s)", total, dumpNote(ss)),
		fmt.Sprintf("sampling interval %s assumed (the file does not record it)", p.opts.Interval),
		"state=blocked marks samples whose leaf is a native method that blocks while the JVM reports RUNNABLE")
	p.timed(v, ss)
	p.g.AddView(v)
}

// percentView: CPU TIME or MONITOR TIME rows → a view with the count
// column and time = self% × section total (ms).
func (p *parser) percentView(v *graph.View, ss []*section, name string) {
	agg := graph.NewAggregator(v)
	var total int64
	var labels []graph.Label
	for _, s := range ss {
		total += s.total
		for _, r := range s.rows {
			st := p.stack(r.trace)
			labels = p.traceLabels(labels, r.trace)
			if r.name != "" {
				labels = append(labels, graph.Label{Key: graph.LabelMonitor, Str: r.name})
			}
			// pct is in 1/100 %, total in ms: ns = pct/10000 × total × 1e6.
			agg.Add(st, labels, r.count, r.pct*s.total*100)
		}
	}
	v.Comments = append(v.Comments,
		fmt.Sprintf("%s total = %d ms (%s)", name, total, dumpNote(ss)),
		"time per trace = self% × total; the agent prints self% rounded to 0.01%, rows below its cutoff are left out")
	p.timed(v, ss)
	p.g.AddView(v)
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
	if recs != s.total {
		v.Comments = append(v.Comments,
			"the hprof agent also writes records of objects freed by the last GC whose ObjectFree events it had not yet seen; all records are counted")
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

// threadsView: MONITOR DUMP → one sample per thread, with state and the
// monitor it waits on.
func (p *parser) threadsView(s *section) {
	v := graph.NewThreadsView()
	agg := graph.NewAggregator(v)
	for _, t := range s.threads {
		state := threadState(t.status)
		labels := []graph.Label{p.threadLabel(t.serial), {Key: graph.LabelState, Str: state}}
		mon, ok := s.monitor[t.serial]
		if !ok {
			mon, ok = s.openWait[t.serial]
		}
		if ok && mon != "" {
			labels = append(labels, graph.Label{Key: graph.LabelMonitor, Str: mon})
		}
		st := p.stack(t.trace)
		agg.Add(st, labels, 1)
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
