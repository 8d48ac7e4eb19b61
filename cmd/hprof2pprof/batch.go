package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
)

// job is one run of convert over its inputs (this shard's part of them).
type job struct {
	e        *env // stderr is the tracker's log
	df       *decodeFlags
	dst      destination
	perInput bool // the writer's outputs are per input (perInputWriter)
	w        formatWriter
	workers  int
	force    bool
	options  string // the flags that shape outputs, for resume marks
	inputs   []input
	tracker  *tracker
	results  []fileResult
	resuming bool // -d with a per-input format: marks are read and written
	// rowTurns[i] is closed once input i is read: its heap table rows
	// are all written (see inTurn).
	rowTurns []chan struct{}
}

// fileResult is the status of one input, as the summary reports it.
type fileResult struct {
	Input  string `json:"input"`
	Status string `json:"status"` // ok, partial, failed, skipped
	// Previous is the status recorded by the run that wrote a skipped
	// input's outputs (ok or partial).
	Previous string   `json:"previous,omitempty"`
	Reason   string   `json:"reason,omitempty"`
	Outputs  []string `json:"outputs,omitempty"`
	Bytes    int64    `json:"bytes"`
	Seconds  float64  `json:"seconds"`
}

// Statuses of an input.
const (
	statusOK      = "ok"
	statusPartial = "partial"
	statusFailed  = "failed"
	statusSkipped = "skipped"
)

// decoded is an input read into a graph, waiting for its writer.
type decoded struct {
	g     *graph.Graph
	views []string
	track *fileTrack
	start time.Time
}

// run converts every input with j.workers workers. At most that many
// graphs are alive at once: a worker holds one input from decoding until
// its writer has taken it, so memory is bounded by -j times the largest
// input's graph whatever the number of inputs. A format that writes per
// input is called from the workers; one that gathers is called by a
// single goroutine in input order.
func (j *job) run(ctx context.Context) {
	n := len(j.inputs)
	j.results = make([]fileResult, n)
	if _, ok := j.w.(objectSinker); ok {
		j.rowTurns = make([]chan struct{}, n)
		for i := range j.rowTurns {
			j.rowTurns[i] = make(chan struct{})
		}
	}
	tokens := make(chan struct{}, j.workers)
	next := make(chan int)
	var slots []chan *decoded // gathering formats: each input's graph, in order
	if !j.perInput {
		slots = make([]chan *decoded, n)
		for i := range slots {
			slots[i] = make(chan *decoded, 1)
		}
	}
	var wg sync.WaitGroup
	for range j.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				d := j.read(ctx, i)
				switch {
				case slots != nil:
					slots[i] <- d // the writer loop releases the token
				default:
					if d != nil {
						j.write(ctx, i, d)
					}
					<-tokens
				}
			}
		}()
	}
	writerDone := make(chan struct{})
	go func() {
		defer close(writerDone)
		for i := range slots {
			if d := <-slots[i]; d != nil {
				j.write(ctx, i, d)
			}
			<-tokens
		}
	}()
	started := 0
	for i := range n {
		tokens <- struct{}{}
		if ctx.Err() != nil {
			<-tokens
			break
		}
		next <- i
		started++
	}
	close(next)
	wg.Wait()
	for i := started; i < n; i++ {
		j.results[i] = fileResult{Input: j.inputs[i].Path, Status: statusFailed, Reason: "not started: interrupted", Bytes: max(j.inputs[i].Size, 0)}
		if slots != nil {
			slots[i] <- nil
			tokens <- struct{}{}
		}
	}
	<-writerDone
}

