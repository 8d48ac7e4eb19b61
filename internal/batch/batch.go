package batch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hprof2pprof/hprof2pprof/convert"
	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/hprof"
)

// ErrUsage marks an error in how a job was described (a bad glob or
// shard, a format that does not fit the destination): the caller's
// mistake, not the inputs'.
var ErrUsage = errors.New("usage")

// Exit statuses a Summary reports: the job's worst outcome.
const (
	ExitOK      = 0 // every input converted fully (or up to date)
	ExitFailure = 1 // an input failed, or the output could not be closed
	ExitPartial = 3 // an input was damaged: what came before it was written
)

// A Job is one conversion of many inputs.
type Job struct {
	// Inputs are every input of the job, all shards together (Expand);
	// Shard says which of them this run converts.
	Inputs []Input
	Shard  Shard
	// Out is the output file of a single input ("-": Stdout); Dir the
	// output directory, mirroring the inputs' tree, or a folder in object
	// storage (s3://bucket/prefix): outputs are then written in a local
	// staging folder (under Convert.SpillDir) and each is uploaded there
	// whole and removed. Neither: outputs go beside the inputs.
	Out, Dir string
	// Views are the views to write (default: every view an input has).
	Views         []string
	Format        string // one of Formats
	FormatOptions FormatOptions
	Workers       int  // inputs converted at once (at least 1)
	Force         bool // convert inputs again even when their outputs are complete
	// Shape names everything that shapes an input's outputs (format,
	// views, decoding options) in a stable form. A rerun into the same
	// Dir skips an input whose done mark has the same Shape.
	Shape string
	// Convert are the decoder's options; Run sets Progress, Phase and
	// Objects for each input.
	Convert convert.Options
	Stdin   io.Reader // the input "-"
	Stdout  io.Writer // the output "-"
	Events  func(Event)
}

// Run converts the job's inputs (its shard's part) and sums up. At most
// Workers graphs are alive at once: a worker holds one input from
// decoding until its writer has taken it, so memory is bounded by
// Workers times the largest input's graph whatever the number of
// inputs. A format that writes per input is called from the workers;
// one that gathers is called by a single goroutine in input order.
//
// Run returns a nil Summary and an error when the job cannot start (the
// output directory not made, a format that does not fit; see ErrUsage).
// Otherwise the Summary holds every input's result, and the error, if
// any, is why the output could not be closed (Summary.Error says it
// too).
func Run(ctx context.Context, j Job) (*Summary, error) {
	r, err := open(j)
	if err != nil {
		return nil, err
	}
	r.emit(Event{Kind: Planned, Inputs: r.inputs})
	start := time.Now()
	if r.resuming {
		cleanStale(r.dst, j.Inputs, r.inputs)
	}
	r.run(ctx)
	r.settleViews()
	closed, cerr := r.w.Close()
	if r.remote != nil && cerr == nil {
		closed, cerr = r.remote.publish(ctx, closed)
	}
	r.stores.close()
	if r.remote != nil {
		r.remote.st.Close()
		os.RemoveAll(r.remote.local)
	}
	for _, p := range closed {
		r.emit(Event{Kind: Wrote, Index: -1, Path: p})
	}
	s := newSummary(r.results, time.Since(start))
	s.Format, s.Outputs = j.Format, closed
	if j.Shard.Count > 1 {
		s.Shard = j.Shard.String()
	}
	if cerr != nil {
		s.Error, s.Exit = message(cerr), ExitFailure
	}
	return s, cerr
}

// run is one Run under way.
type run struct {
	j        *Job
	dst      Destination
	w        Writer
	perInput bool // w's outputs are per input (PerInput)
	inputs   []Input
	results  []Result
	resuming bool // Dir with a per-input format: marks are read and written
	// rowTurns[i] is closed once input i is read: its heap table rows
	// are all written (see inTurn).
	rowTurns []chan struct{}
	views    viewsFound
	stores   stores     // the buckets of remote inputs
	remote   *remoteOut // the output folder in a bucket (Job.Remote)
}

