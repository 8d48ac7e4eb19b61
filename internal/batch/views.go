package batch

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
)

// knownViews are the views the decoders make, in the order they are
// listed to a person.
var knownViews = []string{
	graph.ViewCPU, graph.ViewAlloc, graph.ViewHeap, graph.ViewThreads,
	graph.ViewCPUTime, graph.ViewMonitor, graph.ViewCPUOld, graph.ViewRetained,
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

// missingViews says which views asked for g does not have, and which it
// has; "" when it has them all.
func missingViews(g *graph.Graph, asked, have []string) string {
	var missing []string
	for _, v := range asked {
		if !slices.Contains(have, v) && !slices.Contains(missing, v) {
			missing = append(missing, v)
		}
	}
	if len(missing) == 0 {
		return ""
	}
	return fmt.Sprintf("no %s view in this input (it has: %s)", strings.Join(missing, ", "), strings.Join(heldViews(g), ", "))
}

// checkViews is the job's views' error, wrapping ErrUsage: a name that
// is no view, or the retained view of standard input.
func checkViews(j *Job) error {
	for _, v := range j.Views {
		if !slices.Contains(knownViews, v) {
			return fmt.Errorf("%w: unknown view %q (known: %s)", ErrUsage, v, strings.Join(knownViews, ", "))
		}
	}
	if slices.Contains(j.Views, graph.ViewRetained) && slices.ContainsFunc(j.Inputs, func(in Input) bool { return in.Path == "-" }) {
		return fmt.Errorf("%w: the retained view reads its input twice (the objects, then the references for the dominator tree), and standard input cannot be read twice: name a file", ErrUsage)
	}
	return nil
}

// viewsToWrite returns the views of g to write and which views asked for
// it lacks ("" none), or why there is nothing to write.
func viewsToWrite(g *graph.Graph, asked []string) (views []string, missing string, err error) {
	views = SelectViews(g, asked)
	missing = missingViews(g, asked, views)
	switch {
	case len(views) > 0:
		return views, missing, nil
	case g.Damage != nil:
		return nil, "", fmt.Errorf("nothing written: the input is damaged before any view is complete; %s", Lost(g.Lost))
	case len(asked) == 0:
		return nil, "", fmt.Errorf("no record in this input makes a view: nothing to write (hprof2pprof info lists its records)")
	}
	return nil, "", errors.New(missing)
}
