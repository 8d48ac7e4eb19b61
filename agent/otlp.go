package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"slices"
	"strconv"
	"time"

	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/otlp"
)

// ErrRejected marks an export error that trying again cannot fix (the
// backend refused the window as malformed or unauthorised, or the window
// cannot be encoded): Reliable neither retries nor spills such a window.
var ErrRejected = errors.New("agent: window rejected")

// Resource attributes the OTLP exporter puts on every window, besides
// the otlp package's own and the --label pairs.
const (
	AttrWindow = "hprof.agent.window" // the window's number on its connection
)

// OTLPOptions configure an OTLP exporter.
type OTLPOptions struct {
	// Client says where and how to push. Its Retry is ignored: the
	// client sends once, and Reliable does the retrying and spilling.
	Client otlp.ClientOptions
	// ServiceName is service.name on every window; empty means the otlp
	// package's default. A --label service.name=… overrides it.
	ServiceName string
	// Version is the scope version; optional.
	Version string
	Logger  *slog.Logger
	// SampleAttrs are the labels kept as sample attributes besides the
	// bounded ones (see otlp.StoreOptions).
	SampleAttrs []string
	// Limits bound each request (a view, or part of one) and pace them;
	// the zero value means otlp.PyroscopeLimits.
	Limits *otlp.Limits
	// Now stamps each window's profiles with the time of its export
	// instead of the JVM's clock (a replayed stream, a JVM whose clock is
	// off), keeping the JVM's time as an attribute.
	Now bool
}

// OTLP pushes each window as one export request shaped for profile
// stores (otlp.StoreOptions): one resource naming the JVM, a scope per
// view, a profile per sample type, with the window's start and length as
// the profiles' time and duration. A window too large for the limits
// goes as a request per view, a view too large in parts.
type OTLP struct {
	c     *otlp.Client
	o     OTLPOptions
	lim   otlp.Limits
	pacer *otlp.Pacer
	log   *slog.Logger
}

var _ Exporter = (*OTLP)(nil)

