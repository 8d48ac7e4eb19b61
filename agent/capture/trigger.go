package capture

import (
	"context"
	"log/slog"
	"os"
	"regexp"
	"time"

	"github.com/hprof2pprof/hprof2pprof/agent/hsperf"
	"github.com/hprof2pprof/hprof2pprof/agent/jvm"
)

// Reasons a trigger captured.
const (
	ReasonEvery  = "every"
	ReasonOldGen = "old-gen"
)

// TriggerOptions configure RunTriggers.
type TriggerOptions struct {
	// Every captures each local JVM this often (0: off); the first
	// capture is Every after the JVM was first seen.
	Every time.Duration
	// OldGen captures a JVM when, after a GC, its old generation is at
	// least this fraction of its maximum (0: off), at most once per
	// Cooldown.
	OldGen   float64
	Cooldown time.Duration
	// Poll is how often the JVMs' performance data is read; default 1s.
	Poll time.Duration
	// Match, when set, limits captures to JVMs whose java command (main
	// class or jar, and arguments) matches.
	Match   *regexp.Regexp
	Capture Options
	// Handle receives each capture (a partial one too, with its error).
	Handle func(ctx context.Context, res *Result, reason string, err error)
	Logger *slog.Logger
}

type jvmState struct {
	started     time.Time // tells a reused PID from the JVM we knew
	firstSeen   time.Time
	last        time.Time // last capture
	collections int64
}

type job struct {
	pid    int
	reason string
}

// RunTriggers watches the local JVMs' performance data (no attach) and
// captures by the rules in o, one dump at a time: a dump stops its JVM
// and needs disk, so two never run at once, and a JVM already queued is
// not queued again.
func RunTriggers(ctx context.Context, o TriggerOptions) {
	if o.Poll <= 0 {
		o.Poll = time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	jobs := make(chan job, 64)
	busy := map[int]bool{}
	finished := make(chan int, 64)
	go func() {
		for j := range jobs {
			res, err := Capture(ctx, j.pid, o.Capture)
			if err != nil && (res == nil || res.Graph == nil) {
				o.Logger.Warn("capture failed", "pid", j.pid, "reason", j.reason, "err", err)
			}
			if res != nil && res.Graph != nil {
				o.Logger.Info("captured", "pid", j.pid, "reason", j.reason, "main", res.JVM.MainClass,
					"dump_bytes", res.DumpBytes, "took", res.Took, "pause", res.Pause)
				o.Handle(ctx, res, j.reason, err)
			}
			finished <- j.pid
		}
	}()
	defer close(jobs)
	states := map[int]*jvmState{}
	t := time.NewTicker(o.Poll)
	defer t.Stop()
	self := os.Getpid()
	for {
		select {
		case <-ctx.Done():
			return
		case pid := <-finished:
			delete(busy, pid)
			continue
		case <-t.C:
		}
		list, err := jvm.List()
		if err != nil {
			o.Logger.Warn("cannot list JVMs", "err", err)
			continue
		}
		now := time.Now()
		alive := map[int]bool{}
		for _, info := range list {
			alive[info.PID] = true
			if info.PID == self || !info.Attachable || (o.Match != nil && !o.Match.MatchString(info.JavaCommand)) {
				continue
			}
			if os.Geteuid() != 0 && os.Geteuid() != info.UID {
				continue
			}
			st := states[info.PID]
			if st == nil || !st.started.Equal(info.Started) {
				st = &jvmState{started: info.Started, firstSeen: now, collections: -1}
				states[info.PID] = st
			}
			reason := o.due(st, info, now)
			if reason == "" || busy[info.PID] {
				continue
			}
			select {
			case jobs <- job{pid: info.PID, reason: reason}:
				busy[info.PID] = true
				st.last = now
			default:
			}
		}
		for pid := range states {
			if !alive[pid] {
				delete(states, pid)
			}
		}
	}
}

// due says why this JVM should be captured now, or "".
func (o *TriggerOptions) due(st *jvmState, info *jvm.Info, now time.Time) string {
	if o.OldGen > 0 && info.PerfData != "" {
		if c, err := hsperf.ReadFile(info.PerfData); err == nil {
			h := c.Heap()
			gc := h.Collections != st.collections && st.collections >= 0
			st.collections = h.Collections
			if gc && h.OldMax > 0 && float64(h.OldUsed) >= o.OldGen*float64(h.OldMax) &&
				(st.last.IsZero() || now.Sub(st.last) >= o.Cooldown) {
				o.Logger.Info("old generation over the threshold after a GC", "pid", info.PID,
					"old_used", h.OldUsed, "old_max", h.OldMax, "threshold", o.OldGen)
				return ReasonOldGen
			}
		}
	}
	if o.Every > 0 {
		from := st.last
		if from.IsZero() {
			from = st.firstSeen
		}
		if now.Sub(from) >= o.Every {
			return ReasonEvery
		}
	}
	return ""
}
