package convert

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/hprof"
	"github.com/hprof2pprof/hprof2pprof/convert/internal/heapdump"
	"github.com/hprof2pprof/hprof2pprof/convert/internal/testhooks"
	"github.com/hprof2pprof/hprof2pprof/convert/retained"
)

// The retained view (package convert/retained) holds the whole object
// graph in memory, so it is computed only when Options.Views names it
// (--view retained), never by default. It reads the chosen dump again
// (hprof.File.Heap) unless the first pass noted it all; standard input
// cannot be read again, so there the view is missing and a note says why.

// asks reports whether the user named view explicitly.
func (o Options) asks(view string) bool { return slices.Contains(o.Views, view) }

// asksGraph reports whether a view that needs the object graph (the
// retained or the paths view) is asked for.
func (o Options) asksGraph() bool {
	return o.asks(graph.ViewRetained) || o.asks(graph.ViewPaths) || o.Suspects != nil
}

// buildRetained computes the dominator tree of the chosen heap dump
// d.dump of input in and adds the retained view to g. It returns the
// analysis, nil when there is none: the heap rows take its per-object
// columns when it kept its object IDs (Options.ObjectRetained).
func buildRetained(ctx context.Context, g *graph.Graph, in *hprof.File, d *binData, roots *rootNamer, opts Options) *retained.Result {
	h := d.dump
	if h == nil || h.Classes.Len() == 0 {
		return nil
	}
	if !in.CanReread() {
		g.Source.Notes = append(g.Source.Notes,
			"retained view not computed: it reads the input again, which standard input cannot do; convert a file instead")
		g.SoftFail(graph.SoftRetainedNeedsFile)
		return nil
	}
	probe := testhooks.From(ctx).Retained
	e := d.env(g)
	ri := retainedInput(g, in, h, e, opts)
	if probe != nil {
		ri.KeepIDs = true
		ri.GarbageHolds = probe.GarbageHolds
	}
	ri.NoView = ri.NoView && probe == nil
	feedRetained(&ri, h, in, testhooks.From(ctx).RetainedFeed)
	for _, id := range h.Classes.IDs() {
		name := d.sym.ClassName[id]
		if name == "" {
			name = fmt.Sprintf("unknown-class-0x%x", id)
		}
		ri.ClassNames[id] = name
		h.InstanceSize(e, h.Model, id) // counts a broken class chain, as the heap view does
	}
	if opts.Phase != nil {
		defer opts.Phase("")
	}
	res, err := retained.Compute(ctx, ri)
	if err != nil {
		g.Source.Notes = append(g.Source.Notes, "retained view not computed: "+err.Error())
		g.SoftFail(graph.SoftRetainedFailed)
		return nil
	}
	if probe != nil {
		probe.Result = res
	}
	if spill := res.Spill.String(); spill != "" {
		g.Source.Notes = append(g.Source.Notes, spill)
	}
	if opts.asks(graph.ViewRetained) {
		addRetainedView(g, res, ri.ClassNames, h, d.dumps, roots)
	}
	addPaths(ctx, g, res, h, d.dumps, roots, opts)
	return res
}

// retainedInput is what retained.Compute is given of dump h of input in,
// with the memory, progress and phase settings of opts.
func retainedInput(g *graph.Graph, in *hprof.File, h *heapdump.Dump, e heapdump.Env, opts Options) retained.Input {
	ri := retained.Input{
		File:       in,
		Dump:       h.Index,
		Layouts:    h.Classes,
		Names:      e,
		ClassNames: make(map[uint64]string, h.Classes.Len()),
		Model:      h.Model,
		KeepIDs:    opts.ObjectRetained,
		SpillDir:   opts.SpillDir,
		// The paths view, the suspects report (paths.go).
		Paths:           opts.asks(graph.ViewPaths),
		Suspects:        opts.Suspects != nil,
		SuspectsByClass: opts.Suspects != nil && opts.Suspects.Class != nil,
		NoView:          !opts.asks(graph.ViewRetained),
	}
	switch {
	case opts.RetainedMemory != 0:
		ri.MemoryBudget, ri.BudgetGiven = opts.RetainedMemory, true
	case opts.MaxMemory > 0:
		// The heap watch counts the Go heap only, not mapped files: keep
		// the graph's arrays to half the limit, or map them all.
		ri.MemoryBudget = opts.MaxMemory / 2
	}
	if opts.Progress != nil {
		total := g.Source.Bytes
		ri.Progress = func(pass int, done int64) {
			// Report the extra passes as progress beyond the first read.
			opts.Progress(total + int64(pass-1)*total + done)
		}
	}
	if opts.Phase != nil {
		ri.Phase = func(p string) { opts.Phase("retained: " + p) }
	}
	return ri
}

// addRetainedView adds the retained view of res, and the retained bytes
// by class, to g.
func addRetainedView(g *graph.Graph, res *retained.Result, classNames map[uint64]string, h *heapdump.Dump, dumps int, roots *rootNamer) {
	byName := map[string]int64{}
	for id, b := range res.ByClass {
		byName[classNames[id]] += b
	}
	g.RetainedByClass = make([]graph.ClassRetained, 0, len(byName))
	for _, k := range slices.Sorted(maps.Keys(byName)) {
		g.RetainedByClass = append(g.RetainedByClass, graph.ClassRetained{Class: k, Bytes: byName[k]})
	}
	v := res.View(g, roots.Frames)
	v.Time = g.Source.Time
	g.SortSamples(v)
	v.Comments = append(v.Comments, fmt.Sprintf("heap dump %d of %d; sizes as in the heap view (reference %d bytes); class objects weigh 0 bytes, as in the heap view",
		h.Index, dumps, h.Model.Ref()))
	g.AddView(v)
}

// feedRetained hands the retained view what the first pass noted of the
// objects of dump h: the spans of a plain file with their ID summaries
// (the graph is filled from the mapped spans, the input is not read
// again), or the IDs of the streamed records (it is read once more);
// nothing when the dump mixed both (it is read twice more). feed can hand
// over less, for tests to compare the paths.
func feedRetained(in *retained.Input, h *heapdump.Dump, f *hprof.File, feed heapdump.Feed) {
	defer func() { h.Objs, h.Noted = nil, nil }()
	noted := feed == heapdump.FeedNoted
	switch {
	case feed == heapdump.FeedNothing:
		return
	case !h.Streamed() && len(h.Objs) > 0:
		spans, _, ok := h.Records(f)
		file, isFile := f.ReaderAt().(*os.File)
		if !ok || !isFile {
			return
		}
		in.Segments = &heapdump.FileSegments{File: file, Spans: spans[:len(h.Objs)], Map: true}
		for _, o := range h.Objs {
			in.SegmentObjects = append(in.SegmentObjects, o.IDs)
			if noted {
				in.SegmentIDs = append(in.SegmentIDs, o.Set)
			}
			in.SegmentRefs = append(in.SegmentRefs, o.Refs)
		}
	case h.Noted != nil && !h.Spanned():
		h.Noted.IDs.Flush()
		in.Noted = h.Noted
	}
}
