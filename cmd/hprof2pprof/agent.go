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

func runAgent(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet("agent", "", e.stderr)
	cfg := agent.Config{Labels: labelFlag{}}
	fs.StringVar(&cfg.Addr, "listen", agent.DefaultAddr, "address to listen on (the protocol has no authentication: keep it on loopback or a private network)")
	fs.IntVar(&cfg.MaxConns, "max-conns", 64, "most JVMs connected at once; more are refused")
	fs.DurationVar(&cfg.Interval, "interval", 10*time.Second, "window length: how often each JVM is asked for its CPU samples and allocation sites")
	fs.DurationVar(&cfg.CPUInterval, "cpu-interval", 0, "the agent's CPU sampling interval, for cpu/nanoseconds (default 10ms, the agent's default)")
	fs.Var(labelFlag(cfg.Labels), "label", "k=v attribute on every window (repeatable)")
	out := fs.String("out", "", "write pprof files to DIR/<jvm>/<view>-<start>.pb.gz")
	var oo agent.OTLPOptions
	headers := headerFlag{}
	fs.StringVar(&oo.Client.Endpoint, "otlp-endpoint", "", "push windows to this OTLP endpoint: host:port or grpc://host:port (gRPC), http://host:port or https://host:port[/path] (OTLP/HTTP)")
	fs.StringVar(&oo.Client.Protocol, "protocol", "", "grpc or http (default: from the endpoint)")
	fs.BoolVar(&oo.Client.Insecure, "insecure", false, "plain text to the OTLP endpoint instead of TLS")
	fs.Var(headers, "header", "header key=value sent with every OTLP request (repeatable)")
	timeout := fs.Duration("timeout", 10*time.Second, "time limit for one export attempt")
	now := fs.Bool("now", false, "stamp OTLP profiles with the time each window is exported, not the JVM's clock (replayed streams; backends refuse profiles older than an hour)")
	var sampleAttrs listFlag
	fs.Var(&sampleAttrs, "sample-attrs", "labels to send as OTLP sample attributes besides thread state: thread, class, or all (each distinct set is a stored series in Pyroscope)")
	fs.StringVar(&oo.ServiceName, "service-name", "", "service.name on the OTLP profiles (default unknown_service:java; --label service.name=… works too)")
	fs.DurationVar(&cfg.StatsInterval, "stats-interval", time.Minute, "how often to log the counters (0: only at exit)")
	spill := fs.String("spill-dir", "", "where windows wait while a backend is down (default: OUT/.spill)")
	spillMax := fs.Int64("spill-max", 256<<20, "spill queue limit in bytes")
	fs.DurationVar(&cfg.Grace, "grace", 2*time.Second, "on SIGTERM, how long to wait for the JVMs' last answers")
	maxState := fs.Int64("max-conn-bytes", 64<<20, "memory bound per connection: bytes of strings, classes, frames and traces kept")
	verbose := fs.Bool("v", false, "debug logging (every window exported)")
	var lf liveFlags
	lf.add(fs)
	rest, err := parseInterspersed(fs, args)
	if err != nil {
		return exitUsage
	}
	if err := lf.check(); err != nil {
		errorf(e, "", err)
		return exitUsage
	}
	// With only heap dump sources, listen for hprof agents only when asked.
	listen := !lf.enabled() || flagGiven(fs, "listen")
	if len(rest) > 0 {
		errorf(e, "", fmt.Errorf("agent takes no inputs, got %q", rest))
		return exitUsage
	}
	if *out == "" && oo.Client.Endpoint == "" {
		errorf(e, "", errors.New("agent: give --out DIR and/or --otlp-endpoint"))
		return exitUsage
	}
	if *timeout <= 0 {
		errorf(e, "", errors.New("agent: --timeout must be positive"))
		return exitUsage
	}
	cfg.MaxState = *maxState
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: level}))
	cfg.Logger = log
	cfg.Metrics = &agent.Metrics{}
	if *spill == "" && *out != "" {
		*spill = filepath.Join(*out, ".spill")
	} else if *spill == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			errorf(e, "", fmt.Errorf("agent: no --out and no user cache directory for the spill queue (%v): give --spill-dir", err))
			return exitUsage
		}
		*spill = filepath.Join(dir, "hprof2pprof", "agent-spill")
	}
	var exporters []agent.Exporter
	if *out != "" {
		if err := os.MkdirAll(*out, 0o755); err != nil {
			errorf(e, *out, err)
			return exitFailure
		}
		exporters = append(exporters, &agent.PprofDir{Dir: *out})
	}
	if oo.Client.Endpoint != "" {
		oo.Client.Headers = headers
		oo.Client.Timeout = *timeout
		oo.Client.UserAgent = "hprof2pprof-agent"
		oo.Logger = log
		oo.SampleAttrs = sampleAttrs
		oo.Now = *now
		x, err := agent.NewOTLP(oo)
		if err != nil {
			errorf(e, "", err)
			return exitUsage
		}
		defer x.Close()
		log.Info("exporting over OTLP", "target", x.Target(), "spill_dir", *spill)
		exporters = append(exporters, x)
	}
	var closers []*agent.Reliable
	for _, x := range exporters {
		r, err := agent.NewReliable(x, agent.RetryOptions{SpillDir: *spill, SpillMax: *spillMax, Timeout: *timeout, Logger: log, Metrics: cfg.Metrics})
		if err != nil {
			errorf(e, *spill, err)
			return exitFailure
		}
		closers = append(closers, r)
		cfg.Exporters = append(cfg.Exporters, r)
	}
	var serveErr error
	lv := &live{l: &lf, exporters: cfg.Exporters, labels: cfg.Labels, log: log, metrics: cfg.Metrics}
	wait, err := lv.run(ctx)
	if err != nil {
		errorf(e, lf.watchDir, err)
		return exitFailure
	}
	if listen {
		srv, err := agent.NewServer(cfg)
		if err != nil {
			errorf(e, "", err)
			return exitUsage
		}
		if err := srv.Listen(); err != nil {
			errorf(e, cfg.Addr, err)
			return exitFailure
		}
		serveErr = srv.Serve(ctx) // returns on SIGINT/SIGTERM after flushing
	} else {
		<-ctx.Done()
	}
	wait()
	flush, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, r := range closers {
		r.Close(flush)
	}
	log.Info("exit", "metrics", cfg.Metrics.Snapshot())
	if serveErr != nil {
		errorf(e, "", serveErr)
		return exitFailure
	}
	return exitOK
}