// open prepares the destination for every input and opens the format's
// writer.
func open(j Job) (*run, error) {
	if err := checkViews(&j); err != nil {
		return nil, err
	}
	remote, staging, err := stageOutputs(&j)
	if err != nil {
		return nil, err
	}
	if j.Dir != "" {
		if err := os.MkdirAll(j.Dir, 0o755); err != nil {
			return nil, fmt.Errorf("%s: %w", j.Dir, err)
		}
	}
	dst := Destination{Out: j.Out, Dir: j.Dir, Views: j.Views, Shard: j.Shard, Stdout: j.Stdout, Rel: map[string]string{}}
	for _, in := range j.Inputs {
		dst.Inputs = append(dst.Inputs, in.Path)
		dst.Rel[in.Path] = in.Rel
	}
	w, err := OpenFormat(j.Format, dst, j.FormatOptions)
	if err != nil {
		return nil, err
	}
	perInput := PerInput(w)
	if perInput && dst.Out != "" && len(j.Inputs) > 1 {
		return nil, fmt.Errorf("%w: -o names the output of one input, but there are %d: use -d DIR", ErrUsage, len(j.Inputs))
	}
	r := &run{j: &j, dst: dst, w: w, perInput: perInput, inputs: j.Shard.Select(j.Inputs),
		resuming: dst.Dir != "" && perInput}
	if remote != "" {
		if r.remote, err = openRemoteOut(context.Background(), remote, staging); err != nil {
			os.RemoveAll(staging)
			return nil, err
		}
	}
	return r, nil
}

// emit sends an event to the job's callback, if any.
func (r *run) emit(ev Event) {
	if r.j.Events != nil {
		r.j.Events(ev)
	}
}

// A Result is the status of one input, as the summary reports it.
type Result struct {
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
	StatusOK      = "ok"
	StatusPartial = "partial"
	StatusFailed  = "failed"
	StatusSkipped = "skipped" // up to date from an earlier run
	// StatusUnreadable: a directory under a directory argument that
	// could not be listed; it is skipped, the job goes on.
	StatusUnreadable = "unreadable"
	// StatusNotInput: a file found in a directory whose content is no
	// input this tool reads (a README, a CSV); it is skipped.
	StatusNotInput = "not-input"
)

// decoded is an input read into a graph, waiting for its writer.
type decoded struct {
	g     *graph.Graph
	views []string
	start time.Time
	// lacks are the views asked for that the input lacks (viewsFound).
	lacks []string
}

// run converts every input with j.Workers workers.
func (r *run) run(ctx context.Context) {
	n := len(r.inputs)
	r.results = make([]Result, n)
	r.views = viewsFound{found: map[string]bool{}, lacks: make([][]string, n), held: make([][]string, n), why: make([]string, n)}
	if _, ok := r.w.(objectSinker); ok && !r.perInput {
		r.rowTurns = make([]chan struct{}, n)
		for i := range r.rowTurns {
			r.rowTurns[i] = make(chan struct{})
		}
	}
	workers := max(r.j.Workers, 1)
	tokens := make(chan struct{}, workers)
	next := make(chan int)
	var slots []chan *decoded // gathering formats: each input's graph, in order
	if !r.perInput {
		slots = make([]chan *decoded, n)
		for i := range slots {
			slots[i] = make(chan *decoded, 1)
		}
	}
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				d := r.read(ctx, i)
				switch {
				case slots != nil:
					slots[i] <- d // the writer loop releases the token
				default:
					if d != nil {
						r.write(ctx, i, d)
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
				r.write(ctx, i, d)
			}
			<-tokens
		}
	}()
	started := r.feed(ctx, tokens, next)
	wg.Wait()
	for i := started; i < n; i++ {
		r.results[i] = Result{Input: r.inputs[i].Path, Status: StatusFailed, Reason: "not started: interrupted", Bytes: max(r.inputs[i].Size, 0)}
		if slots != nil {
			slots[i] <- nil
			tokens <- struct{}{}
		}
	}
	<-writerDone
}

// feed hands the inputs to the workers in order, each once a token is
// free, until ctx ends; it returns how many it handed out.
func (r *run) feed(ctx context.Context, tokens chan struct{}, next chan<- int) int {
	defer close(next)
	for i := range r.inputs {
		tokens <- struct{}{}
		if ctx.Err() != nil {
			<-tokens
			return i
		}
		next <- i
	}
	return len(r.inputs)
}

