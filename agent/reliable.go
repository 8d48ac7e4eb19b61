package agent

import (
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// ErrSpillFull: the spill queue is at its size limit; the window is lost.
var ErrSpillFull = errors.New("agent: spill queue full")

// RetryOptions tune Reliable.
type RetryOptions struct {
	Attempts   int           // tries per window before spilling; default 3
	Timeout    time.Duration // per attempt; default 10s
	MinBackoff time.Duration // default 200ms
	MaxBackoff time.Duration // default 30s
	SpillDir   string        // where undelivered windows wait; required
	SpillMax   int64         // bytes; default 256 MiB
	Logger     *slog.Logger
	Metrics    *Metrics
}

// Reliable wraps an exporter: each window is tried a few times with
// backoff and jitter, each try with its own timeout (an ErrRejected
// error is final: logged, counted, not retried); a window that still
// fails is spilled to a bounded queue on disk, and a background loop
// delivers the queue, oldest first, when the backend is back. Windows
// spilled by an earlier run are found and delivered too.
type Reliable struct {
	next Exporter
	o    RetryOptions
	log  *slog.Logger
	m    *Metrics

	mu      sync.Mutex
	queued  []string // spill files, oldest first
	size    int64
	counter int64
	kick    chan struct{}
	stop    chan struct{}
	done    chan struct{}
}

var _ Exporter = (*Reliable)(nil)

// NewReliable starts the delivery loop for next.
func NewReliable(next Exporter, o RetryOptions) (*Reliable, error) {
	if o.Attempts <= 0 {
		o.Attempts = 3
	}
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	if o.MinBackoff <= 0 {
		o.MinBackoff = 200 * time.Millisecond
	}
	if o.MaxBackoff < o.MinBackoff {
		o.MaxBackoff = max(30*time.Second, o.MinBackoff)
	}
	if o.SpillMax <= 0 {
		o.SpillMax = 256 << 20
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Metrics == nil {
		o.Metrics = &Metrics{}
	}
	if o.SpillDir == "" {
		return nil, errors.New("agent: a spill directory is required")
	}
	dir := filepath.Join(o.SpillDir, next.Name())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	o.SpillDir = dir
	r := &Reliable{next: next, o: o, log: o.Logger.With("exporter", next.Name()), m: o.Metrics,
		kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".window") {
			if fi, err := e.Info(); err == nil {
				r.queued = append(r.queued, filepath.Join(dir, e.Name()))
				r.size += fi.Size()
			}
		}
	}
	slices.Sort(r.queued) // names start with a time stamp
	if len(r.queued) > 0 {
		r.log.Info("spilled windows from an earlier run will be delivered", "count", len(r.queued))
		r.signal()
	}
	go r.loop()
	return r, nil
}

// Name is the wrapped exporter's name.
func (r *Reliable) Name() string { return r.next.Name() }

// Export tries the window now; when that fails it goes to the spill
// queue. It returns an error only when the window is lost.
func (r *Reliable) Export(ctx context.Context, w *Window) error {
	r.mu.Lock()
	backlog := len(r.queued) > 0
	r.mu.Unlock()
	if !backlog { // keep the order: behind a backlog, queue
		var err error
		for i := 0; i < r.o.Attempts; i++ {
			if i > 0 && !sleepCtx(ctx, r.backoff(i)) {
				break
			}
			if err = r.try(ctx, w); err == nil {
				r.m.Exported.Add(1)
				return nil
			}
			if errors.Is(err, ErrRejected) {
				r.m.ExportFail.Add(1)
				r.log.Error("window rejected by the backend, not retried", "jvm", w.JVM, "window", w.Seq, "err", err)
				return err
			}
			r.log.Warn("export attempt failed", "jvm", w.JVM, "window", w.Seq, "attempt", i+1, "err", err)
		}
	}
	if err := r.spill(w); err != nil {
		r.m.ExportFail.Add(1)
		r.log.Error("window lost", "jvm", w.JVM, "window", w.Seq, "err", err)
		return err
	}
	r.m.Spilled.Add(1)
	r.log.Warn("window spilled to disk", "jvm", w.JVM, "window", w.Seq)
	return nil
}

func (r *Reliable) try(ctx context.Context, w *Window) error {
	ctx, cancel := context.WithTimeout(ctx, r.o.Timeout)
	defer cancel()
	return r.next.Export(ctx, w)
}

// backoff is the wait before attempt i (≥1): exponential, capped, with
// jitter of up to half.
func (r *Reliable) backoff(i int) time.Duration {
	d := r.o.MinBackoff << min(i-1, 20)
	if d > r.o.MaxBackoff || d <= 0 {
		d = r.o.MaxBackoff
	}
	return d/2 + rand.N(d/2+1)
}

func (r *Reliable) signal() {
	select {
	case r.kick <- struct{}{}:
	default:
	}
}

func (r *Reliable) spill(w *Window) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.counter++
	name := filepath.Join(r.o.SpillDir, fmt.Sprintf("%s-%06d.window", time.Now().UTC().Format("20060102T150405.000000000Z"), r.counter%1000000))
	f, err := os.CreateTemp(r.o.SpillDir, ".tmp-*")
	if err != nil {
		return fmt.Errorf("%w: %v", ErrExport, err)
	}
	err = gob.NewEncoder(f).Encode(w)
	fi, serr := f.Stat()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = serr
	}
	if err == nil && r.size+fi.Size() > r.o.SpillMax {
		err = fmt.Errorf("%w (%d bytes queued, limit %d)", ErrSpillFull, r.size, r.o.SpillMax)
	}
	if err == nil {
		err = os.Rename(f.Name(), name)
	}
	if err != nil {
		os.Remove(f.Name())
		return err
	}
	r.queued = append(r.queued, name)
	r.size += fi.Size()
	r.signal()
	return nil
}

