package main

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"time"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/internal/batch"
	"github.com/hprof2pprof/hprof2pprof/otlp"
)

func init() {
	registerCommand(command{name: "push", summary: "send every view as OTLP profiles to an OpenTelemetry endpoint or a profile store such as Grafana Pyroscope (gRPC or HTTP)", run: runPush})
}

// headerFlag collects --header k=v, repeatable.
type headerFlag map[string]string

func (h headerFlag) String() string {
	var parts []string
	for k := range h {
		parts = append(parts, k+"=…")
	}
	return strings.Join(parts, ",")
}

func (h headerFlag) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	if k = strings.TrimSpace(k); !ok || k == "" {
		return fmt.Errorf("want key=value, got %q", s)
	}
	h[k] = v
	return nil
}

// pushFlags are the flags of every command that ships graphs over OTLP
// (push, capture): where to, how, and how the profiles are shaped for
// the backend. Register them with addPushFlags, check them with check,
// then ship each graph with shipGraph.
type pushFlags struct {
	Client      otlp.ClientOptions
	headers     headerFlag
	ServiceName string
	retryFor    time.Duration
	noRetry     bool
	compression string
	now         bool
	sampleAttrs listFlag
	maxSamples  int
	maxBytes    sizeFlag
	burst       sizeFlag
	rate        sizeFlag
}

// addPushFlags registers the push flags on fs.
func addPushFlags(fs *flag.FlagSet) *pushFlags {
	pf := &pushFlags{headers: headerFlag{}}
	lim := otlp.PyroscopeLimits
	pf.maxBytes.bytes, pf.burst.bytes, pf.rate.bytes = int64(lim.MaxBytes), int64(lim.Burst), int64(lim.Rate)
	fs.StringVar(&pf.Client.Endpoint, "endpoint", "", "where to send: host:port or grpc://host:port (OTLP/gRPC); http://host:port or https://host:port[/path] (OTLP/HTTP, path default "+otlp.HTTPPath+")")
	fs.StringVar(&pf.Client.Protocol, "protocol", "", "grpc or http (default: from the endpoint)")
	fs.BoolVar(&pf.Client.Insecure, "insecure", false, "plain text instead of TLS")
	fs.Var(pf.headers, "header", "header key=value sent with every request (repeatable), e.g. 'authorization=Bearer TOKEN', 'X-Scope-OrgID=TENANT'")
	fs.DurationVar(&pf.Client.Timeout, "timeout", otlp.DefaultTimeout, "time limit for one attempt")
	fs.DurationVar(&pf.retryFor, "retry-for", otlp.DefaultRetry.MaxElapsed, "keep retrying retryable failures (unreachable, unavailable, throttled) this long")
	fs.BoolVar(&pf.noRetry, "no-retry", false, "send once, never retry")
	fs.StringVar(&pf.compression, "compression", "gzip", "gzip or none")
	fs.StringVar(&pf.ServiceName, "service-name", "", "service.name on the profiles (default: the input's base name)")
	fs.BoolVar(&pf.now, "now", false, "stamp the profiles with the time of the push, keeping the input's own time as the attribute "+otlp.AttrTime+" (backends refuse profiles older than their ingestion window: Pyroscope and Grafana Cloud take the last hour)")
	fs.Var(&pf.sampleAttrs, "sample-attrs", "labels to send as sample attributes besides thread state and Android heap: thread, class, monitor, or all (each distinct set is a stored series in Pyroscope)")
	fs.IntVar(&pf.maxSamples, "max-profile-samples", lim.MaxSamples, "split a view whose profiles would hold more samples (0: no limit; Pyroscope's default limit)")
	fs.Var(&pf.maxBytes, "max-profile-bytes", "split a view whose profiles would be larger as the backend stores them: 4MiB, 0 (no limit) (Pyroscope's default limit)")
	fs.Var(&pf.burst, "max-request-bytes", "split a view whose request would be larger, as the backend's rate limiter counts it: 2MiB, 0 (no limit) (Pyroscope's default burst)")
	fs.Var(&pf.rate, "rate", "bytes per second to send at most, as the backend's rate limiter counts them: 4MiB, 0 (no pacing) (Pyroscope's default per-tenant rate)")
	return pf
}