// read decodes input i, or settles its result (skipped or failed) and
// returns nil.
func (r *run) read(ctx context.Context, i int) *decoded {
	in := r.inputs[i]
	res := &r.results[i]
	*res = Result{Input: in.Path, Bytes: max(in.Size, 0)}
	if r.rowTurns != nil {
		defer close(r.rowTurns[i])
	}
	if r.resuming && !r.j.Force {
		if m := r.readMark(ctx, in); m != nil {
			res.Status, res.Previous, res.Outputs, res.Reason = StatusSkipped, m.Status, m.Outputs, m.Lost
			r.emit(Event{Kind: Skipped, Index: i, Input: in, Result: res})
			return nil
		}
	}
	start := time.Now()
	r.emit(Event{Kind: Started, Index: i, Input: in, Compressed: in.Unlisted == nil && isCompressed(in.Path)})
	if in.Unlisted != nil {
		r.skipUnlisted(i)
		return nil
	}
	fail := func(err error) *decoded {
		res.Status, res.Reason, res.Seconds = StatusFailed, message(err), time.Since(start).Seconds()
		r.emit(Event{Kind: Problem, Index: i, Input: in, Err: err, Result: res})
		r.emit(Event{Kind: Finished, Index: i, Input: in, Result: res})
		return nil
	}
	if ctx.Err() != nil {
		return fail(errors.New("interrupted"))
	}
	g, err := r.decode(ctx, i)
	if err != nil && in.InDir && errors.Is(err, convert.ErrNotHPROF) && !namedAsDump(in.Path) {
		// Found beside the dumps, and no input at all: skipped.
		res.Status, res.Reason, res.Seconds = StatusNotInput, message(err), time.Since(start).Seconds()
		r.emit(Event{Kind: Finished, Index: i, Input: in, Result: res})
		return nil
	}
	if err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("interrupted: %w", err)
		}
		return fail(err)
	}
	views, lacks, err := viewsToWrite(g, r.j.Views)
	if err != nil {
		return fail(err)
	}
	return &decoded{g: g, views: views, start: start, lacks: lacks}
}

// skipUnlisted settles input i, a directory that could not be listed.
func (r *run) skipUnlisted(i int) {
	in, res := r.inputs[i], &r.results[i]
	why := in.Unlisted
	if pe := (*fs.PathError)(nil); errors.As(why, &pe) && pe.Path == in.Path {
		why = pe.Err // the path is the input's own
	}
	res.Status, res.Reason = StatusUnreadable, "cannot list it: "+message(why)
	r.emit(Event{Kind: Problem, Index: i, Input: in, Err: fmt.Errorf("directory skipped, %s", res.Reason), Result: res})
	r.emit(Event{Kind: Finished, Index: i, Input: in, Result: res})
}

// decode reads input i, reporting bytes read and phases as events; a
// writer that takes heap table rows then gets them, read in a pass of
// their own over the same input (convert.Decoded.Rows).
func (r *run) decode(ctx context.Context, i int) (*graph.Graph, error) {
	in := r.inputs[i]
	opts := r.j.Convert
	opts.Progress = func(n int64) { r.emit(Event{Kind: Read, Index: i, Input: in, Bytes: n}) }
	opts.Phase = func(p string) { r.emit(Event{Kind: Phase, Index: i, Input: in, Phase: p}) }
	var rows *graph.ObjectSink
	if os, ok := r.w.(objectSinker); ok {
		rows = os.ObjectSink(in.Path)
		if i > 0 && r.rowTurns != nil {
			rows = inTurn(rows, r.rowTurns[i-1])
		}
	}
	opts.Rows, opts.ObjectRetained = rows != nil, rows != nil && rows.Object != nil
	var d *convert.Decoded
	var err error
	switch {
	case in.Path == "-":
		d, err = convert.Decode(ctx, r.j.Stdin, "-", opts)
	case in.Remote != nil:
		d, err = r.stores.decode(ctx, in.Path, in.Size, *in.Remote, opts)
	default:
		d, err = convert.DecodeFile(ctx, in.Path, opts)
	}
	if err != nil {
		return nil, err
	}
	defer d.Close()
	if err := d.Rows(ctx, rows); err != nil {
		return nil, err
	}
	return d.Graph(), nil
}

