package convert

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
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

// buildRetained computes the dominator tree of the chosen heap dump and
// adds the retained view.
func (d *binDecoder) buildRetained(ctx context.Context) {
	h := d.lastHeap
	if h == nil || h.Classes.Len() == 0 {
		return
	}
	g := d.g
	if !d.in.CanReread() {
		g.Source.Notes = append(g.Source.Notes,
			"retained view not computed: it reads the input again, which standard input cannot do; convert a file instead")
		g.SoftFail(graph.SoftRetainedNeedsFile)
		return
	}
	probe := testhooks.From(ctx).Retained
	in := retained.Input{
		File:       d.in,
		Dump:       h.Index,
		Layouts:    h.Classes,
		Names:      d.env(),
		ClassNames: make(map[uint64]string, h.Classes.Len()),
		Model:      h.Model,
		KeepIDs:    probe != nil || d.opts.ObjectRetained,
	}
	switch {
	case d.opts.RetainedMemory != 0:
		in.MemoryBudget, in.BudgetGiven = d.opts.RetainedMemory, true
	case d.opts.MaxMemory > 0:
		// The heap watch counts the Go heap only, not mapped files: keep
		// the graph's arrays to half the limit, or map them all.
		in.MemoryBudget = d.opts.MaxMemory / 2
	}
	in.SpillDir = d.opts.SpillDir
	if probe != nil {
		in.GarbageHolds = probe.GarbageHolds
	}
	feedRetained(&in, h, d.file, testhooks.From(ctx).RetainedFeed)
	for _, id := range h.Classes.IDs() {
		name := d.sym.ClassName[id]
		if name == "" {
			name = fmt.Sprintf("unknown-class-0x%x", id)
		}
		in.ClassNames[id] = name
		h.InstanceSize(d.env(), h.Model, id) // counts a broken class chain, as the heap view does
	}
	if d.opts.Progress != nil {
		total := g.Source.Bytes
		in.Progress = func(pass int, done int64) {
			// Report the extra passes as progress beyond the first read.
			d.opts.Progress(total + int64(pass-1)*total + done)
		}
	}
	if d.opts.Phase != nil {
		in.Phase = func(p string) { d.opts.Phase("retained: " + p) }
		defer d.opts.Phase("")
	}
	res, err := retained.Compute(ctx, in)
	if err != nil {
		g.Source.Notes = append(g.Source.Notes, "retained view not computed: "+err.Error())
		g.SoftFail(graph.SoftRetainedFailed)
		return
	}
	if probe != nil {
		probe.Result = res
	}
	d.retained = res
	spill := res.Spill.String()
	if spill != "" {
		g.Source.Notes = append(g.Source.Notes, spill)
	}
	byName := map[string]int64{}
	for id, b := range res.ByClass {
		byName[in.ClassNames[id]] += b
	}
	g.RetainedByClass = make([]graph.ClassRetained, 0, len(byName))
	for _, k := range slices.Sorted(maps.Keys(byName)) {
		g.RetainedByClass = append(g.RetainedByClass, graph.ClassRetained{Class: k, Bytes: byName[k]})
	}
	v := res.View(g)
	v.Time = g.Source.Time
	g.SortSamples(v)
	v.Comments = append(v.Comments, fmt.Sprintf("heap dump %d of %d; sizes as in the heap view (reference %d bytes); class objects weigh 0 bytes, as in the heap view",
		h.Index, d.dumps, h.Model.Ref()))
	g.AddView(v)
}

// feedRetained hands the retained view what the first pass noted of the
// objects of dump h: the spans of a plain file with their ID summaries
// (the graph is filled from the mapped spans, the input is not read
// again), or the IDs of the streamed records (it is read once more);
// nothing when the dump mixed both (it is read twice more). feed can hand
// over less, for tests to compare the paths.
func feedRetained(in *retained.Input, h *heapdump.Dump, file *os.File, feed heapdump.Feed) {
	defer func() { h.Objs, h.Noted = nil, nil }()
	noted := feed == heapdump.FeedNoted
	switch {
	case feed == heapdump.FeedNothing:
		return
	case file != nil && !h.Streamed() && len(h.Objs) > 0:
		in.Segments = &heapdump.FileSegments{File: file, Spans: h.AllSpans[:len(h.Objs)], Map: true}
		for _, o := range h.Objs {
			in.SegmentObjects = append(in.SegmentObjects, o.IDs)
			if noted {
				in.SegmentIDs = append(in.SegmentIDs, o.Set)
			}
			in.SegmentRefs = append(in.SegmentRefs, o.Refs)
		}
	case h.Noted != nil && len(h.AllSpans) == 0:
		h.Noted.IDs.Flush()
		in.Noted = h.Noted
	}
}
