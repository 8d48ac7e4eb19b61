package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/hprof2pprof/hprof2pprof/internal/batch"
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
)

// Progress modes (--progress).
const (
	progressAuto  = "auto"  // bars on a terminal, nothing otherwise
	progressBars  = "bars"  // bars even when stderr is not a terminal
	progressPlain = "plain" // a line every --progress-interval, for logs
	progressNone  = "none"
)

// progressMinSize: a single input smaller than this finishes before bars
// help, so auto mode shows none for it.
const progressMinSize = 64 << 20

// tracker counts a job's progress: files done, failed and in flight,
// bytes read, and shows it as terminal bars (github.com/vbauerster/mpb),
// as periodic plain lines, or not at all. Status lines of the job go
// through log(), which prints them above the bars.
type tracker struct {
	mu         sync.Mutex
	stderr     io.Writer
	start      time.Time
	files      int
	totalBytes int64
	done       int // files finished, failed ones included
	failed     int
	doneBytes  int64
	flight     map[*fileTrack]bool
	// ratio of decompressed to file bytes over the compressed inputs
	// finished so far, to estimate how far a compressed input is.
	zFile, zData int64

	mode     string
	interval time.Duration
	bars     *mpb.Progress
	total    *mpb.Bar
	stop     chan struct{}
	stopped  chan struct{}
	finished bool
}

// fileTrack is one input in flight.
type fileTrack struct {
	t          *tracker
	name       string
	size       int64
	compressed bool
	read       int64  // decompressed bytes read so far
	phase      string // what the converter is doing after reading ("" while it reads)
	bar        *mpb.Bar
}

// setPhase is convert.Options.Phase: the phase shows beside the file's
// name, on its bar or in the plain lines.
func (f *fileTrack) setPhase(phase string) {
	f.t.mu.Lock()
	f.phase = phase
	f.t.mu.Unlock()
}

// label is the file's name with its phase.
func (f *fileTrack) label() string {
	f.t.mu.Lock()
	defer f.t.mu.Unlock()
	if f.phase == "" {
		return f.name
	}
	return f.name + " (" + f.phase + ")"
}

