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
}

// OTLP pushes each window as one export request: one resource naming
// the JVM, a scope per view, a profile per sample type, with the window's
// start and length as the profiles' time and duration.
type OTLP struct {
	c   *otlp.Client
	o   OTLPOptions
	log *slog.Logger
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
	return &OTLP{c: c, o: o, log: o.Logger.With("exporter", "otlp")}, nil
}

// Name is "otlp".
func (e *OTLP) Name() string { return "otlp" }

// Target is the gRPC target or HTTP URL pushed to.
func (e *OTLP) Target() string { return e.c.Target() }

// Close releases the client's connection.
func (e *OTLP) Close() error { return e.c.Close() }

// Export builds and pushes one window. A request the backend accepted
// with some profiles rejected (partial success) counts as delivered and
// is logged: sending it again would duplicate what was taken.
func (e *OTLP) Export(ctx context.Context, w *Window) error {
	attrs := windowAttrs(w)
	if e.o.ServiceName != "" {
		// --service-name wins over the JVM's own name; a label still wins over both.
		attrs = slices.DeleteFunc(attrs, func(kv *commonpb.KeyValue) bool {
			return kv.Key == string(semconv.ServiceNameKey) && w.Attrs[kv.Key] == ""
		})
	}
	req, err := otlp.Build([]*graph.Graph{w.Graph}, otlp.Options{
		ServiceName: e.o.ServiceName, Version: e.o.Version, ResourceAttrs: attrs,
	})
	if err == nil {
		err = otlp.Validate(req)
	}
	if err != nil {
		return fmt.Errorf("%w: %w", ErrRejected, err)
	}
	res, err := e.c.Push(ctx, req)
	switch {
	case errors.Is(err, otlp.ErrPartial):
		e.log.Warn("backend rejected part of a window", "jvm", w.JVM, "window", w.Seq,
			"rejected_profiles", res.Rejected, "of", res.Profiles, "message", res.Message)
		return nil
	case errors.Is(err, otlp.ErrRefused):
		return fmt.Errorf("%w: %w", ErrRejected, err)
	case err != nil:
		return fmt.Errorf("%w: %w", ErrExport, err)
	}
	return nil
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
