package agent

import (
	"context"
	"github.com/hprof2pprof/hprof2pprof/internal/objstore"
	"log/slog"
	"math"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/hprof2pprof/hprof2pprof/agent/attach"
	"github.com/hprof2pprof/hprof2pprof/agent/capture"
	"github.com/hprof2pprof/hprof2pprof/agent/jvm"
	"github.com/hprof2pprof/hprof2pprof/agent/watch"
	"github.com/hprof2pprof/hprof2pprof/convert"
	"github.com/hprof2pprof/hprof2pprof/convert/graph"
)

// DaemonConfig is the agent as `hprof2pprof agent` runs it: where windows
// go (pprof files, OTLP; each through a retry and spill queue) and the
// sources they come from (hprof agent streams, heap dumps appearing in a
// directory, captures of local JVMs by rule).
type DaemonConfig struct {
	// Listen, when not nil, accepts hprof agent (net=) streams as it
	// says; Start sets its Labels, Exporters, Logger and Metrics.
	Listen *Config
	// Labels are attributes of every window, whatever its source.
	Labels map[string]string
	// RawNames keeps hidden and lambda class names as the JVM wrote
	// them, in every source's windows (convert.Options.RawNames).
	RawNames bool
	// OutDir, when set, gets pprof files: OutDir/<jvm>/<view>-<start>.pb.gz;
	// a storage URL (s3://bucket/prefix) gets them uploaded (PprofBucket).
	OutDir string
	// OTLP pushes windows to OTLP.Client.Endpoint when it is set; Start
	// sets its client's Timeout and its Logger.
	OTLP OTLPOptions
	// Timeout bounds one export attempt.
	Timeout time.Duration
	// SpillDir (required) and SpillMax: where windows wait while a
	// backend is down, and how many bytes of them at most.
	SpillDir string
	SpillMax int64
	// Watch converts and exports each heap dump appearing in Watch.Dir
	// (none when ""); Start sets its Convert, Handle and Logger.
	Watch watch.Options
	// Capture takes heap dumps of local JVMs when Capture.Every or
	// Capture.OldGen is set; Start sets its Handle and Logger and its
	// Capture's Convert and Logger (and AttachTimeout 10s and
	// DumpTimeout 30m when zero).
	Capture capture.TriggerOptions
	Logger  *slog.Logger // default: discard
	Metrics *Metrics     // default: new counters
}

// A StartError is why a daemon did not start. Path names the file,
// directory or address at fault ("" for none); Config is set when the
// configuration is wrong (an endpoint that does not parse) rather than
// the machine refusing it (a directory not made, an address in use).
type StartError struct {
	Path   string
	Config bool
	Err    error
}

func (e *StartError) Error() string {
	if e.Path == "" {
		return e.Err.Error()
	}
	return e.Path + ": " + e.Err.Error()
}

func (e *StartError) Unwrap() error { return e.Err }

// A Daemon is a running agent: Start it, then Wait for it.
type Daemon struct {
	cfg       DaemonConfig
	ctx       context.Context
	log       *slog.Logger
	m         *Metrics
	exporters []Exporter
	reliable  []*Reliable
	otlp      *OTLP // nil without an endpoint
	srv       *Server
	served    chan error // Serve's result, when listening
	live      sync.WaitGroup
	stopLive  context.CancelFunc

	mu  sync.Mutex
	seq int
}

// Start sets up the exporters, starts the live sources and listens, as
// cfg says; the daemon runs until ctx ends (see Wait). An error is a
// *StartError, and nothing is left running.
func Start(ctx context.Context, cfg DaemonConfig) (*Daemon, error) {
	d := &Daemon{cfg: cfg, ctx: ctx, log: cfg.Logger, m: cfg.Metrics}
	if d.log == nil {
		d.log = slog.New(slog.DiscardHandler)
	}
	if d.m == nil {
		d.m = &Metrics{}
	}
	liveCtx, cancel := context.WithCancel(ctx)
	err := d.start(liveCtx)
	if err != nil {
		cancel()
		for _, r := range d.reliable {
			r.halt()
		}
		if d.otlp != nil {
			d.otlp.Close()
		}
		return nil, err
	}
	d.stopLive = cancel
	return d, nil
}

