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
	// Handle receives each capture (a partial one too, with its error),
	// and each failure (res nil).
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
	r := &triggers{o: &o, jobs: make(chan job, 64), finished: make(chan int, 64),
		busy: map[int]bool{}, states: map[int]*jvmState{}}
	stopped := make(chan struct{})
	go func() { defer close(stopped); r.work(ctx) }()
	defer func() { // let a capture under way end (ctx is done) before returning
		close(r.jobs)
		for {
			select {
			case <-r.finished:
			case <-stopped:
				return
			}
		}
	}()
	t := time.NewTicker(o.Poll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case pid := <-r.finished:
			delete(r.busy, pid)
		case <-t.C:
			r.scan()
		}
	}
}

type triggers struct {
	o        *TriggerOptions
	jobs     chan job
	finished chan int
	busy     map[int]bool // queued or being captured
	states   map[int]*jvmState
}

// work runs the queued captures one after the other.
func (r *triggers) work(ctx context.Context) {
	o := r.o
	for j := range r.jobs {
		res, err := Capture(ctx, j.pid, o.Capture)
		if res != nil && res.Graph != nil {
			o.Handle(ctx, res, j.reason, err)
		} else if err != nil {
			o.Logger.Warn("capture failed", "pid", j.pid, "reason", j.reason, "err", err)
			o.Handle(ctx, nil, j.reason, err)
		}
		r.finished <- j.pid
	}
}

// scan reads every local JVM's performance data once and queues the
// captures that are due.
func (r *triggers) scan() {
	list, err := jvm.List()
	if err != nil {
		r.o.Logger.Warn("cannot list JVMs", "err", err)
		return
	}
	now := time.Now()
	alive := map[int]bool{}
	for _, info := range list {
		alive[info.PID] = true
		if !r.eligible(info) {
			continue
		}
		st := r.states[info.PID]
		if st == nil || !st.started.Equal(info.Started) {
			st = &jvmState{started: info.Started, firstSeen: now, collections: -1}
			r.states[info.PID] = st
		}
		reason := r.o.due(st, info, now)
		if reason == "" || r.busy[info.PID] {
			continue
		}
		select {
		case r.jobs <- job{pid: info.PID, reason: reason}:
			r.busy[info.PID] = true
			st.last = now
		default:
		}
	}
	for pid := range r.states {
		if !alive[pid] {
			delete(r.states, pid)
		}
	}
}

// eligible: not ourselves, attachable, ours to attach to, and matching.
func (r *triggers) eligible(info *jvm.Info) bool {
	me := os.Geteuid()
	return info.PID != os.Getpid() && info.Attachable && (me == 0 || me == info.UID) &&
		(r.o.Match == nil || r.o.Match.MatchString(info.JavaCommand))
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
