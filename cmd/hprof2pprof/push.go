package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hprof2pprof/hprof2pprof/otlp"
)

func init() {
	registerCommand(command{name: "push", summary: "send every view as OTLP profiles to an OpenTelemetry endpoint (gRPC or HTTP)", run: runPush})
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

// runPush decodes each input and sends it as one OTLP request: a
// resource for the input, a scope per view, a profile per sample type.
// Exit status: 0 when the receiver accepted everything, 1 when anything
// was not sent or was rejected (partial_success counts), 2 usage, 3 when
// every push was accepted but an input was damaged.
func runPush(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet("push", "--endpoint URL INPUT...", e.stderr)
	var df decodeFlags
	df.add(fs)
	headers := headerFlag{}
	var (
		o           otlp.ClientOptions
		serviceName string
		retryFor    time.Duration
		noRetry     bool
		compression string
	)
	fs.StringVar(&o.Endpoint, "endpoint", "", "where to send: host:port or grpc://host:port (OTLP/gRPC); http://host:port or https://host:port[/path] (OTLP/HTTP, path default "+otlp.HTTPPath+")")
	fs.StringVar(&o.Protocol, "protocol", "", "grpc or http (default: from the endpoint)")
	fs.BoolVar(&o.Insecure, "insecure", false, "plain text instead of TLS")
	fs.Var(headers, "header", "header key=value sent with every request (repeatable), e.g. 'authorization=Bearer TOKEN'")
	fs.DurationVar(&o.Timeout, "timeout", otlp.DefaultTimeout, "time limit for one attempt")
	fs.DurationVar(&retryFor, "retry-for", otlp.DefaultRetry.MaxElapsed, "keep retrying retryable failures (unreachable, unavailable, throttled) this long")
	fs.BoolVar(&noRetry, "no-retry", false, "send once, never retry")
	fs.StringVar(&compression, "compression", "gzip", "gzip or none")
	fs.StringVar(&serviceName, "service-name", "", "service.name on the profiles (default: the input's base name)")
	inputs, ok := df.parse(e, fs, args)
	if !ok {
		return exitUsage
	}
	if o.Endpoint == "" || len(inputs) == 0 {
		if o.Endpoint == "" {
			errorf(e, "", errors.New("push needs --endpoint"))
		}
		fs.Usage()
		return exitUsage
	}
	switch compression {
	case "gzip":
	case "none":
		o.NoGzip = true
	default:
		errorf(e, "", fmt.Errorf("--compression must be gzip or none, not %q", compression))
		return exitUsage
	}
	if o.Timeout <= 0 || retryFor < 0 {
		errorf(e, "", errors.New("--timeout must be positive and --retry-for not negative"))
		return exitUsage
	}
	o.Headers = headers
	o.Retry = otlp.Retry{MaxElapsed: retryFor, Disabled: noRetry || retryFor == 0}
	o.UserAgent = "hprof2pprof"
	client, err := otlp.NewClient(o)
	if err != nil {
		errorf(e, "", err)
		return exitUsage
	}
	defer client.Close()

	code := exitOK
	worse := func(c int) {
		if c == exitFailure || (c == exitPartial && code == exitOK) {
			code = c
		}
	}
	for _, in := range inputs {
		if ctx.Err() != nil {
			errorf(e, in, fmt.Errorf("not sent: %w", ctx.Err()))
			worse(exitFailure)
			continue
		}
		g, err := decode(ctx, e, in, &df)
		if err != nil {
			errorf(e, in, err)
			worse(exitFailure)
			continue
		}
		views := selectViews(g, df.views)
		if len(views) == 0 {
			errorf(e, in, fmt.Errorf("no %s view in this input (it has: %s)", strings.Join(df.views, ", "), strings.Join(viewNames(g), ", ")))
			worse(exitFailure)
			continue
		}
		b := otlp.NewBuilder(otlp.Options{ServiceName: serviceName})
		if err := b.Add(g, views); err != nil {
			errorf(e, in, err)
			worse(exitFailure)
			continue
		}
		req := b.Request()
		if err := otlp.Validate(req); err != nil {
			errorf(e, in, err)
			worse(exitFailure)
			continue
		}
		res, err := client.Push(ctx, req)
		if err != nil {
			errorf(e, in, fmt.Errorf("%s (views %s)", strings.TrimPrefix(err.Error(), "otlp: "), strings.Join(views, ", ")))
			worse(exitFailure)
			continue
		}
		if !df.quiet {
			fmt.Fprintf(e.stderr, "pushed %s: views %s, %d profiles, %d samples to %s over %s (%s)\n",
				in, strings.Join(views, ", "), res.Profiles, res.Samples, res.Target, res.Protocol, attempts(res.Attempts))
		}
		if g.Damage != nil {
			errorf(e, in, fmt.Errorf("partial input, pushed what was read: %s", g.Lost))
			worse(exitPartial)
		}
	}
	return code
}

func attempts(n int) string {
	if n == 1 {
		return "1 attempt"
	}
	return fmt.Sprintf("%d attempts", n)
}