func (d *Daemon) start(ctx context.Context) error {
	if err := d.addExporters(); err != nil {
		return err
	}
	if err := d.startLive(ctx); err != nil {
		return err
	}
	if d.cfg.Listen == nil {
		return nil
	}
	sc := *d.cfg.Listen
	sc.Labels, sc.Exporters, sc.Logger, sc.Metrics = d.cfg.Labels, d.exporters, d.log, d.m
	sc.RawNames = sc.RawNames || d.cfg.RawNames
	srv, err := NewServer(sc)
	if err != nil {
		return &StartError{Config: true, Err: err}
	}
	if err := srv.Listen(); err != nil {
		return &StartError{Path: sc.Addr, Err: err}
	}
	d.srv, d.served = srv, make(chan error, 1)
	go func() { d.served <- srv.Serve(d.ctx) }() // returns once ctx ends, after flushing
	return nil
}

// addExporters makes the pprof directory and OTLP exporters, each
// behind its retry and spill queue.
func (d *Daemon) addExporters() error {
	var next []Exporter
	switch dir := d.cfg.OutDir; {
	case objstore.IsURL(dir):
		b, err := NewPprofBucket(d.ctx, dir)
		if err != nil {
			return &StartError{Path: dir, Err: err}
		}
		next = append(next, b)
	case dir != "":
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return &StartError{Path: dir, Err: err}
		}
		next = append(next, &PprofDir{Dir: dir})
	}
	if oo := d.cfg.OTLP; oo.Client.Endpoint != "" {
		oo.Client.Timeout, oo.Logger = d.cfg.Timeout, d.log
		x, err := NewOTLP(oo)
		if err != nil {
			return &StartError{Config: true, Err: err}
		}
		d.otlp = x
		d.log.Info("exporting over OTLP", "target", x.Target(), "spill_dir", d.cfg.SpillDir)
		next = append(next, x)
	}
	for _, x := range next {
		r, err := NewReliable(x, RetryOptions{SpillDir: d.cfg.SpillDir, SpillMax: d.cfg.SpillMax, Timeout: d.cfg.Timeout, Logger: d.log, Metrics: d.m})
		if err != nil {
			return &StartError{Path: d.cfg.SpillDir, Err: err}
		}
		d.reliable = append(d.reliable, r)
		d.exporters = append(d.exporters, r)
	}
	return nil
}

// Addr is the address the daemon listens on, nil when it does not.
func (d *Daemon) Addr() net.Addr {
	if d.srv == nil {
		return nil
	}
	return d.srv.Addr()
}

// Wait waits until the context given to Start ends and the server has
// flushed its connections; then it stops the live sources, makes a last attempt to deliver what waits in the spill
// queues (at most 30s), logs the counters and returns why serving
// failed, if it did.
func (d *Daemon) Wait() error {
	var serveErr error
	if d.srv != nil {
		serveErr = <-d.served
	} else {
		<-d.ctx.Done()
	}
	d.stopLive()
	d.live.Wait()
	flush, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, r := range d.reliable {
		r.Close(flush)
	}
	d.log.Info("exit", "metrics", d.m.Snapshot())
	if d.otlp != nil {
		d.otlp.Close()
	}
	return serveErr
}

// startLive starts the watcher and the capture triggers, as configured;
// they run until ctx ends.
func (d *Daemon) startLive(ctx context.Context) error {
	copts := convert.Options{Views: []string{"heap"}, RawNames: d.cfg.RawNames}
	if wo := d.cfg.Watch; wo.Dir != "" {
		wo.Convert, wo.Handle, wo.Logger = copts, d.watched, d.log.With("watch", wo.Dir)
		w, err := watch.New(wo)
		if err != nil {
			return &StartError{Path: wo.Dir, Err: err}
		}
		d.log.Info("watching for heap dumps", "dir", wo.Dir)
		d.live.Add(1)
		go func() { defer d.live.Done(); w.Run(ctx) }()
	}
	if o := d.cfg.Capture; o.Every > 0 || o.OldGen > 0 {
		o.Capture.Convert, o.Capture.Logger = copts, d.log
		if o.Capture.AttachTimeout == 0 {
			o.Capture.AttachTimeout = 10 * time.Second
		}
		if o.Capture.DumpTimeout == 0 {
			o.Capture.DumpTimeout = 30 * time.Minute
		}
		o.Handle, o.Logger = d.captured, d.log.With("trigger", "capture")
		d.log.Info("capturing local JVMs", "every", o.Every, "old_gen_percent", percent(o.OldGen), "cooldown", o.Cooldown)
		d.live.Add(1)
		go func() { defer d.live.Done(); capture.RunTriggers(ctx, o) }()
	}
	return nil
}

