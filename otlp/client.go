package otlp

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	collectorpb "go.opentelemetry.io/proto/otlp/collector/profiles/v1development"
)

// Protocols a Client speaks.
const (
	ProtocolGRPC = "grpc"
	ProtocolHTTP = "http" // OTLP/HTTP with protobuf bodies
)

// HTTPPath is the OTLP/HTTP path for profiles.
const HTTPPath = "/v1development/profiles"

// Push errors, tested with errors.Is. Every error from Push also says
// which endpoint and how many attempts were made.
var (
	// ErrUsage means the client options are wrong (bad endpoint URL,
	// conflicting TLS settings).
	ErrUsage = errors.New("otlp: bad client options")
	// ErrRefused means the receiver refused the request with a
	// non-retryable status, or the connection failed in a way retrying
	// cannot fix (TLS against a plain-text receiver): nothing was
	// accepted.
	ErrRefused = errors.New("otlp: request refused")
	// ErrGaveUp means every attempt failed with a retryable error
	// (unreachable, unavailable, timed out) until the retry budget or
	// the context ran out: nothing is known to be accepted.
	ErrGaveUp = errors.New("otlp: gave up")
	// ErrPartial means the receiver accepted the request but reported
	// partial_success: some profiles were rejected.
	ErrPartial = errors.New("otlp: partially rejected")
)

// ClientOptions configure a Client.
type ClientOptions struct {
	// Endpoint is where to send: "host:port" or "grpc://host:port" for
	// gRPC; "http://host:port" or "https://host:port[/path]" for OTLP/HTTP
	// (path defaults to HTTPPath).
	Endpoint string
	// Protocol overrides the protocol the endpoint implies: ProtocolGRPC
	// or ProtocolHTTP.
	Protocol string
	// Insecure sends in plain text. Without it, gRPC and https use TLS
	// (system roots, or TLS below); an http:// endpoint is plain text
	// either way, as its scheme says.
	Insecure bool
	// TLS, when set, is the TLS configuration (custom roots, client
	// certificates).
	TLS *tls.Config
	// Headers are sent with every request (HTTP headers, gRPC metadata):
	// authentication tokens, tenant ids.
	Headers map[string]string
	// NoGzip sends uncompressed bodies.
	NoGzip bool
	// Timeout bounds each attempt; zero means DefaultTimeout.
	Timeout time.Duration
	// Retry is the retry policy; the zero value means DefaultRetry.
	Retry Retry
	// UserAgent is sent as User-Agent; optional.
	UserAgent string
}

// DefaultTimeout bounds one export attempt.
const DefaultTimeout = 10 * time.Second

// Result says what one Push did.
type Result struct {
	Protocol string // ProtocolGRPC or ProtocolHTTP
	Target   string // host:port or URL actually used
	Attempts int    // requests sent, retries included
	Profiles int    // profiles in the request
	Samples  int    // samples in the request
	// Answered is true when the receiver accepted the request (possibly
	// with partial_success).
	Answered bool
	// Rejected and Message are the receiver's partial_success.
	Rejected int64
	Message  string
}

// Accepted reports whether the receiver took every profile.
func (r Result) Accepted() bool { return r.Answered && r.Rejected == 0 && r.Message == "" }

// Client sends export requests to one OTLP endpoint.
type Client struct {
	opts     ClientOptions
	protocol string
	target   string // gRPC target or full HTTP URL
	tls      *tls.Config
	exp      exporter
}

// exporter sends one attempt. err is a *attemptError for failures the
// receiver answered, or any error for transport failures.
type exporter interface {
	export(ctx context.Context, req *collectorpb.ExportProfilesServiceRequest) (*collectorpb.ExportProfilesServiceResponse, error)
	close() error
}

// NewClient checks opts and prepares a client; it does not connect.
func NewClient(opts ClientOptions) (*Client, error) {
	c := &Client{opts: opts}
	if err := c.resolve(); err != nil {
		return nil, err
	}
	var err error
	switch c.protocol {
	case ProtocolGRPC:
		c.exp, err = newGRPC(c)
	default:
		c.exp = newHTTP(c)
	}
	if err != nil {
		return nil, err
	}
	return c, nil
}

