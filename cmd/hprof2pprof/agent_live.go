package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/hprof2pprof/hprof2pprof/agent"
	"github.com/hprof2pprof/hprof2pprof/agent/attach"
	"github.com/hprof2pprof/hprof2pprof/agent/capture"
	"github.com/hprof2pprof/hprof2pprof/agent/jvm"
	"github.com/hprof2pprof/hprof2pprof/agent/watch"
	"github.com/hprof2pprof/hprof2pprof/convert"
	"github.com/hprof2pprof/hprof2pprof/convert/graph"
)

func init() {
	examples["agent"] = append(examples["agent"],
		"hprof2pprof agent --watch /dumps --watch-delete --otlp-endpoint 127.0.0.1:4317 --insecure   # OOM dumps (-XX:HeapDumpPath=/dumps)",
		"hprof2pprof agent --capture-old-gen 90 --capture-cooldown 1h --capture-every 6h --out profiles/",
	)
}

// liveFlags are agent's flags for today's JVMs: heap dumps picked up
// from a directory, and captures on a timer or on old-generation
// occupancy.
type liveFlags struct {
	watchDir    string
	watchState  string
	watchDelete bool
	settle      time.Duration
	every       time.Duration
	oldGen      float64
	cooldown    time.Duration
	match       string
	all         bool
	gzip        int
	dumpDir     string
}

func (l *liveFlags) add(fs *flag.FlagSet) {
	fs.StringVar(&l.watchDir, "watch", "", "convert and export each new heap dump (plain or gzip) that appears in `DIR` or its subdirectories (3 deep), once complete (e.g. the JVMs' -XX:HeapDumpPath)")
	fs.StringVar(&l.watchState, "watch-state", "", "where --watch keeps its done marks (default: DIR/.hprof2pprof)")
	fs.BoolVar(&l.watchDelete, "watch-delete", false, "delete each watched dump once exported")
	fs.DurationVar(&l.settle, "watch-settle", 2*time.Second, "a watched dump is complete when unchanged this long and no process has it open for writing")
	fs.DurationVar(&l.every, "capture-every", 0, "take a heap dump of every local JVM this often (0: off)")
	fs.Float64Var(&l.oldGen, "capture-old-gen", 0, "take a heap dump of a JVM when its old generation is at least this `PERCENT` of its maximum after a GC (0: off)")
	fs.DurationVar(&l.cooldown, "capture-cooldown", 10*time.Minute, "at most one --capture-old-gen dump of a JVM this often")
	fs.StringVar(&l.match, "capture-match", "", "capture only JVMs whose java command (main class or jar, and arguments) matches this `REGEXP`")
	fs.BoolVar(&l.all, "capture-all", false, "captures dump every object, unreachable ones too (default: live objects)")
	fs.IntVar(&l.gzip, "capture-gzip", 0, "captures are compressed by the JVM at this level, 1-9")
	fs.StringVar(&l.dumpDir, "capture-dir", "/tmp", "where the JVM writes a capture, as it sees it")
}

// enabled reports whether any live source is configured.
func (l *liveFlags) enabled() bool {
	return l.watchDir != "" || l.every > 0 || l.oldGen > 0
}

func (l *liveFlags) check() error {
	if l.oldGen < 0 || l.oldGen > 100 || l.every < 0 || l.cooldown < 0 || l.gzip < 0 || l.gzip > 9 {
		return fmt.Errorf("%w: --capture-old-gen must be 0-100, --capture-gzip 0-9, durations not negative", errUsage)
	}
	if l.match != "" {
		if _, err := regexp.Compile(l.match); err != nil {
			return fmt.Errorf("%w: --capture-match: %v", errUsage, err)
		}
	}
	return nil
}

// live runs the watcher and the capture triggers, exporting through the
// agent's exporters, until ctx ends.
type live struct {
	l         *liveFlags
	exporters []agent.Exporter
	labels    map[string]string
	log       *slog.Logger
	metrics   *agent.Metrics
	mu        sync.Mutex
	seq       int
}

