package main

import (
	"flag"
	"fmt"
	"regexp"
	"time"

	"github.com/hprof2pprof/hprof2pprof/agent"
	"github.com/hprof2pprof/hprof2pprof/agent/capture"
	"github.com/hprof2pprof/hprof2pprof/agent/watch"
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

// configure puts the live sources into the daemon's configuration.
func (l *liveFlags) configure(cfg *agent.DaemonConfig) {
	cfg.Watch = watch.Options{Dir: l.watchDir, StateDir: l.watchState, Settle: l.settle, Delete: l.watchDelete}
	var re *regexp.Regexp
	if l.match != "" {
		re = regexp.MustCompile(l.match)
	}
	cfg.Capture = capture.TriggerOptions{Every: l.every, OldGen: l.oldGen / 100, Cooldown: l.cooldown, Match: re,
		Capture: capture.Options{All: l.all, Gzip: l.gzip, Dir: l.dumpDir}}
}