// check validates the flags and completes the client options.
func (pf *pushFlags) check() error {
	if pf.Client.Endpoint == "" {
		return fmt.Errorf("%w: needs --endpoint", errUsage)
	}
	switch pf.compression {
	case "gzip":
	case "none":
		pf.Client.NoGzip = true
	default:
		return fmt.Errorf("%w: --compression must be gzip or none, not %q", errUsage, pf.compression)
	}
	if pf.Client.Timeout <= 0 || pf.retryFor < 0 {
		return fmt.Errorf("%w: --timeout must be positive and --retry-for not negative", errUsage)
	}
	if pf.maxSamples < 0 || pf.maxBytes.auto || pf.burst.auto || pf.rate.auto {
		return fmt.Errorf("%w: --max-profile-samples, --max-profile-bytes, --max-request-bytes and --rate take a number (0: no limit)", errUsage)
	}
	for _, a := range pf.sampleAttrs {
		switch a {
		case "all", graph.LabelThread, graph.LabelClass, graph.LabelMonitor, graph.LabelState, graph.LabelHeap:
		default:
			return fmt.Errorf("%w: --sample-attrs: unknown label %q (want thread, class, monitor, state, heap or all)", errUsage, a)
		}
	}
	pf.Client.Headers = pf.headers
	pf.Client.Retry = otlp.Retry{MaxElapsed: pf.retryFor, Disabled: pf.noRetry || pf.retryFor == 0}
	if pf.Client.UserAgent == "" {
		pf.Client.UserAgent = "hprof2pprof"
	}
	return nil
}

// Limits are the limits the flags set.
func (pf *pushFlags) Limits() otlp.Limits {
	return otlp.Limits{MaxSamples: pf.maxSamples, MaxBytes: int(pf.maxBytes.bytes), Burst: int(pf.burst.bytes), Rate: int(pf.rate.bytes)}
}

// Options are the otlp build options the flags set, stamped with now
// when --now was given.
func (pf *pushFlags) Options(now time.Time) otlp.Options {
	st := &otlp.StoreOptions{SampleAttrs: pf.sampleAttrs}
	if pf.now {
		st.Now = now
	}
	return otlp.Options{ServiceName: pf.ServiceName, Store: st}
}

// shipper sends graphs with one client, pacing all requests together.
type shipper struct {
	pf     *pushFlags
	client *otlp.Client
	pacer  *otlp.Pacer
}

// newShipper connects the client the flags describe.
func newShipper(pf *pushFlags) (*shipper, error) {
	c, err := otlp.NewClient(pf.Client)
	if err != nil {
		return nil, err
	}
	return &shipper{pf: pf, client: c, pacer: otlp.NewPacer(pf.Limits())}, nil
}

func (s *shipper) Close() error { return s.client.Close() }

// shipGraph sends the named views of g (every view when none), one
// request per view (more for a view split to fit the limits), with
// attrs added to the resource, reports each view on stderr, and returns
// the exit status for this input: 0 when every view was stored, 3 when
// some were (or the input was damaged), 1 when none was.
func (s *shipper) shipGraph(ctx context.Context, e *env, in string, g *graph.Graph, views []string, attrs []*commonpb.KeyValue, quiet bool) int {
	opts := s.pf.Options(time.Now())
	opts.ResourceAttrs = attrs
	parts, err := otlp.Split(g, views, opts, s.pf.Limits())
	if err == nil {
		for _, p := range parts {
			if err = otlp.Validate(p.Req); err != nil {
				break
			}
		}
	}
	if err != nil {
		errorf(e, in, err)
		return exitFailure
	}
	results := otlp.Ship(ctx, s.client, parts, s.pacer)
	return reportViews(e, in, g, results, quiet)
}

// viewOutcome gathers the parts of one view.
type viewOutcome struct {
	name                       string
	parts, stored              int
	profiles, samples, attempt int
	errs                       []string
}

