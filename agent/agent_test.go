package agent

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/pprof/profile"
)

// syncBuffer is a log sink safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

type harness struct {
	once   sync.Once
	t      *testing.T
	srv    *Server
	out    string
	logs   *syncBuffer
	cancel context.CancelFunc
	done   chan error
}

// start runs a server on a loopback port writing pprof files, with the
// given extra exporters; cfg fields left zero get test-sized defaults.
func start(t *testing.T, cfg Config, extra ...Exporter) *harness {
	t.Helper()
	h := &harness{t: t, out: t.TempDir(), logs: &syncBuffer{}}
	log := slog.New(slog.NewTextHandler(h.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	cfg.Addr = "127.0.0.1:0"
	cfg.Logger = log
	if cfg.Interval == 0 {
		cfg.Interval = 20 * time.Millisecond
	}
	if cfg.Grace == 0 {
		cfg.Grace = 2 * time.Second
	}
	m := &Metrics{}
	cfg.Metrics = m
	rel, err := NewReliable(&PprofDir{Dir: h.out}, RetryOptions{SpillDir: t.TempDir(), Logger: log, Metrics: m, MinBackoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Exporters = append([]Exporter{rel}, extra...)
	h.srv, err = NewServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.srv.Listen(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel, h.done = cancel, make(chan error, 1)
	go func() {
		err := h.srv.Serve(ctx)
		rel.Close(context.Background())
		h.done <- err
	}()
	t.Cleanup(func() {
		h.stop()
		if t.Failed() {
			t.Logf("server log:\n%s", h.logs.String())
		}
	})
	return h
}

func (h *harness) addr() string { return h.srv.Addr().String() }

// stop shuts the server down and waits for it (bounded).
func (h *harness) stop() {
	h.once.Do(func() {
		h.cancel()
		select {
		case err := <-h.done:
			if err != nil {
				h.t.Errorf("Serve: %v", err)
			}
		case <-time.After(30 * time.Second):
			h.t.Fatal("server did not stop within 30s")
		}
	})
}

// windows reads every exported pprof file: per JVM directory, per view,
// the profiles in window order.
func (h *harness) windows() map[string]map[string][]*profile.Profile {
	h.t.Helper()
	res := map[string]map[string][]*profile.Profile{}
	files, _ := filepath.Glob(filepath.Join(h.out, "*", "*.pb.gz"))
	slices.Sort(files) // the start stamp sorts by time
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			h.t.Fatal(err)
		}
		p, err := profile.ParseData(b)
		if err != nil {
			h.t.Fatalf("%s: %v", f, err)
		}
		if err := p.CheckValid(); err != nil {
			h.t.Fatalf("%s: %v", f, err)
		}
		jvm := filepath.Base(filepath.Dir(f))
		view, _, _ := strings.Cut(filepath.Base(f), "-")
		if res[jvm] == nil {
			res[jvm] = map[string][]*profile.Profile{}
		}
		res[jvm][view] = append(res[jvm][view], p)
	}
	return res
}

func sum(p *profile.Profile, typ string) int64 {
	i := slices.IndexFunc(p.SampleType, func(v *profile.ValueType) bool { return v.Type == typ })
	var n int64
	for _, s := range p.Sample {
		n += s.Value[i]
	}
	return n
}

// cpuTotals are the recorded CPU answers' own trace sums: 460 (the
// record's total field says 454; the agent counted while writing), 349
// and 968 (corpus README and convert's stream tests).
var cpuTotals = []int64{460, 349, 968}

func checkSession(t *testing.T, views map[string][]*profile.Profile) {
	t.Helper()
	cpu := views["cpu"]
	if len(cpu) != len(cpuTotals) {
		t.Fatalf("%d cpu windows, want %d", len(cpu), len(cpuTotals))
	}
	for i, p := range cpu {
		if got := sum(p, "samples"); got != cpuTotals[i] {
			t.Errorf("cpu window %d: %d samples, want %d", i+1, got, cpuTotals[i])
		}
	}
	if n := len(views["alloc"]); n != 2 {
		t.Errorf("%d alloc windows, want 2 (the 1698-site answer and the exit dump)", n)
	}
	// Under load an ALLOC SITES answer can miss its tick and make a
	// window of its own; every window has a threads view.
	// Under load an ALLOC SITES answer (the 1698 sites, or the exit
	// dump's) can miss its tick and make a window of its own: 3 to 5
	// windows, each with a threads view.
	if n := len(views["threads"]); n < 3 || n > 5 {
		t.Errorf("%d threads windows, want 3 to 5", n)
	}
}

func TestReplayOneJVM(t *testing.T) {
	h := start(t, Config{Labels: map[string]string{"env": "test"}, StatsInterval: 5 * time.Millisecond})
	jvm := newCommandsJVM(t)
	if err := jvm.run(h.addr()); err != nil {
		t.Fatal(err)
	}
	h.stop()
	checkCommands(t, jvm.received())
	ws := h.windows()
	if len(ws) != 1 {
		t.Fatalf("%d JVM directories, want 1", len(ws))
	}
	for _, views := range ws {
		checkSession(t, views)
		p := views["cpu"][0]
		if !slices.ContainsFunc(p.Comments, func(c string) bool { return strings.Contains(c, "env=test") && strings.Contains(c, "window 1") }) {
			t.Errorf("cpu window 1 comments do not name the JVM and its labels: %q", p.Comments)
		}
		if p.DurationNanos <= 0 || p.TimeNanos == 0 {
			t.Errorf("cpu window 1: time %d duration %d", p.TimeNanos, p.DurationNanos)
		}
		// Thread names travel as labels of the threads view (the
		// agent's traces name no thread without thread=y).
		threads := map[string]bool{}
		for _, s := range views["threads"][0].Sample {
			for _, v := range s.Label["thread"] {
				threads[v] = true
			}
		}
		if !threads["fib-worker"] {
			t.Errorf("no thread=fib-worker label in threads window 1: %v", threads)
		}
	}
	if logs := h.logs.String(); !strings.Contains(logs, "msg=stats metrics.connections=1") || !strings.Contains(logs, "queued_pprof=0") {
		t.Errorf("no periodic stats line with the counters and the spill queue")
	}
	m := h.srv.Metrics().Snapshot()
	if m.Connections != 1 || m.Windows < 3 || m.Windows > 5 || m.Exported != m.Windows || m.Failed != 0 || m.Bytes != int64(len(jvm.data)) {
		t.Errorf("metrics %+v", m)
	}
}

func TestReplayFiftyJVMs(t *testing.T) {
	h := start(t, Config{})
	n := 50
	if raceEnabled {
		n = 8 // the same paths, at a load the race detector can carry
	}
	var wg sync.WaitGroup
	errs := make(chan error, n)
	jvms := make([]*fakeJVM, n)
	for i := range jvms {
		jvms[i] = newCommandsJVM(t)
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- jvms[i].run(h.addr())
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	h.stop()
	ws := h.windows()
	if len(ws) != n {
		t.Fatalf("%d JVM directories, want %d", len(ws), n)
	}
	for jvm, views := range ws {
		t.Run(jvm, func(t *testing.T) {
			checkSession(t, views)
		})
	}
	if m := h.srv.Metrics().Snapshot(); m.Windows < int64(3*n) || m.Exported != m.Windows || m.Active != 0 || m.Bytes != int64(n*len(jvms[0].data)) {
		t.Errorf("metrics %+v", m)
	}
}

// A JVM killed mid-record: the connection ends inside a STACK FRAME; the
// answers that arrived are exported and the log says why it ended.
func TestCutMidRecord(t *testing.T) {
	h := start(t, Config{})
	jvm := newCommandsJVM(t)
	jvm.stopAt = 100000 // after the second CPU answer, inside the frames before ALLOC SITES
	if err := jvm.run(h.addr()); err != nil {
		t.Fatal(err)
	}
	h.stop()
	for _, views := range h.windows() {
		cpu := views["cpu"]
		if len(cpu) != 2 || sum(cpu[0], "samples") != 460 || sum(cpu[1], "samples") != 349 {
			t.Errorf("want the two CPU answers before the cut as windows, got %d", len(cpu))
		}
	}
	if !strings.Contains(h.logs.String(), "stream ended inside a record") {
		t.Errorf("the log does not say the stream was cut")
	}
}

// blockingExporter holds every export until released.
type blockingExporter struct {
	release chan struct{}
	started chan struct{}
	once    sync.Once
	mu      sync.Mutex
	got     []int
}

func (b *blockingExporter) Name() string { return "blocking" }

func (b *blockingExporter) Export(ctx context.Context, w *Window) error {
	b.once.Do(func() { close(b.started) })
	select {
	case <-b.release:
	case <-ctx.Done():
		return ctx.Err()
	}
	b.mu.Lock()
	b.got = append(b.got, w.Seq)
	b.mu.Unlock()
	return nil
}

// Shutdown while windows are in flight: every window cut is exported
// before Serve returns, and the shutdown's last round of commands brings
// the JVM's last answers in.
func TestShutdownWithWindowsInFlight(t *testing.T) {
	slow := &blockingExporter{release: make(chan struct{}), started: make(chan struct{})}
	h := start(t, Config{Interval: time.Hour}, slow)
	jvm := newCommandsJVM(t)
	jvm.unasked = 224625 // all three answers arrive unasked; no tick comes
	jvm.answers = nil
	go jvm.run(h.addr())
	<-slow.started // window 1 is being exported
	h.cancel()     // SIGTERM
	time.AfterFunc(50*time.Millisecond, func() { close(slow.release) })
	h.stop()
	for _, views := range h.windows() {
		checkSession(t, views) // window 3 is the exit dump the last command asked for
	}
	if got := slow.got; !slices.Equal(got, []int{1, 2, 3}) {
		t.Errorf("slow exporter got windows %v, want [1 2 3]", got)
	}
	if cmds := jvm.received(); len(cmds) == 0 || cmds[0].tag != cmdCPUSamples {
		t.Errorf("shutdown sent no CPU SAMPLES command: %v", cmds)
	}
}

// Hostile input closes only its own connection.
func TestHostileStreams(t *testing.T) {
	h := start(t, Config{HeaderTimeout: 500 * time.Millisecond})
	data := loadRecording(t, commandsRecording)
	hostile := map[string][]byte{
		"http":        []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"),
		"huge record": append(append([]byte(nil), data[:unasked]...), 0x01, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff),
		"bad header":  append([]byte("JAVA PROFILE 1.0.2\x00\x00\x00\x00\x03"), make([]byte, 100)...), // ID size 3
		"silent":      []byte("JAVA PROF"),                                                            // then nothing: the header timeout
	}
	var wg sync.WaitGroup
	good := newCommandsJVM(t)
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := good.run(h.addr()); err != nil {
			t.Error(err)
		}
	}()
	for name, b := range hostile {
		c, err := net.Dial("tcp", h.addr())
		if err != nil {
			t.Fatal(err)
		}
		c.Write(b)
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		// The server may have sent commands before it saw the damage.
		if _, err := io.Copy(io.Discard, c); errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("%s: connection not closed by the server (%v)", name, err)
		}
		c.Close()
	}
	wg.Wait()
	h.stop()
	if m := h.srv.Metrics().Snapshot(); m.Failed != int64(len(hostile)) {
		t.Errorf("%d connections failed, want %d", m.Failed, len(hostile))
	}
	ws := h.windows()
	if len(ws) != 1 {
		t.Fatalf("%d JVM directories, want only the good one", len(ws))
	}
	for _, views := range ws {
		checkSession(t, views)
	}
	for _, want := range []string{"not an hprof agent stream", "malformed stream", "bad header", "no HPROF header"} {
		if !strings.Contains(h.logs.String(), want) {
			t.Errorf("log lacks %q", want)
		}
	}
}

func TestMaxConns(t *testing.T) {
	h := start(t, Config{MaxConns: 1})
	first, err := net.Dial("tcp", h.addr())
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	first.Write(loadRecording(t, commandsRecording)[:1000])
	for i := 0; i < 1000 && h.srv.Metrics().Active.Load() != 1; i++ {
		time.Sleep(5 * time.Millisecond)
	}
	second, err := net.Dial("tcp", h.addr())
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	second.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := second.Read(make([]byte, 1)); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("second connection not refused (%v)", err)
	}
	if r := h.srv.Metrics().Rejected.Load(); r != 1 {
		t.Errorf("rejected %d, want 1", r)
	}
}

// A text (not format=b) session is parsed at its end and exported once,
// with the report's own total.
func TestTextSession(t *testing.T) {
	h := start(t, Config{})
	jvm := &fakeJVM{data: loadRecording(t, "../testdata/net-cpu-samples.cpuwork.jdk17.txt.raw")}
	jvm.unasked = len(jvm.data)
	if err := jvm.run(h.addr()); err != nil {
		t.Fatal(err)
	}
	h.stop()
	ws := h.windows()
	if len(ws) != 1 {
		t.Fatalf("%d JVM directories, want 1", len(ws))
	}
	for _, views := range ws {
		if len(views["cpu"]) != 1 {
			t.Fatalf("%d cpu windows, want 1", len(views["cpu"]))
		}
		if got := sum(views["cpu"][0], "samples"); got != 673 { // CPU SAMPLES BEGIN (total = 673)
			t.Errorf("%d samples, want 673", got)
		}
	}
	if len(jvm.received()) != 0 {
		t.Errorf("commands sent to a text stream: %v", jvm.received())
	}
}