func (lv *live) run(ctx context.Context) (func(), error) {
	var wg sync.WaitGroup
	copts := convert.Options{Views: []string{"heap"}}
	if lv.l.watchDir != "" {
		w, err := watch.New(watch.Options{Dir: lv.l.watchDir, StateDir: lv.l.watchState, Settle: lv.l.settle,
			Delete: lv.l.watchDelete, Convert: copts, Handle: lv.watched, Logger: lv.log.With("watch", lv.l.watchDir)})
		if err != nil {
			return nil, err
		}
		lv.log.Info("watching for heap dumps", "dir", lv.l.watchDir)
		wg.Add(1)
		go func() { defer wg.Done(); w.Run(ctx) }()
	}
	if lv.l.every > 0 || lv.l.oldGen > 0 {
		var re *regexp.Regexp
		if lv.l.match != "" {
			re = regexp.MustCompile(lv.l.match)
		}
		o := capture.TriggerOptions{Every: lv.l.every, OldGen: lv.l.oldGen / 100, Cooldown: lv.l.cooldown, Match: re,
			Capture: capture.Options{All: lv.l.all, Gzip: lv.l.gzip, Dir: lv.l.dumpDir, Convert: copts, Logger: lv.log,
				AttachTimeout: 10 * time.Second, DumpTimeout: 30 * time.Minute},
			Handle: lv.captured, Logger: lv.log.With("trigger", "capture")}
		lv.log.Info("capturing local JVMs", "every", lv.l.every, "old_gen_percent", lv.l.oldGen, "cooldown", lv.l.cooldown)
		wg.Add(1)
		go func() { defer wg.Done(); capture.RunTriggers(ctx, o) }()
	}
	return wg.Wait, nil
}

// watched exports one dump found in the watched directory.
func (lv *live) watched(ctx context.Context, d watch.Dump, g *graph.Graph) error {
	// pod1/java_pid1.hprof → pod1_java_pid1: dumps of one name in
	// several subdirectories stay apart.
	name := strings.ReplaceAll(strings.TrimSuffix(strings.TrimSuffix(d.Rel, ".gz"), ".hprof"), string(filepath.Separator), "_")
	w := &agent.Window{JVM: name, Attrs: lv.attrs("watch", d.Path), Start: d.ModTime, End: d.ModTime, Graph: g}
	if d.PID > 0 {
		// A JVM that wrote its OOM dump may still be running; describe it
		// when the PID is a JVM (not one reused by something else).
		if t, err := attach.Resolve(d.PID); err == nil {
			if ok, _ := t.IsHotSpot(); ok {
				// Started after the dump: another JVM under a reused PID.
				if info, err := jvm.Describe(t); err == nil && !info.Started.After(d.ModTime) {
					w.JVMInfo = info
				}
			}
		}
	}
	if err := lv.export(ctx, w); err != nil {
		return err
	}
	lv.metrics.Watched.Add(1)
	return nil
}

// captured exports one capture, with what it cost the JVM.
func (lv *live) captured(ctx context.Context, res *capture.Result, reason string, err error) {
	if res == nil || res.Graph == nil {
		lv.metrics.CaptureFail.Add(1)
		return
	}
	lv.metrics.Captures.Add(1)
	lv.metrics.PauseMillis.Add(res.Pause.Milliseconds())
	res.Annotate()
	// JVM: one directory per JVM, its captures side by side.
	w := &agent.Window{JVM: jvmDirName(res), Attrs: lv.attrs(reason, ""), Start: res.Time, End: res.Time.Add(res.Took),
		Graph: res.Graph, JVMInfo: res.JVM, IntAttrs: map[string]int64{}}
	for _, kv := range capture.Attributes(res) {
		w.IntAttrs[kv.Key] = kv.GetValue().GetIntValue()
	}
	if err != nil {
		lv.log.Warn("partial capture exported", "pid", res.JVM.PID, "err", err)
	}
	lv.log.Info("heap dump pause", "pid", res.JVM.PID, "main", res.JVM.MainClass, "reason", reason,
		"pause", res.Pause, "took", res.Took, "dump_bytes", res.DumpBytes)
	if err := lv.export(ctx, w); err != nil {
		lv.log.Warn("capture not exported", "pid", res.JVM.PID, "err", err)
	}
}

func (lv *live) attrs(reason, file string) map[string]string {
	m := map[string]string{capture.AttrReason: reason}
	if file != "" {
		m["hprof.watch.file"] = file
	}
	for k, v := range lv.labels {
		m[k] = v
	}
	return m
}

func (lv *live) export(ctx context.Context, w *agent.Window) error {
	lv.mu.Lock()
	lv.seq++
	w.Seq = lv.seq
	lv.mu.Unlock()
	lv.metrics.Windows.Add(1)
	var first error
	for _, x := range lv.exporters {
		if err := x.Export(ctx, w); err != nil && first == nil {
			first = err
		}
	}
	return first
}
