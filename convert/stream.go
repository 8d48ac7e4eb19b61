package convert

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/hprof"
	"github.com/hprof2pprof/hprof2pprof/convert/internal/frames"
)

// ErrLimit: a live stream went past one of its StreamOptions limits.
var ErrLimit = errors.New("convert: stream limit exceeded")

// Default limits of a Stream.
const (
	DefaultMaxRecord = 16 << 20
	DefaultMaxState  = 64 << 20
)

// StreamOptions tune a Stream. The zero value is ready to use.
type StreamOptions struct {
	Options
	// MaxRecord is the largest record body the stream accepts (heap dump
	// records are skipped without being held, whatever their size);
	// 0 means DefaultMaxRecord.
	MaxRecord uint32
	// MaxState bounds what the stream keeps between windows — strings,
	// classes, frames, traces, threads, allocation sites — in body
	// bytes; 0 means DefaultMaxState.
	MaxState int64
}

// Window is the profile of one stretch of a live stream: the CPU samples
// of one CPU SAMPLES answer, the allocation growth between two ALLOC
// SITES answers with the live values of the later one, and the threads
// alive at its end.
type Window struct {
	Graph *graph.Graph
	// Start and End are the agent's own clock: the header time plus the
	// record TIME fields of the previous window's last answer and of this
	// window's last answer.
	Start, End time.Time
	Seq        int  // 1-based
	CPU, Alloc bool // which answers it holds
}

// Stream decodes a live binary HPROF stream (the hprof agent's net=
// output with format=b) one record at a time, with the same record rules
// as a file, and cuts it into windows.
//
// A window is complete when every kind of answer the agent's CONTROL
// SETTINGS announce (CPU samples, allocation sites) has arrived since the
// previous one, or when a second answer of one kind arrives first; Flush
// cuts whatever is pending. Next must be called from one goroutine;
// Flush may be called from another at the same time.
type Stream struct {
	r    *hprof.Reader
	opts StreamOptions

	mu          sync.Mutex
	d           *binReader   // records are absorbed as a file's are
	meta        *graph.Graph // record counts and soft failures between windows
	state       int64
	cpuPending  bool
	allocPend   bool
	pendingEnd  uint32            // TIME of the latest answer absorbed
	lastTime    uint32            // TIME of the latest record
	lastEnd     uint32            // End of the previous window
	sites       *hprof.SitesDelta // allocation growth between answers
	seq         int
	heapSkipped int64
	offset      int64 // bytes absorbed, for windows cut by Flush
}

// NewStream reads the header from src and prepares to read records.
func NewStream(src io.Reader, opts StreamOptions) (*Stream, error) {
	if opts.MaxRecord == 0 {
		opts.MaxRecord = DefaultMaxRecord
	}
	if opts.MaxState <= 0 {
		opts.MaxState = DefaultMaxState
	}
	in, err := hprof.NewFile(src, hprof.Again{}) // a live stream is read once
	if err != nil {
		return nil, err
	}
	r := in.Records()
	meta := graph.New()
	meta.Source = graph.Source{
		Format:  "hprof-binary",
		Version: r.Header.Version,
		IDSize:  r.Header.IDSize,
		Time:    r.Header.Time,
		Writer:  "JDK hprof agent (format=b, net=)",
		Records: map[string]int64{},
	}
	d := newBinReader(meta, r, opts.Options)
	return &Stream{r: r, opts: opts, d: d, meta: meta, sites: hprof.NewSitesDelta()}, nil
}

// Header is the stream's header.
func (s *Stream) Header() hprof.Header { return s.r.Header }

// Offset is the number of stream bytes absorbed so far.
func (s *Stream) Offset() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.offset
}

// Control returns the CONTROL SETTINGS flags (bit 0 heap, bit 1 CPU
// sampling); ok is false until the record arrived.
func (s *Stream) Control() (flags uint32, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.d.control == nil {
		return 0, false
	}
	return s.d.control.Flags, true
}

// Next reads and absorbs one record. It returns a window when that
// record completed one (or had to cut the pending one first), io.EOF at
// a clean end of the stream, and the reader's errors (hprof.ErrTruncated,
// hprof.ErrCorrupt, …) or ErrLimit otherwise; a window may come with an
// error. It is one step of hprof.Walk's policy: an unknown record is
// counted and skipped, damage ends the stream.
func (s *Stream) Next() (*Window, error) {
	rec, err := s.r.Next()
	if err != nil {
		return nil, err
	}
	switch rec.Tag {
	case hprof.TagHeapDump, hprof.TagHeapDumpSegment, hprof.TagHeapDumpEnd:
		return nil, s.skipHeap(rec)
	}
	if rec.Length > s.opts.MaxRecord {
		return nil, fmt.Errorf("%w: %s has a %d-byte body (limit %d)", ErrLimit, rec.Name(), rec.Length, s.opts.MaxRecord)
	}
	body, err := s.r.Body()
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.offset = s.r.Offset()
	s.meta.Source.Records[rec.Tag.String()]++
	s.lastTime = rec.Time
	if !rec.Tag.Known() {
		s.meta.SoftFailDetail(graph.SoftUnknownRecordTag, fmt.Sprintf("0x%02X", uint8(rec.Tag)))
		return nil, nil
	}
	var w *Window
	if (rec.Tag == hprof.TagCPUSamples && s.cpuPending) || (rec.Tag == hprof.TagAllocSites && s.allocPend) {
		w = s.cut(s.pendingEnd)
	}
	if err := s.d.record(rec, body); err != nil {
		return w, err
	}
	if err := s.absorbed(rec, body); err != nil {
		return w, err
	}
	if w == nil && s.complete() {
		w = s.cut(s.pendingEnd)
	}
	return w, nil
}

