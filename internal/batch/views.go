package batch

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
)

// knownViews are the views the decoders make, in the order they are
// listed to a person.
var knownViews = []string{
	graph.ViewCPU, graph.ViewAlloc, graph.ViewHeap, graph.ViewThreads,
	graph.ViewCPUTime, graph.ViewMonitor, graph.ViewCPUOld, graph.ViewRetained, graph.ViewPaths,
}

// Views names every view an input may have, in the order they are
// listed to a person.
func Views() []string { return slices.Clone(knownViews) }

// viewRecords are the records whose presence makes a view: a decoder
// asked for some views builds only those, so the others an input holds
// are told by its records.
var viewRecords = map[string][]string{
	graph.ViewCPU:     {"CPU SAMPLES"},
	graph.ViewAlloc:   {"ALLOC SITES", "SITES"},
	graph.ViewHeap:    {"HEAP DUMP", "HEAP DUMP SEGMENT"},
	graph.ViewThreads: {"START THREAD", "ROOT THREAD OBJECT", "MONITOR DUMP"},
	graph.ViewCPUTime: {"CPU TIME (ms)"},
	graph.ViewMonitor: {"MONITOR TIME"},
	graph.ViewCPUOld:  {"cpu=old row"},
}

// heldViews names the views g's input holds, whichever were built: the
// views built, and those its records make.
func heldViews(g *graph.Graph) []string {
	var out []string
	for _, v := range knownViews {
		held := slices.ContainsFunc(g.Views, func(gv *graph.View) bool { return gv.Name == v })
		for _, rec := range viewRecords[v] {
			held = held || g.Source.Records[rec] > 0
		}
		if held {
			out = append(out, v)
		}
	}
	return out
}

// missingViews lists the views asked for that have does not hold.
func missingViews(asked, have []string) []string {
	var missing []string
	for _, v := range asked {
		if !slices.Contains(have, v) && !slices.Contains(missing, v) {
			missing = append(missing, v)
		}
	}
	return missing
}

// noViewText says that an input lacks the views missing, and which it
// holds, then why a view was not computed (notComputed) if one was not.
func noViewText(missing, held []string, why string) string {
	s := fmt.Sprintf("no %s view in this input (it has: %s)", strings.Join(missing, ", "), strings.Join(held, ", "))
	if why != "" {
		s += "; " + why
	}
	return s
}

// notComputed is what g's notes say of the views its decoder did not
// compute ("retained view not computed: …" when the dump is too large
// for it), "" when they say nothing.
func notComputed(g *graph.Graph) string {
	var why []string
	for _, n := range g.Source.Notes {
		if strings.Contains(n, " view not computed: ") {
			why = append(why, n)
		}
	}
	return strings.Join(why, "; ")
}

// viewsFound keeps, for a job that names its views, which of them some
// input had, and which each input lacked: a view no input of the job has
// is reported once every input is read (settleViews), and one that only
// some inputs have is not, so --view heap,cpu over a folder of heap
// dumps and CPU profiles is a success.
type viewsFound struct {
	mu    sync.Mutex
	found map[string]bool
	// lacks[i] and held[i] are the views asked for that input i lacks,
	// and the views it holds; why[i] why its decoder did not compute a
	// view (notComputed).
	lacks, held [][]string
	why         []string
}

// note records what input i wrote and lacked.
func (f *viewsFound) note(i int, g *graph.Graph, wrote, lacks []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, v := range wrote {
		f.found[v] = true
	}
	if len(lacks) > 0 {
		f.lacks[i], f.held[i], f.why[i] = lacks, heldViews(g), notComputed(g)
	}
}

// settleViews makes partial each input written that lacks a view asked
// for that no input of the job had, saying so.
func (r *run) settleViews() {
	f := &r.views
	for i := range r.results {
		res := &r.results[i]
		if res.Status != StatusOK && res.Status != StatusPartial {
			continue
		}
		var none []string
		for _, v := range f.lacks[i] {
			if !f.found[v] {
				none = append(none, v)
			}
		}
		if len(none) > 0 {
			res.Status, res.Reason = StatusPartial, joinReasons(noViewText(none, f.held[i], f.why[i]), res.Reason)
			r.emit(Event{Kind: Problem, Index: i, Input: r.inputs[i], Err: errors.New("partial, " + res.Reason), Result: res})
			r.remark(i)
		}
	}
}

// checkViews is the job's views' error, wrapping ErrUsage: a name that
// is no view, or the retained view of standard input.
func checkViews(j *Job) error {
	for _, v := range j.Views {
		if !slices.Contains(knownViews, v) {
			return fmt.Errorf("%w: unknown view %q (known: %s)", ErrUsage, v, strings.Join(knownViews, ", "))
		}
	}
	graphView := slices.Contains(j.Views, graph.ViewRetained) || slices.Contains(j.Views, graph.ViewPaths)
	if graphView && slices.ContainsFunc(j.Inputs, func(in Input) bool { return in.Path == "-" }) {
		return fmt.Errorf("%w: the retained and paths views read their input twice (the objects, then the references for the dominator tree), and standard input cannot be read twice: name a file", ErrUsage)
	}
	return nil
}

// viewsToWrite returns the views of g to write and the views asked for
// that it lacks, or why there is nothing to write.
func viewsToWrite(g *graph.Graph, asked []string) (views, lacks []string, err error) {
	views = SelectViews(g, asked)
	lacks = missingViews(asked, views)
	switch {
	case len(views) > 0:
		return views, lacks, nil
	case g.Damage != nil:
		return nil, nil, fmt.Errorf("nothing written: the input is damaged before any view is complete; %s", Lost(g.Lost))
	case len(asked) == 0:
		return nil, nil, fmt.Errorf("no record in this input makes a view: nothing to write (hprof2pprof info lists its records)")
	}
	return nil, nil, errors.New(noViewText(lacks, heldViews(g), notComputed(g)))
}

// remark records input i's settled status in its done mark, if it has
// one, so that a rerun skipping it reports the same.
func (r *run) remark(i int) {
	if !r.resuming || r.inputs[i].Path == "-" {
		return
	}
	p := markPath(r.dst, r.inputs[i])
	if m := readMark(p); m != nil {
		m.Status, m.Lost = r.results[i].Status, r.results[i].Reason
		writeMark(p, m) // as in write: a mark not recorded only costs a rerun
	}
}