// loop delivers the spill queue, oldest first, backing off while the
// backend is down.
func (r *Reliable) loop() {
	defer close(r.done)
	fails := 0
	for {
		var wait <-chan time.Time
		if fails > 0 {
			wait = time.After(r.backoff(fails))
		}
		if wait != nil {
			select {
			case <-r.stop:
				return
			case <-wait:
			}
		} else {
			select {
			case <-r.stop:
				return
			case <-r.kick:
			}
		}
		if r.drain(context.Background()) {
			fails = 0
		} else {
			fails++
		}
	}
}

// drain delivers queued windows until the queue is empty (true) or one
// fails (false).
func (r *Reliable) drain(ctx context.Context) bool {
	for {
		r.mu.Lock()
		if len(r.queued) == 0 {
			r.mu.Unlock()
			return true
		}
		name := r.queued[0]
		r.mu.Unlock()
		w, size, err := readSpill(name)
		if err != nil {
			r.log.Error("unreadable spill file dropped", "file", name, "err", err)
			r.m.ExportFail.Add(1)
		} else if err := r.try(ctx, w); errors.Is(err, ErrRejected) {
			// Retrying cannot help; keeping it would block the queue.
			r.log.Error("spilled window rejected by the backend, dropped", "jvm", w.JVM, "window", w.Seq, "err", err)
			r.m.ExportFail.Add(1)
		} else if err != nil {
			r.log.Warn("backend still failing; spilled windows wait", "err", err)
			return false
		} else {
			r.m.Respooled.Add(1)
			r.m.Exported.Add(1)
		}
		os.Remove(name)
		r.mu.Lock()
		r.queued = r.queued[1:]
		r.size -= size
		r.mu.Unlock()
		if ctx.Err() != nil {
			return false
		}
	}
}

func readSpill(name string) (*Window, int64, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	var w Window
	if err := gob.NewDecoder(f).Decode(&w); err != nil {
		return nil, fi.Size(), err
	}
	return &w, fi.Size(), nil
}

// Queued is the number of spilled windows waiting.
func (r *Reliable) Queued() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.queued)
}

// halt stops the delivery loop and leaves the queue on disk.
func (r *Reliable) halt() {
	close(r.stop)
	<-r.done
}

// Close stops the delivery loop and makes one last attempt to deliver
// the queue before ctx ends; what is left stays on disk for the next
// run.
func (r *Reliable) Close(ctx context.Context) error {
	r.halt()
	r.drain(ctx)
	if n := r.Queued(); n > 0 {
		r.log.Warn("spilled windows left on disk for the next run", "count", n, "dir", r.o.SpillDir)
	}
	return nil
}

func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
