package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hprof2pprof/hprof2pprof/agent"
)

func init() {
	registerCommand(command{name: "agent", summary: "export live profiles: hprof agent (net=) streams, heap dumps appearing in --watch DIR, captures on rules", run: runAgent})
}

// labelFlag collects --label k=v pairs.
type labelFlag map[string]string

func (l labelFlag) String() string { return fmt.Sprint(map[string]string(l)) }

func (l labelFlag) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	if !ok || k == "" {
		return fmt.Errorf("want key=value, got %q", s)
	}
	l[k] = v
	return nil
}

// agentFlags are agent's flags besides the daemon's own settings.
type agentFlags struct {
	out, spill string
	timeout    time.Duration
	verbose    bool
	headers    headerFlag
	attrs      listFlag
	live       liveFlags
}

func runAgent(ctx context.Context, e *env, args []string) int {
	cfg, code := parseAgent(e, args)
	if code >= 0 {
		return code
	}
	d, err := agent.Start(ctx, cfg)
	var se *agent.StartError
	if errors.As(err, &se) {
		errorf(e, se.Path, se.Err)
		if se.Config {
			return exitUsage
		}
		return exitFailure
	}
	if err := d.Wait(); err != nil {
		errorf(e, "", err)
		return exitFailure
	}
	return exitOK
}

// parseAgent maps agent's flags to the daemon's configuration; code is
// an exit status when the run ends here, else -1.
func parseAgent(e *env, args []string) (cfg agent.DaemonConfig, code int) {
	fs := newFlagSet("agent", "", e.stderr)
	sc := &agent.Config{}
	cfg.Labels = labelFlag{}
	af := agentFlags{headers: headerFlag{}}
	fs.StringVar(&sc.Addr, "listen", agent.DefaultAddr, "address to listen on (the protocol has no authentication: keep it on loopback or a private network)")
	fs.IntVar(&sc.MaxConns, "max-conns", 64, "most JVMs connected at once; more are refused")
	fs.DurationVar(&sc.Interval, "window", 10*time.Second, "window length: how often each JVM is asked for its CPU samples and allocation sites")
	fs.DurationVar(&sc.Interval, "interval", 10*time.Second, "old spelling of --window, still accepted (convert's --interval is the CPU sampling interval: here --cpu-interval)")
	fs.DurationVar(&sc.CPUInterval, "cpu-interval", 0, "the agent's CPU sampling interval, for cpu/nanoseconds (default 10ms, the agent's default)")
	fs.BoolVar(&cfg.RawNames, "raw-names", false, rawNamesUsage)
	fs.Var(labelFlag(cfg.Labels), "label", "k=v attribute on every window (repeatable)")
	fs.StringVar(&af.out, "out", "", "write pprof files to DIR/<jvm>/<view>-<start>.pb.gz")
	oo := &cfg.OTLP
	fs.StringVar(&oo.Client.Endpoint, "otlp-endpoint", "", "push windows to this OTLP endpoint: host:port or grpc://host:port (gRPC), http://host:port or https://host:port[/path] (OTLP/HTTP)")
	fs.StringVar(&oo.Client.Protocol, "protocol", "", "grpc or http (default: from the endpoint)")
	fs.BoolVar(&oo.Client.Insecure, "insecure", false, "plain text to the OTLP endpoint instead of TLS")
	fs.Var(af.headers, "header", "header key=value sent with every OTLP request (repeatable)")
	fs.DurationVar(&af.timeout, "timeout", 10*time.Second, "time limit for one export attempt")
	fs.BoolVar(&oo.Now, "now", false, "stamp OTLP profiles with the time each window is exported, not the JVM's clock (replayed streams; backends refuse profiles older than an hour)")
	fs.Var(&af.attrs, "sample-attrs", "labels to send as OTLP sample attributes besides thread state: thread, class, or all (each distinct set is a stored series in Pyroscope)")
	fs.StringVar(&oo.ServiceName, "service-name", "", "service.name on the OTLP profiles (default unknown_service:java; --label service.name=… works too)")
	fs.DurationVar(&sc.StatsInterval, "stats-interval", time.Minute, "how often to log the counters (0: only at exit)")
	fs.StringVar(&af.spill, "spill-dir", "", "where windows wait while a backend is down (default: OUT/.spill)")
	fs.Int64Var(&cfg.SpillMax, "spill-max", 256<<20, "spill queue limit in bytes")
	fs.DurationVar(&sc.Grace, "grace", 2*time.Second, "on SIGTERM, how long to wait for the JVMs' last answers")
	fs.Int64Var(&sc.MaxState, "max-conn-bytes", 64<<20, "memory bound per connection: bytes of strings, classes, frames and traces kept")
	fs.BoolVar(&af.verbose, "v", false, "debug logging (every window exported)")
	af.live.add(fs)
	rest, err := parseInterspersed(fs, args, e.stderr)
	if err != nil {
		return cfg, parseExit(err)
	}
	if flagGiven(fs, "window") && flagGiven(fs, "interval") {
		errorf(e, "", errors.New("agent: give --window (the window length), not also its old spelling --interval"))
		return cfg, exitUsage
	}
	if err := af.check(rest, oo.Client.Endpoint); err != nil {
		errorf(e, "", err)
		return cfg, exitUsage
	}
	// With only heap dump sources, listen for hprof agents only when asked.
	if !af.live.enabled() || flagGiven(fs, "listen") {
		cfg.Listen = sc
	}
	if cfg.SpillDir, err = af.spillDir(); err != nil {
		errorf(e, "", err)
		return cfg, exitUsage
	}
	cfg.OutDir, cfg.Timeout = af.out, af.timeout
	oo.Client.Headers, oo.Client.UserAgent, oo.SampleAttrs = af.headers, "hprof2pprof-agent", af.attrs
	cfg.Logger = af.logger(e)
	cfg.Metrics = &agent.Metrics{}
	af.live.configure(&cfg)
	return cfg, -1
}

// check checks agent's flags and that it got no inputs.
func (af *agentFlags) check(rest []string, endpoint string) error {
	if err := af.live.check(); err != nil {
		return err
	}
	if len(rest) > 0 {
		return fmt.Errorf("agent takes no inputs, got %q", rest)
	}
	if af.out == "" && endpoint == "" {
		return errors.New("agent: give --out DIR and/or --otlp-endpoint")
	}
	if af.timeout <= 0 {
		return errors.New("agent: --timeout must be positive")
	}
	return nil
}

// spillDir is --spill-dir, by default OUT/.spill, else in the user's
// cache directory.
func (af *agentFlags) spillDir() (string, error) {
	if af.spill != "" {
		return af.spill, nil
	}
	if af.out != "" {
		return filepath.Join(af.out, ".spill"), nil
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("agent: no --out and no user cache directory for the spill queue (%v): give --spill-dir", err)
	}
	return filepath.Join(dir, "hprof2pprof", "agent-spill"), nil
}

// logger logs as text on stderr, debug lines too with -v.
func (af *agentFlags) logger(e *env) *slog.Logger {
	level := slog.LevelInfo
	if af.verbose {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: level}))
}
