package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
)

// flakyExporter fails while down is set, like a backend outage.
type flakyExporter struct {
	mu     sync.Mutex
	down   bool
	got    []int
	reject int // this window is refused for good (ErrRejected)
	tries  map[int]int
}

func (f *flakyExporter) Name() string { return "flaky" }

func (f *flakyExporter) Export(ctx context.Context, w *Window) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.tries == nil {
		f.tries = map[int]int{}
	}
	f.tries[w.Seq]++
	if f.down {
		return errors.New("connection refused")
	}
	if w.Seq == f.reject {
		return fmt.Errorf("%w: bad request", ErrRejected)
	}
	if w.Graph == nil || w.Graph.View(graph.ViewCPU) == nil {
		return errors.New("window arrived without its graph")
	}
	f.got = append(f.got, w.Seq)
	return nil
}

func (f *flakyExporter) set(down bool) {
	f.mu.Lock()
	f.down = down
	f.mu.Unlock()
}

func (f *flakyExporter) delivered() []int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.got)
}

func testWindow(seq int) *Window {
	g := graph.New()
	v := graph.NewCPUView(graph.DefaultCPUInterval)
	st := g.Stack([]graph.FrameID{g.Frame(graph.Frame{Class: "Work", Method: "run"})})
	graph.NewAggregator(v).Add(st, []graph.Label{{Key: graph.LabelThread, Str: "main"}}, int64(seq), int64(seq)*v.Period)
	g.AddView(v)
	return &Window{JVM: "jvm", Seq: seq, Start: time.Unix(int64(seq), 0), End: time.Unix(int64(seq+1), 0), Graph: g}
}

// A backend outage: windows spill to disk and are all delivered, in
// order, when the backend is back.
func TestReliableOutage(t *testing.T) {
	f := &flakyExporter{down: true}
	m := &Metrics{}
	r, err := NewReliable(f, RetryOptions{SpillDir: t.TempDir(), Attempts: 2, MinBackoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond, Metrics: m})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i := 1; i <= 5; i++ {
		if err := r.Export(ctx, testWindow(i)); err != nil {
			t.Fatal(err)
		}
	}
	if m.Spilled.Load() != 5 || len(f.delivered()) != 0 {
		t.Fatalf("spilled %d, delivered %v during the outage", m.Spilled.Load(), f.delivered())
	}
	f.set(false)
	r.Export(ctx, testWindow(6)) // behind the backlog: queued, not sent first
	for i := 0; i < 2000 && r.Queued() > 0; i++ {
		time.Sleep(5 * time.Millisecond)
	}
	r.Close(ctx)
	if got := f.delivered(); !slices.Equal(got, []int{1, 2, 3, 4, 5, 6}) {
		t.Errorf("delivered %v, want 1..6 in order", got)
	}
	if m.ExportFail.Load() != 0 || m.Exported.Load() != 6 {
		t.Errorf("metrics %+v", m.Snapshot())
	}
}

// Windows still spilled at shutdown wait on disk and are delivered by
// the next run.
func TestReliableSpillSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	f := &flakyExporter{down: true}
	r, err := NewReliable(f, RetryOptions{SpillDir: dir, Attempts: 1, MinBackoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 3; i++ {
		r.Export(context.Background(), testWindow(i))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	r.Close(ctx)
	cancel()
	if r.Queued() != 3 {
		t.Fatalf("%d windows left on disk, want 3", r.Queued())
	}
	f.set(false)
	r2, err := NewReliable(f, RetryOptions{SpillDir: dir, MinBackoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2000 && r2.Queued() > 0; i++ {
		time.Sleep(5 * time.Millisecond)
	}
	r2.Close(context.Background())
	if got := f.delivered(); !slices.Equal(got, []int{1, 2, 3}) {
		t.Errorf("delivered %v after restart, want [1 2 3]", got)
	}
}

// The spill queue is bounded: past its size a window is lost, counted
// and reported.
func TestReliableSpillBound(t *testing.T) {
	m := &Metrics{}
	r, err := NewReliable(&flakyExporter{down: true}, RetryOptions{SpillDir: t.TempDir(), Attempts: 1, SpillMax: 1, Metrics: m})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close(context.Background())
	if err := r.Export(context.Background(), testWindow(1)); !errors.Is(err, ErrSpillFull) {
		t.Errorf("error %v, want ErrSpillFull", err)
	}
	if m.ExportFail.Load() != 1 {
		t.Errorf("export failures %d, want 1", m.ExportFail.Load())
	}
}

// A window the backend refuses for good is neither retried nor spilled,
// and a refused spilled window does not block the ones behind it.
func TestReliableRejected(t *testing.T) {
	f := &flakyExporter{reject: 2}
	m := &Metrics{}
	r, err := NewReliable(f, RetryOptions{SpillDir: t.TempDir(), Attempts: 3, MinBackoff: time.Millisecond, Metrics: m})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := r.Export(ctx, testWindow(1)); err != nil {
		t.Fatal(err)
	}
	if err := r.Export(ctx, testWindow(2)); !errors.Is(err, ErrRejected) {
		t.Errorf("rejected window: error %v, want ErrRejected", err)
	}
	f.set(true) // an outage: 3 and 4 spill behind ...
	r.Export(ctx, testWindow(3))
	f.mu.Lock()
	f.reject = 3 // ... and 3 turns out to be refused when delivered
	f.mu.Unlock()
	r.Export(ctx, testWindow(4))
	f.set(false)
	for i := 0; i < 2000 && r.Queued() > 0; i++ {
		time.Sleep(5 * time.Millisecond)
	}
	r.Close(ctx)
	if got := f.delivered(); !slices.Equal(got, []int{1, 4}) {
		t.Errorf("delivered %v, want [1 4]", got)
	}
	f.mu.Lock()
	tries := f.tries[2]
	f.mu.Unlock()
	if tries != 1 {
		t.Errorf("rejected window tried %d times, want 1", tries)
	}
	if s := m.Snapshot(); s.ExportFail != 2 || s.Exported != 2 || s.Spilled != 2 {
		t.Errorf("metrics %+v, want 2 failed, 2 exported, 2 spilled", s)
	}
}