// reportViews prints one line per view and a summary, and says the
// exit status.
func reportViews(e *env, in string, g *graph.Graph, results []otlp.PartResult, quiet bool) int {
	var views []*viewOutcome
	byName := map[string]*viewOutcome{}
	var target, protocol string
	for _, r := range results {
		v := byName[r.View]
		if v == nil {
			v = &viewOutcome{name: r.View}
			byName[r.View] = v
			views = append(views, v)
		}
		v.parts++
		v.attempt += r.Result.Attempts
		target, protocol = r.Result.Target, r.Result.Protocol
		if r.Stored() {
			v.stored++
			v.profiles += r.Profiles
			v.samples += r.Samples
			continue
		}
		v.errs = append(v.errs, strings.TrimPrefix(r.Err.Error(), "otlp: "))
	}
	var stored, failed []string
	for _, v := range views {
		if v.stored == v.parts {
			stored = append(stored, v.name)
			if !quiet {
				fmt.Fprintf(e.stderr, "  view %s: stored, %d profiles, %d samples in %s (%s)\n", v.name, v.profiles, v.samples, plural(v.parts, "request"), attempts(v.attempt))
			}
			continue
		}
		failed = append(failed, v.name)
		what := "not stored"
		if v.stored > 0 {
			what = fmt.Sprintf("%d of %d requests stored (%d profiles, %d samples), the rest not", v.stored, v.parts, v.profiles, v.samples)
		}
		errorf(e, in, fmt.Errorf("view %s: %s: %s", v.name, what, strings.Join(v.errs, "; ")))
	}
	code := exitOK
	switch {
	case len(stored) == 0:
		return exitFailure
	case len(failed) > 0:
		errorf(e, in, fmt.Errorf("stored views %s; not stored: %s", strings.Join(stored, ", "), strings.Join(failed, ", ")))
		code = exitPartial
	case !quiet:
		fmt.Fprintf(e.stderr, "pushed %s: views %s to %s over %s\n", in, strings.Join(stored, ", "), target, protocol)
	}
	if g.Damage != nil {
		errorf(e, in, fmt.Errorf("partial input, pushed what was read: %s", g.Lost))
		code = exitPartial
	}
	return code
}

// runPush decodes each input and ships its views. Exit status: 0 when
// every view of every input was stored, 1 when an input could not be
// read or none of its views was stored, 2 usage, 3 when some views were
// stored and others not, or an input was damaged.
func runPush(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet("push", "--endpoint URL INPUT...", e.stderr)
	var df decodeFlags
	df.add(fs)
	df.addNames(fs)
	pf := addPushFlags(fs)
	inputs, code := df.parse(e, fs, args)
	if code >= 0 {
		return code
	}
	if err := pf.check(); err != nil {
		usageError(e.stderr, "push", strings.TrimPrefix(err.Error(), errUsage.Error()+": "))
		return exitUsage
	}
	if len(inputs) == 0 {
		usageError(e.stderr, "push", "no input: name the files to push, or - for standard input")
		return exitUsage
	}
	s, err := newShipper(pf)
	if err != nil {
		errorf(e, "", err)
		return exitUsage
	}
	defer s.Close()
	code = exitOK
	for _, in := range inputs {
		code = worse(code, pushInput(ctx, e, s, in, &df))
	}
	return code
}

// pushInput decodes one input and ships the views asked for.
func pushInput(ctx context.Context, e *env, s *shipper, in string, df *decodeFlags) int {
	if ctx.Err() != nil {
		errorf(e, in, fmt.Errorf("not sent: %w", ctx.Err()))
		return exitFailure
	}
	g, err := decode(ctx, e, in, df)
	if err != nil {
		errorf(e, in, err)
		return exitFailure
	}
	views := batch.SelectViews(g, df.views)
	if len(views) == 0 {
		errorf(e, in, fmt.Errorf("no %s view in this input (it has: %s)", strings.Join(df.views, ", "), strings.Join(batch.ViewNames(g), ", ")))
		return exitFailure
	}
	return s.shipGraph(ctx, e, in, g, views, nil, df.quiet)
}

// worse combines exit statuses: the first failure (any status but ok
// and partial: capture has several) is kept, else partial, else ok.
func worse(code, c int) int {
	if code != exitOK && code != exitPartial || c == exitOK {
		return code
	}
	return c
}

func attempts(n int) string {
	if n == 1 {
		return "1 attempt"
	}
	return fmt.Sprintf("%d attempts", n)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