// write hands a decoded input to the format's writer and records the
// result; with resume marks on, it marks the input done.
func (r *run) write(ctx context.Context, i int, d *decoded) {
	in := r.inputs[i]
	res := &r.results[i]
	wrote, err := r.w.Add(ctx, in.Path, d.g, d.views)
	if r.remote != nil && err == nil {
		wrote, err = r.remote.publish(ctx, wrote)
	}
	res.Outputs = wrote
	for _, p := range wrote {
		r.emit(Event{Kind: Wrote, Index: i, Input: in, Path: p})
	}
	defer func() { res.Seconds = time.Since(d.start).Seconds() }()
	if err != nil && readOnly(err) && r.dst.Dir == "" && r.dst.Out == "" {
		err = fmt.Errorf("%w: the outputs go beside the input; write them elsewhere with -d DIR", err)
	}
	if err != nil {
		res.Status, res.Reason = StatusFailed, message(err)
		r.emit(Event{Kind: Problem, Index: i, Input: in, Err: err, Result: res})
		r.emit(Event{Kind: Finished, Index: i, Input: in, Result: res, Bytes: d.g.Source.Bytes})
		return
	}
	r.views.note(i, d.g, d.views, d.lacks)
	res.Status = StatusOK
	if d.g.Damage != nil {
		res.Status, res.Reason = StatusPartial, Lost(d.g.Lost)
		r.emit(Event{Kind: Problem, Index: i, Input: in, Err: errors.New("partial, " + res.Reason), Result: res})
	}
	r.emit(Event{Kind: Finished, Index: i, Input: in, Result: res, Bytes: d.g.Source.Bytes})
	if r.resuming && in.Path != "-" {
		m := &doneMark{Input: in.Path, Size: in.Size, ModTime: in.ModTime, Options: r.j.Shape, Status: res.Status, Lost: res.Reason, Outputs: wrote}
		if err := r.writeMark(ctx, in, m); err != nil {
			r.emit(Event{Kind: Problem, Index: i, Input: in, Err: fmt.Errorf("recording the outputs as complete: %w", err)})
		}
	}
}

// Lost says what a damaged input lost (graph.Graph.Lost) as lost.
func Lost(lost string) string { return "lost: " + lost }

// Damage is why decoding stopped (graph.Graph.Damage) for a person: a
// format error whose message names its own offset is not given a second.
func Damage(err error) string {
	var fe *hprof.FormatError
	if errors.As(err, &fe) && err == error(fe) && strings.Contains(fe.Msg, " at byte ") {
		if fe.Record == "" {
			return fe.Msg
		}
		return fe.Record + ": " + fe.Msg
	}
	return Message(err)
}

// joinReasons joins the reasons an input is partial.
func joinReasons(a, b string) string {
	if a == "" || b == "" {
		return a + b
	}
	return a + "; " + b
}

// SelectViews returns the views of g to write: those asked for that it
// has, or all of its views when none is asked for.
func SelectViews(g *graph.Graph, asked []string) []string {
	var out []string
	for _, v := range g.Views {
		if len(asked) == 0 || slices.Contains(asked, v.Name) {
			out = append(out, v.Name)
		}
	}
	return out
}

// ViewNames names the views of g, in order.
func ViewNames(g *graph.Graph) []string {
	var n []string
	for _, v := range g.Views {
		n = append(n, v.Name)
	}
	return n
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

// message is an error as a person reads it (Message).
func message(err error) string { return Message(err) }

// sentinelPrefixes begin the package sentinel errors ("hprof: truncated",
// "convert: memory limit reached"); they are for programs.
var sentinelPrefixes = []string{"hprof: ", "convert: "}

// Message is err's text for a person: the sentinel prefixes ("hprof: ",
// "convert: ") are removed where one begins the text or a part of it
// (after ": "), and nowhere else, so a path such as
// "/tmp/java_pid123.hprof: permission denied" is kept whole.
func Message(err error) string {
	msg := err.Error()
	var b strings.Builder
	for msg != "" {
		for _, p := range sentinelPrefixes {
			for strings.HasPrefix(msg, p) {
				msg = msg[len(p):]
			}
		}
		i := strings.Index(msg, ": ")
		if i < 0 {
			b.WriteString(msg)
			break
		}
		b.WriteString(msg[:i+2])
		msg = msg[i+2:]
	}
	return b.String()
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

// readMark returns input in's done mark when it is current (see
// doneMark.current), from the bucket for a remote output folder.
func (r *run) readMark(ctx context.Context, in Input) *doneMark {
	if r.remote == nil {
		if m := readMark(markPath(r.dst, in)); m != nil && m.current(in, r.j.Shape) {
			return m
		}
		return nil
	}
	m := r.remote.readMark(ctx, markPath(r.dst, in))
	if m == nil || !m.sameInput(in, r.j.Shape) || !r.remote.exists(ctx, m.Outputs) {
		return nil
	}
	return m
}

// writeMark records input in's outputs as complete.
func (r *run) writeMark(ctx context.Context, in Input, m *doneMark) error {
	if r.remote != nil {
		return r.remote.writeMark(ctx, markPath(r.dst, in), m)
	}
	return writeMark(markPath(r.dst, in), m)
}