// export sends a window of a live source to every exporter; the first
// error is returned.
func (d *Daemon) export(ctx context.Context, w *Window) error {
	d.mu.Lock()
	d.seq++
	w.Seq = d.seq
	d.mu.Unlock()
	d.m.Windows.Add(1)
	var first error
	for _, x := range d.exporters {
		if err := x.Export(ctx, w); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// percent is a fraction as the percentage it was made from (p/100*100
// is not always p in floating point).
func percent(f float64) float64 { return math.Round(f*100*1e9) / 1e9 }

// watched exports one dump found in the watched directory.
func (d *Daemon) watched(ctx context.Context, dump watch.Dump, g *graph.Graph) error {
	// pod1/java_pid1.hprof → pod1_java_pid1: dumps of one name in
	// several subdirectories stay apart.
	name := strings.ReplaceAll(strings.TrimSuffix(strings.TrimSuffix(dump.Rel, ".gz"), ".hprof"), string(filepath.Separator), "_")
	w := &Window{JVM: name, Attrs: d.attrs("watch", dump.Path), Start: dump.ModTime, End: dump.ModTime, Graph: g}
	if dump.PID > 0 {
		// A JVM that wrote its OOM dump may still be running; describe it
		// when the PID is a JVM (not one reused by something else).
		if t, err := attach.Resolve(dump.PID); err == nil {
			if ok, _ := t.IsHotSpot(); ok {
				// Started after the dump: another JVM under a reused PID.
				if info, err := jvm.Describe(t); err == nil && !info.Started.After(dump.ModTime) {
					w.JVMInfo = info
				}
			}
		}
	}
	if err := d.export(ctx, w); err != nil {
		return err
	}
	d.m.Watched.Add(1)
	return nil
}

// captured exports one capture, with what it cost the JVM.
func (d *Daemon) captured(ctx context.Context, res *capture.Result, reason string, err error) {
	if res == nil || res.Graph == nil {
		d.m.CaptureFail.Add(1)
		return
	}
	d.m.Captures.Add(1)
	d.m.PauseMillis.Add(res.Pause.Milliseconds())
	res.Annotate()
	// JVM: one directory per JVM, its captures side by side.
	w := &Window{JVM: res.JVMName(), Attrs: d.attrs(reason, ""), Start: res.Time, End: res.Time.Add(res.Took),
		Graph: res.Graph, JVMInfo: res.JVM, IntAttrs: map[string]int64{}}
	for _, kv := range capture.Attributes(res) {
		w.IntAttrs[kv.Key] = kv.GetValue().GetIntValue()
	}
	if err != nil {
		d.log.Warn("partial capture exported", "pid", res.JVM.PID, "err", err)
	}
	d.log.Info("heap dump pause", "pid", res.JVM.PID, "main", res.JVM.MainClass, "reason", reason,
		"pause", res.Pause, "took", res.Took, "dump_bytes", res.DumpBytes)
	if err := d.export(ctx, w); err != nil {
		d.log.Warn("capture not exported", "pid", res.JVM.PID, "err", err)
	}
}

// attrs are a live window's attributes: why it was made, the watched
// file, and the labels.
func (d *Daemon) attrs(reason, file string) map[string]string {
	m := map[string]string{capture.AttrReason: reason}
	if file != "" {
		m["hprof.watch.file"] = file
	}
	for k, v := range d.cfg.Labels {
		m[k] = v
	}
	return m
}