func newTracker(stderr io.Writer, mode string, interval time.Duration, ins []batch.Input) *tracker {
	t := &tracker{stderr: stderr, start: time.Now(), files: len(ins), flight: map[*fileTrack]bool{}, interval: interval}
	big := len(ins) > 1
	for _, in := range ins {
		if in.Size > 0 {
			t.totalBytes += in.Size
		}
		if in.Size < 0 || in.Size >= progressMinSize {
			big = true
		}
	}
	if mode == progressAuto {
		mode = progressNone
		if isTerminal(stderr) && big {
			mode = progressBars
		}
	}
	t.mode = mode
	switch mode {
	case progressBars:
		// Auto refresh also off a terminal (--progress=bars), or lines
		// written above the bars would wait for a render that never comes.
		t.bars = mpb.New(mpb.WithOutput(stderr), mpb.WithWidth(32), mpb.WithRefreshRate(150*time.Millisecond), mpb.WithAutoRefresh())
		// Bars are made with total 0 and given their total after, so they
		// complete only when told to (SetTotal), not when an estimate
		// reaches the end early.
		t.total = t.bars.AddBar(0,
			mpb.BarPriority(-1), // stays on top
			mpb.PrependDecorators(decor.Any(func(decor.Statistics) string { return t.filesLine() }, decor.WCSyncSpaceR)),
			mpb.AppendDecorators(
				decor.CountersKibiByte("% .1f / % .1f"),
				decor.Name("  "),
				decor.AverageSpeed(decor.SizeB1024(0), "% .1f"),
				decor.Name("  ETA "),
				decor.AverageETA(decor.ET_STYLE_GO),
			))
		t.total.SetTotal(max(t.totalBytes, 1), false)
	case progressPlain:
		t.stop, t.stopped = make(chan struct{}), make(chan struct{})
		go t.plainLoop()
	}
	return t
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// log is where the job's status lines go: above the bars while they
// show, straight to stderr otherwise.
func (t *tracker) log() io.Writer { return logWriter{t} }

type logWriter struct{ t *tracker }

func (w logWriter) Write(p []byte) (int, error) {
	w.t.mu.Lock()
	bars := w.t.bars != nil && !w.t.finished
	w.t.mu.Unlock()
	if bars {
		if n, err := w.t.bars.Write(p); err == nil {
			return n, nil
		}
	}
	w.t.mu.Lock()
	defer w.t.mu.Unlock()
	return w.t.stderr.Write(p)
}

// begin marks an input as in flight.
func (t *tracker) begin(in batch.Input, compressed bool) *fileTrack {
	f := &fileTrack{t: t, name: filepath.Base(in.Path), size: in.Size, compressed: compressed}
	t.mu.Lock()
	t.flight[f] = true
	t.mu.Unlock()
	if t.bars != nil {
		f.bar = t.bars.AddBar(0,
			mpb.BarRemoveOnComplete(),
			mpb.PrependDecorators(decor.Any(func(decor.Statistics) string { return "  " + shorten(f.label(), 60) }, decor.WCSyncSpaceR)),
			mpb.AppendDecorators(decor.Percentage(decor.WC{W: 5})))
		f.bar.SetTotal(max(in.Size, 1), false)
	}
	return f
}

// update is convert.Options.Progress: decompressed bytes read so far.
func (f *fileTrack) update(read int64) {
	t := f.t
	t.mu.Lock()
	f.read = read
	cur := f.estimate()
	all := t.bytesNow()
	t.mu.Unlock()
	if f.bar != nil {
		f.bar.SetCurrent(cur)
		t.total.SetCurrent(all)
	}
}

// estimate is how many of the file's own bytes have been read. For a
// compressed input the decoder counts decompressed bytes, so they are
// scaled by the ratio seen so far (4 before any is known) and kept short
// of the end until the input is finished.
func (f *fileTrack) estimate() int64 {
	if f.size < 0 {
		return 0
	}
	if !f.compressed {
		return min(f.read, f.size)
	}
	ratio := 4.0
	if f.t.zFile > 0 {
		ratio = float64(f.t.zData) / float64(f.t.zFile)
	}
	return min(int64(float64(f.read)/max(ratio, 1)), f.size*99/100)
}

func (t *tracker) bytesNow() int64 {
	n := t.doneBytes
	for f := range t.flight {
		n += f.estimate()
	}
	return n
}

// end marks an input finished; data is the decompressed bytes it held
// (0 when unknown).
func (f *fileTrack) end(failed bool, data int64) {
	t := f.t
	t.mu.Lock()
	delete(t.flight, f)
	t.done++
	if failed {
		t.failed++
	}
	if f.size > 0 {
		t.doneBytes += f.size
		if f.compressed && data > 0 {
			t.zFile += f.size
			t.zData += data
		}
	}
	all := t.bytesNow()
	t.mu.Unlock()
	if f.bar != nil {
		f.bar.SetTotal(-1, true)
		t.total.SetCurrent(all)
	}
}

// filesLine is "files 3/10 (1 failed)".
func (t *tracker) filesLine() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := fmt.Sprintf("files %d/%d", t.done, t.files)
	if t.failed > 0 {
		s += fmt.Sprintf(" (%d failed)", t.failed)
	}
	return s
}

// plainLine is one progress line for logs.
func (t *tracker) plainLine() string {
	files := t.filesLine()
	t.mu.Lock()
	defer t.mu.Unlock()
	done := t.bytesNow()
	el := time.Since(t.start)
	rate := float64(done) / max(el.Seconds(), 1e-3)
	line := fmt.Sprintf("progress: %s, %s / %s, %s/s", files, batch.HumanBytes(done), batch.HumanBytes(t.totalBytes), batch.HumanBytes(int64(rate)))
	if done > 0 && done < t.totalBytes {
		eta := time.Duration(float64(t.totalBytes-done) / max(rate, 1) * float64(time.Second))
		line += ", ETA " + eta.Round(time.Second).String()
	}
	var names []string
	for f := range t.flight {
		name := f.name
		if f.phase != "" {
			name += " (" + f.phase + ")"
		}
		names = append(names, name)
	}
	if len(names) > 0 {
		sort.Strings(names)
		line += ", in flight: " + strings.Join(names, " ")
	}
	return line + "\n"
}

func (t *tracker) plainLoop() {
	defer close(t.stopped)
	tick := time.NewTicker(t.interval)
	defer tick.Stop()
	for {
		select {
		case <-t.stop:
			return
		case <-tick.C:
			io.WriteString(t.log(), t.plainLine())
		}
	}
}

// finish removes the bars (or prints the last plain line) before the
// summary is printed.
func (t *tracker) finish() {
	switch {
	case t.bars != nil:
		t.total.SetTotal(-1, true)
		t.bars.Wait()
	case t.stop != nil:
		close(t.stop)
		<-t.stopped
		io.WriteString(t.stderr, t.plainLine())
	}
	t.mu.Lock()
	t.finished = true
	t.mu.Unlock()
}

func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s + strings.Repeat(" ", n-len(r))
	}
	return "…" + string(r[len(r)-n+1:])
}