// absorbed notes what record rec (with body) changed: an answer is
// pending, or the state kept grew. s.mu is held.
func (s *Stream) absorbed(rec hprof.Record, body []byte) error {
	switch rec.Tag {
	case hprof.TagCPUSamples:
		s.cpuPending, s.pendingEnd = true, rec.Time
	case hprof.TagAllocSites:
		s.allocPend, s.pendingEnd = true, rec.Time
	case hprof.TagUTF8, hprof.TagLoadClass, hprof.TagFrame, hprof.TagTrace, hprof.TagStartThread, hprof.TagEndThread:
		// Kept until the connection ends: count it against the bound.
		s.state += int64(len(body)) + 64
		if s.state > s.opts.MaxState {
			return fmt.Errorf("%w: %d bytes of strings, classes, frames and traces kept (limit %d) at byte %d",
				ErrLimit, s.state, s.opts.MaxState, s.offset)
		}
	}
	return nil
}

// skipHeap reads past a heap dump record: heap dumps are not windowed,
// and are not held, so their size costs no memory.
func (s *Stream) skipHeap(rec hprof.Record) error {
	s.mu.Lock()
	s.meta.Source.Records[rec.Tag.String()]++
	s.heapSkipped += int64(rec.Length)
	s.mu.Unlock()
	err := s.r.Skip()
	s.mu.Lock()
	s.offset = s.r.Offset()
	s.mu.Unlock()
	return err
}

// complete reports whether every answer the agent will give (by its
// CONTROL SETTINGS) is pending.
func (s *Stream) complete() bool {
	if !s.cpuPending && !s.allocPend {
		return false
	}
	if s.d.control == nil || s.d.control.Flags&3 == 0 {
		return true
	}
	f := s.d.control.Flags
	return (f&2 == 0 || s.cpuPending) && (f&1 == 0 || s.allocPend)
}

// Pending reports whether an answer is waiting to be cut into a window.
func (s *Stream) Pending() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cpuPending || s.allocPend
}

// Flush cuts whatever answers are pending into a window, nil when none
// is.
func (s *Stream) Flush() *Window {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.cpuPending && !s.allocPend {
		return nil
	}
	return s.cut(s.pendingEnd)
}

// cut builds the pending answers into a window ending at TIME end and
// resets them. s.mu is held.
func (s *Stream) cut(end uint32) *Window {
	d := s.d
	g := graph.New()
	g.Source = s.meta.Source
	g.Source.Records = maps.Clone(s.meta.Source.Records)
	g.Source.Notes = slices.Clone(s.meta.Source.Notes)
	g.Source.Bytes = s.offset
	g.Soft, s.meta.Soft = s.meta.Soft, graph.SoftCounts{}
	if s.heapSkipped > 0 {
		g.Source.Notes = append(g.Source.Notes, fmt.Sprintf("%d bytes of heap dump records were skipped: heap dumps are not converted live", s.heapSkipped))
	}
	if end < s.lastEnd {
		end = s.lastEnd
	}
	hdr := s.r.Header.Time
	w := &Window{Graph: g, Start: hdr.Add(usec(s.lastEnd)), End: hdr.Add(usec(end)), CPU: s.cpuPending, Alloc: s.allocPend}

	// The views are built into the window's graph by the functions a
	// file's views are built by, with the window's own stacks; records
	// go on to meta.
	st := d.names.Stacks(g)
	if s.cpuPending {
		buildCPU(g, st, d.binData, s.opts.interval())
		d.cpu = cpuSums{byTrace: map[uint32]int64{}, time: d.cpu.time}
	}
	if s.allocPend && d.sites != nil {
		s.buildAllocWindow(g, st)
	}
	d.sites = nil
	s.buildThreadsWindow(g, st)
	if !s.opts.RawNames {
		g.NormalizeClasses()
	}
	g.Canonicalize()

	for _, v := range g.Views {
		v.Time, v.Duration = w.Start, w.End.Sub(w.Start)
	}
	s.cpuPending, s.allocPend = false, false
	s.lastEnd = end
	s.seq++
	w.Seq = s.seq
	return w
}

// buildAllocWindow builds the alloc view of the pending ALLOC SITES
// answer: allocations as growth since the previous answer, live values
// as they are now (hprof.SitesDelta). s.mu is held.
func (s *Stream) buildAllocWindow(g *graph.Graph, st *frames.Stacks) {
	d := s.d
	cur := d.sites
	delta, kept, reset := s.sites.Next(cur)
	s.state += kept
	for range reset {
		g.SoftFail(graph.SoftSitesCounterBack)
	}
	buildAlloc(g, st, d.sym, &delta, d.sitesTime)
	if v := g.View(graph.ViewAlloc); v != nil {
		v.Comments = append(v.Comments,
			fmt.Sprintf("window: alloc_objects/alloc_space are the growth since the previous ALLOC SITES answer (%d sites in this answer, %d with a change or live objects); inuse_objects/inuse_space are the live values at this answer", len(cur.Sites), len(delta.Sites)))
	}
}

// buildThreadsWindow builds the threads view of the threads alive now.
// The agent writes a thread's STACK TRACE only at its next dump, so a
// thread may name a trace not sent yet: that is normal in a live stream
// and becomes a note rather than a soft failure. s.mu is held.
func (s *Stream) buildThreadsWindow(g *graph.Graph, st *frames.Stacks) {
	st.Pending(true)
	buildThreads(g, st, s.d.binData)
	pending := st.Pending(false)
	if pending > 0 {
		g.Source.Notes = append(g.Source.Notes, fmt.Sprintf("%d thread stacks not sent by the agent yet (it writes them at its next dump)", pending))
	}
}