// read decodes input i, or settles its result (skipped or failed) and
// returns nil.
func (j *job) read(ctx context.Context, i int) *decoded {
	in := j.inputs[i]
	res := &j.results[i]
	*res = fileResult{Input: in.Path, Bytes: max(in.Size, 0)}
	if j.rowTurns != nil {
		defer close(j.rowTurns[i])
	}
	if j.resuming && !j.force {
		if m := readMark(markPath(j.dst, in)); m != nil && m.current(in, j.options) {
			res.Status, res.Previous, res.Outputs, res.Reason = statusSkipped, m.Status, m.Outputs, m.Lost
			j.tracker.begin(in, false).end(false, 0)
			j.say("up to date: %s\n", in.Path)
			return nil
		}
	}
	start := time.Now()
	t := j.tracker.begin(in, isCompressed(in.Path))
	fail := func(err error) *decoded {
		res.Status, res.Reason, res.Seconds = statusFailed, message(err), time.Since(start).Seconds()
		errorf(j.e, in.Path, err)
		t.end(true, 0)
		return nil
	}
	if ctx.Err() != nil {
		return fail(errors.New("interrupted"))
	}
	var objects *graph.ObjectSink
	if os, ok := j.w.(objectSinker); ok {
		objects = os.ObjectSink(in.Path)
		if i > 0 {
			objects = inTurn(objects, j.rowTurns[i-1])
		}
	}
	g, err := decodeWith(ctx, j.e, in.Path, j.df, t, objects)
	if err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("interrupted: %w", err)
		}
		return fail(err)
	}
	views := selectViews(g, j.df.views)
	if len(views) == 0 && g.Damage != nil {
		// Damaged before any view was complete: nothing to write, but
		// the input was read as far as it goes.
		res.Status, res.Reason, res.Seconds = statusPartial, "nothing complete to write; "+g.Lost, time.Since(start).Seconds()
		errorf(j.e, in.Path, fmt.Errorf("partial: nothing complete to write; %s", g.Lost))
		t.end(false, g.Source.Bytes)
		return nil
	}
	if len(views) == 0 && len(j.df.views) == 0 {
		return fail(fmt.Errorf("no record in this input makes a view: nothing to write (hprof2pprof info lists its records)"))
	}
	if len(views) == 0 {
		return fail(fmt.Errorf("no %s view in this input (it has: %s)", strings.Join(j.df.views, ", "), strings.Join(viewNames(g), ", ")))
	}
	return &decoded{g: g, views: views, track: t, start: start}
}

// write hands a decoded input to the format's writer and records the
// result; with resume marks on, it marks the input done.
func (j *job) write(ctx context.Context, i int, d *decoded) {
	in := j.inputs[i]
	res := &j.results[i]
	wrote, err := j.w.Add(ctx, in.Path, d.g, d.views)
	res.Outputs = wrote
	for _, p := range wrote {
		j.say("wrote %s\n", p)
	}
	defer func() { res.Seconds = time.Since(d.start).Seconds() }()
	if err != nil {
		res.Status, res.Reason = statusFailed, message(err)
		errorf(j.e, in.Path, err)
		d.track.end(true, d.g.Source.Bytes)
		return
	}
	res.Status = statusOK
	if d.g.Damage != nil {
		res.Status, res.Reason = statusPartial, d.g.Lost
		errorf(j.e, in.Path, fmt.Errorf("partial: %s", d.g.Lost))
	}
	d.track.end(false, d.g.Source.Bytes)
	if j.resuming && in.Path != "-" {
		m := &doneMark{Input: in.Path, Size: in.Size, ModTime: in.ModTime, Options: j.options, Status: res.Status, Lost: d.g.Lost, Outputs: wrote}
		if err := writeMark(markPath(j.dst, in), m); err != nil {
			errorf(j.e, in.Path, fmt.Errorf("recording the outputs as complete: %w", err))
		}
	}
}

// say prints a status line unless -q.
func (j *job) say(format string, args ...any) {
	if !j.df.quiet {
		fmt.Fprintf(j.e.stderr, format, args...)
	}
}

// isCompressed peeks at the input's magic bytes (gzip, bzip2).
func isCompressed(path string) bool {
	if path == "-" {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var b [3]byte
	n, _ := io.ReadFull(f, b[:])
	return n >= 2 && b[0] == 0x1f && b[1] == 0x8b || n == 3 && string(b[:]) == "BZh"
}

// message is an error as errorf prints it, without the file name.
func message(err error) string {
	msg := err.Error()
	for _, p := range []string{"hprof: ", "convert: "} {
		msg = strings.ReplaceAll(msg, p, "")
	}
	return msg
}

// inTurn makes sink wait, before its first row, until the input before
// it is read: inputs are decoded side by side, but their heap table rows
// go to the tables in input order, so the same inputs give the same
// files. Inputs are started in order, so the one waited for is already
// being read and never waits for this one.
func inTurn(sink *graph.ObjectSink, prev <-chan struct{}) *graph.ObjectSink {
	if sink == nil {
		return nil
	}
	var once sync.Once
	wait := func() { once.Do(func() { <-prev }) }
	w := &graph.ObjectSink{
		Object: afterWait(wait, sink.Object),
		Ref:    afterWait(wait, sink.Ref),
		String: afterWait(wait, sink.String),
		Root:   afterWait(wait, sink.Root),
	}
	if f := sink.Done; f != nil {
		w.Done = func() error { wait(); return f() }
	}
	return w
}

// afterWait is f (nil stays nil), called once wait returns.
func afterWait[T any](wait func(), f func(T) error) func(T) error {
	if f == nil {
		return nil
	}
	return func(x T) error { wait(); return f(x) }
}