// NewOTLP checks the client options; it does not connect yet.
func NewOTLP(o OTLPOptions) (*OTLP, error) {
	o.Client.Retry = otlp.Retry{Disabled: true}
	if o.Client.UserAgent == "" {
		o.Client.UserAgent = "hprof2pprof-agent"
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	c, err := otlp.NewClient(o.Client)
	if err != nil {
		return nil, err
	}
	lim := otlp.PyroscopeLimits
	if o.Limits != nil {
		lim = *o.Limits
	}
	return &OTLP{c: c, o: o, lim: lim, pacer: otlp.NewPacer(lim), log: o.Logger.With("exporter", "otlp")}, nil
}

// Name is "otlp".
func (e *OTLP) Name() string { return "otlp" }

// Target is the gRPC target or HTTP URL pushed to.
func (e *OTLP) Target() string { return e.c.Target() }

// Close releases the client's connection.
func (e *OTLP) Close() error { return e.c.Close() }

// Export builds and pushes one window (see OTLP). A view the
// backend refused as invalid, or accepted in part, is logged and not
// sent again: sending it again would be refused again, or duplicate
// what was taken. When a view could not be delivered for a reason that
// may pass (unreachable, unavailable) and no view was delivered, the
// error asks Reliable to retry or spill the window; once some view was
// delivered, the rest is logged instead.
func (e *OTLP) Export(ctx context.Context, w *Window) error {
	attrs := windowAttrs(w)
	if e.o.ServiceName != "" {
		// --service-name wins over the JVM's own name; a label still wins over both.
		attrs = slices.DeleteFunc(attrs, func(kv *commonpb.KeyValue) bool {
			return kv.Key == string(semconv.ServiceNameKey) && w.Attrs[kv.Key] == ""
		})
	}
	opts := otlp.Options{
		ServiceName: e.o.ServiceName, Version: e.o.Version, ResourceAttrs: attrs,
		Store: &otlp.StoreOptions{SampleAttrs: e.o.SampleAttrs},
	}
	if e.o.Now {
		opts.Store.Now = time.Now()
	}
	parts, err := otlp.Split(w.Graph, nil, opts, e.lim)
	if err == nil {
		parts, err = e.whole(w, parts, opts)
	}
	if err == nil {
		for _, p := range parts {
			if err = otlp.Validate(p.Req); err != nil {
				break
			}
		}
	}
	if err != nil {
		return fmt.Errorf("%w: %w", ErrRejected, err)
	}
	var delivered int
	var retry, refused error
	for _, r := range otlp.Ship(ctx, e.c, parts, e.pacer) {
		switch {
		case r.Err == nil || errors.Is(r.Err, otlp.ErrPartial):
			delivered++
			if r.Err != nil {
				e.log.Warn("backend rejected part of a view", "jvm", w.JVM, "window", w.Seq, "view", r.View,
					"rejected_profiles", r.Result.Rejected, "of", r.Result.Profiles, "message", r.Result.Message)
			}
		case errors.Is(r.Err, otlp.ErrRefused):
			refused = r.Err
			e.log.Warn("backend refused a view", "jvm", w.JVM, "window", w.Seq, "view", r.View, "err", r.Err)
		default:
			retry = r.Err
			e.log.Debug("view not delivered", "jvm", w.JVM, "window", w.Seq, "view", r.View, "err", r.Err)
		}
	}
	switch {
	case delivered == 0 && retry != nil:
		return fmt.Errorf("%w: %w", ErrExport, retry)
	case delivered == 0 && refused != nil:
		return fmt.Errorf("%w: %w", ErrRejected, refused)
	case retry != nil:
		e.log.Warn("window delivered in part; the rest is not sent again, to avoid duplicates", "jvm", w.JVM, "window", w.Seq, "err", retry)
	}
	return nil
}

// whole makes the parts of a window one request when every view fits in
// one part and together they stay under the request limit: a window is
// small, and one request per window keeps the backend's work per window
// at one push.
func (e *OTLP) whole(w *Window, parts []otlp.Part, opts otlp.Options) ([]otlp.Part, error) {
	total := 0
	for _, p := range parts {
		if p.Count > 1 {
			return parts, nil
		}
		total += p.Bytes
	}
	if len(parts) < 2 || (e.lim.Burst > 0 && total > e.lim.Burst) {
		return parts, nil
	}
	req, err := otlp.Build([]*graph.Graph{w.Graph}, opts)
	if err != nil {
		return nil, err
	}
	one := otlp.Part{Source: w.JVM, View: "window", Index: 1, Count: 1, Bytes: total, Req: req}
	for _, p := range parts {
		one.Profiles += p.Profiles
		one.Samples += p.Samples
	}
	return []otlp.Part{one}, nil
}

// windowAttrs are the resource attributes that identify the JVM and the
// window: service.instance.id (the JVM name of the pprof directories),
// the peer address and port, the JVM's start time (its stream header),
// the window number, and the labels.
func windowAttrs(w *Window) []*commonpb.KeyValue {
	attrs := []*commonpb.KeyValue{str(string(semconv.ServiceInstanceIDKey), w.JVM)}
	if host, port, err := net.SplitHostPort(w.Remote); err == nil {
		attrs = append(attrs, str(string(semconv.NetworkPeerAddressKey), host))
		if p, err := strconv.Atoi(port); err == nil {
			attrs = append(attrs, num(string(semconv.NetworkPeerPortKey), int64(p)))
		}
	} else if w.Remote != "" {
		attrs = append(attrs, str(string(semconv.NetworkPeerAddressKey), w.Remote))
	}
	if w.JVMInfo != nil {
		attrs = append(attrs, w.JVMInfo.Attributes()...)
	} else if t := w.Graph.Source.Time; !t.IsZero() {
		attrs = append(attrs, str(string(semconv.ProcessCreationTimeKey), t.UTC().Format(time.RFC3339Nano)))
	}
	attrs = append(attrs, num(AttrWindow, int64(w.Seq)))
	for _, k := range slices.Sorted(maps.Keys(w.IntAttrs)) {
		attrs = append(attrs, num(k, w.IntAttrs[k]))
	}
	for _, k := range slices.Sorted(maps.Keys(w.Attrs)) {
		attrs = append(attrs, str(k, w.Attrs[k]))
	}
	return lastWins(attrs)
}

// lastWins drops every attribute that a later one of the same key
// replaces, keeping the order of the rest.
func lastWins(attrs []*commonpb.KeyValue) []*commonpb.KeyValue {
	last := map[string]int{}
	for i, kv := range attrs {
		last[kv.Key] = i
	}
	out := attrs[:0]
	for i, kv := range attrs {
		if last[kv.Key] == i {
			out = append(out, kv)
		}
	}
	return out
}

func str(k, v string) *commonpb.KeyValue {
	return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v}}}
}

func num(k string, v int64) *commonpb.KeyValue {
	return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: v}}}
}