// resolve works out protocol, target and TLS from the options.
func (c *Client) resolve() error {
	o := c.opts
	ep := strings.TrimSpace(o.Endpoint)
	if ep == "" {
		return fmt.Errorf("%w: no endpoint", ErrUsage)
	}
	scheme, rest := "", ep
	if i := strings.Index(ep, "://"); i >= 0 {
		scheme, rest = strings.ToLower(ep[:i]), ep[i+3:]
	}
	plain := o.Insecure
	switch scheme {
	case "", "grpc":
		c.protocol = ProtocolGRPC
	case "http":
		c.protocol = ProtocolHTTP
		plain = true
	case "https":
		c.protocol = ProtocolHTTP
		if o.Insecure {
			return fmt.Errorf("%w: endpoint %s asks for TLS but --insecure asks for plain text; use http://", ErrUsage, ep)
		}
	default:
		return fmt.Errorf("%w: endpoint %s: unknown scheme %q (want grpc://, http:// or https://)", ErrUsage, ep, scheme)
	}
	switch o.Protocol {
	case "":
	case ProtocolGRPC, ProtocolHTTP:
		c.protocol = o.Protocol
	default:
		return fmt.Errorf("%w: unknown protocol %q (want grpc or http)", ErrUsage, o.Protocol)
	}
	if !plain {
		c.tls = o.TLS
		if c.tls == nil {
			c.tls = &tls.Config{MinVersion: tls.VersionTLS12}
		}
	}
	if c.protocol == ProtocolGRPC {
		host := strings.TrimSuffix(rest, "/")
		if host == "" || strings.Contains(host, "/") {
			return fmt.Errorf("%w: gRPC endpoint %s: want host:port", ErrUsage, ep)
		}
		c.target = host
		return nil
	}
	if scheme == "" {
		ep = "http://" + ep // scheme fixed below
	}
	u, err := url.Parse(ep)
	if err != nil || u.Host == "" {
		return fmt.Errorf("%w: endpoint %s: not a URL with a host", ErrUsage, ep)
	}
	u.Scheme = "https"
	if plain {
		u.Scheme = "http"
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = HTTPPath
	}
	c.target = u.String()
	return nil
}

// Protocol is the protocol the client speaks.
func (c *Client) Protocol() string { return c.protocol }

// Target is the gRPC target or the HTTP URL the client sends to.
func (c *Client) Target() string { return c.target }

// Close releases the connection.
func (c *Client) Close() error { return c.exp.close() }

// Push sends req, retrying retryable failures with exponential backoff
// and jitter. A request the receiver accepted with partial_success
// returns the Result and an ErrPartial error; a refused request returns
// ErrRefused; when retries ran out, ErrGaveUp wraps the last failure.
func (c *Client) Push(ctx context.Context, req *collectorpb.ExportProfilesServiceRequest) (Result, error) {
	res := Result{Protocol: c.protocol, Target: c.target}
	for _, rp := range req.GetResourceProfiles() {
		for _, sp := range rp.GetScopeProfiles() {
			res.Profiles += len(sp.GetProfiles())
			for _, p := range sp.GetProfiles() {
				res.Samples += len(p.GetSamples())
			}
		}
	}
	timeout := c.opts.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	bo := c.opts.Retry.start()
	for {
		res.Attempts++
		actx, cancel := context.WithTimeout(ctx, timeout)
		resp, err := c.exp.export(actx, req)
		cancel()
		if err == nil {
			res.Answered = true
			ps := resp.GetPartialSuccess()
			res.Rejected, res.Message = ps.GetRejectedProfiles(), ps.GetErrorMessage()
			if res.Rejected != 0 || res.Message != "" {
				return res, fmt.Errorf("%w: %s: %d of %d profiles rejected: %s", ErrPartial, c.target, res.Rejected, res.Profiles, orNone(res.Message))
			}
			return res, nil
		}
		var ae *attemptError
		retryable, after := true, time.Duration(0) // transport failures are retryable
		if errors.As(err, &ae) {
			retryable, after = ae.retryable, ae.after
		} else if tlsProblem(err.Error()) {
			retryable = false
			err = fmt.Errorf("%w (TLS is the default: use --insecure or an http:// endpoint for a plain-text receiver)", err)
		} else if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			err = fmt.Errorf("no answer within %v (--timeout): %w", timeout, err)
		}
		if !retryable {
			return res, fmt.Errorf("%w by %s: %w", ErrRefused, c.target, err)
		}
		wait, ok := bo.next(after)
		if ctx.Err() != nil {
			return res, fmt.Errorf("%w on %s after %s: %w (last error: %v)", ErrGaveUp, c.target, plural(res.Attempts, "attempt"), ctx.Err(), err)
		}
		if !ok {
			return res, fmt.Errorf("%w on %s after %s: %w", ErrGaveUp, c.target, plural(res.Attempts, "attempt"), err)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return res, fmt.Errorf("%w on %s after %s: %w (last error: %v)", ErrGaveUp, c.target, plural(res.Attempts, "attempt"), ctx.Err(), err)
		case <-t.C:
		}
	}
}

// attemptError is a failure the receiver answered, classified.
type attemptError struct {
	retryable bool
	after     time.Duration // server-requested delay (Retry-After, RetryInfo)
	err       error
}

func (e *attemptError) Error() string { return e.err.Error() }
func (e *attemptError) Unwrap() error { return e.err }

func orNone(s string) string {
	if s == "" {
		return "(no message)"
	}
	return s
}

// tlsProblem reports whether a transport error message is about TLS
// (handshake, certificates, a plain-text server): retrying cannot help.
func tlsProblem(msg string) bool {
	for _, s := range []string{"tls:", "x509:", "authentication handshake failed", "HTTP response to HTTPS client"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// plural renders "1 attempt", "3 attempts".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
