package convert

import (
	"context"
	"runtime"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/internal/heapdump"
	"github.com/hprof2pprof/hprof2pprof/convert/source"
)

// The parallel span scan of a plain file: the spans the first pass
// notes (heapdump.Dump.Span) are mapped and parsed on several workers,
// spanWindow bytes of them at a time while the first pass reads on, and
// the rest when their dump ends.

// spanWindow is how many bytes of spans the first pass notes before the
// workers parse them (a JDK dump's segments are about 1 MiB each). The
// first pass reads the start of every segment, which the kernel's
// read-ahead turns into a read of the whole dump; parsed a window behind,
// the segments are still in the page cache, so a dump bigger than the
// memory left for the cache (a container's limit) is read from disk once,
// not twice, and reading overlaps parsing. Measured on a 4 GB dump in a
// 1 GiB cgroup from a cold cache: windows of 4–16 MiB read it at about
// dd's pace; windows of 64 MiB and more cost more system time.
const spanWindow = 8 << 20

// android reports whether the input is an Android heap dump ("JAVA
// PROFILE 1.0.3", written by ART and Dalvik). Its HEAP DUMP INFO
// switches the current heap for the records that follow it, across
// segments: its heaps are tracked, and its segments read by one worker
// in order, so the streaming and mapped paths agree.
func (d *binReader) android() bool { return d.g.Source.Version == "JAVA PROFILE 1.0.3" }

// workers is how many goroutines parse segments.
func (d *binReader) workers() int {
	if d.android() {
		return 1
	}
	return max(1, runtime.GOMAXPROCS(0))
}

// scanSpans parses the spans of heap dump h in parallel: those a
// scan in flight parses, then the ones pending.
func (d *binReader) scanSpans(ctx context.Context, h *heapdump.Dump) error {
	if err := d.finishScan(); err != nil {
		return err
	}
	if h.Pending() == 0 {
		return nil
	}
	return h.ScanSpans(ctx, d.env(d.g), d.spanFile(true))
}

// startScan starts parsing the spans of h noted so far while the first
// pass reads on, after the scan in flight has been added to h.
func (d *binReader) startScan(ctx context.Context, h *heapdump.Dump) error {
	if err := d.finishScan(); err != nil {
		return err
	}
	// Progress comes from the first pass's own reading meanwhile.
	d.scan = h.StartScan(ctx, d.spanFile(false))
	return nil
}

// finishScan waits for the scan in flight, if any, and adds what it found
// to its dump.
func (d *binReader) finishScan() error {
	s := d.scan
	if s == nil {
		return nil
	}
	d.scan = nil
	err := s.Finish(d.env(d.g))
	if d.dropBehind {
		off, n := s.Span()
		source.DropCache(d.file, off, n)
	}
	return err
}

// dropsBehind reports whether the first pass drops the page cache of the
// spans it has parsed from an input of size bytes, given the memory the
// process may use (sysmem.Limit) and the memory available: when the input
// is bigger than either, the cache cannot keep it for a later read anyway,
// and pages dropped as soon as they are parsed spare the kernel the
// search for pages to reclaim (a 4 GB dump in a 1 GiB cgroup from a cold
// cache: dd's pace instead of 1.5× it, half the system time). A dump the
// cache can hold stays in it for the passes and runs after.
func dropsBehind(size, limit, available int64) bool {
	room := limit
	if available > 0 && (room <= 0 || available < room) {
		room = available
	}
	return room > 0 && size > room
}

// unscanned reports whether spans of h are pending or being parsed.
func (d *binReader) unscanned(h *heapdump.Dump) bool { return h.Pending() > 0 || d.scan != nil }

// spanFile is how the spans of the input are read; progress says whether
// the scan reports progress.
func (d *binReader) spanFile(progress bool) heapdump.SpanFile {
	sf := heapdump.SpanFile{
		File:       d.file,
		Map:        true,
		Workers:    d.workers(),
		NewAgg:     d.newObjAgg,
		TrackHeaps: d.android(),
		Objects:    d.opts.asksGraph(),
		NoCounts:   !d.opts.wants(graph.ViewHeap),
	}
	if progress {
		sf.Progress = d.opts.Progress
	}
	return sf
}
