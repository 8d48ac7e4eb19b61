package otlp_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	collectorpb "go.opentelemetry.io/proto/otlp/collector/profiles/v1development"
	"google.golang.org/protobuf/proto"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/internal/otelcoltest"
	"github.com/hprof2pprof/hprof2pprof/otlp"
)

// quickRetry keeps failing tests short: a few attempts within a second.
var quickRetry = otlp.Retry{Initial: 20 * time.Millisecond, Max: 100 * time.Millisecond, MaxElapsed: time.Second}

func smallRequest(t testing.TB) *collectorpb.ExportProfilesServiceRequest {
	t.Helper()
	req, err := otlp.Build([]*graph.Graph{javaGraph()}, otlp.Options{Views: []string{"threads"}})
	if err != nil {
		t.Fatal(err)
	}
	return req
}

func TestClientOptions(t *testing.T) {
	for _, c := range []struct {
		opts           otlp.ClientOptions
		proto, target  string
		wantErrContain string
	}{
		{opts: otlp.ClientOptions{Endpoint: "localhost:4317"}, proto: "grpc", target: "localhost:4317"},
		{opts: otlp.ClientOptions{Endpoint: "grpc://collector:4317/"}, proto: "grpc", target: "collector:4317"},
		{opts: otlp.ClientOptions{Endpoint: "http://localhost:4318"}, proto: "http", target: "http://localhost:4318/v1development/profiles"},
		{opts: otlp.ClientOptions{Endpoint: "https://otlp.example.com/custom/path"}, proto: "http", target: "https://otlp.example.com/custom/path"},
		{opts: otlp.ClientOptions{Endpoint: "otlp.example.com:443", Protocol: "http"}, proto: "http", target: "https://otlp.example.com:443/v1development/profiles"},
		{opts: otlp.ClientOptions{Endpoint: "localhost:4318", Protocol: "http", Insecure: true}, proto: "http", target: "http://localhost:4318/v1development/profiles"},
		{opts: otlp.ClientOptions{Endpoint: ""}, wantErrContain: "no endpoint"},
		{opts: otlp.ClientOptions{Endpoint: "ftp://x:1"}, wantErrContain: "unknown scheme"},
		{opts: otlp.ClientOptions{Endpoint: "https://x:1", Insecure: true}, wantErrContain: "asks for TLS"},
		{opts: otlp.ClientOptions{Endpoint: "x:1", Protocol: "udp"}, wantErrContain: "unknown protocol"},
		{opts: otlp.ClientOptions{Endpoint: "grpc://x:1/v1/path"}, wantErrContain: "want host:port"},
	} {
		cl, err := otlp.NewClient(c.opts)
		if c.wantErrContain != "" {
			if !errors.Is(err, otlp.ErrUsage) || !strings.Contains(err.Error(), c.wantErrContain) {
				t.Errorf("%+v: %v, want ErrUsage with %q", c.opts, err, c.wantErrContain)
			}
			continue
		}
		if err != nil {
			t.Errorf("%+v: %v", c.opts, err)
			continue
		}
		if cl.Protocol() != c.proto || cl.Target() != c.target {
			t.Errorf("%+v: %s %s, want %s %s", c.opts, cl.Protocol(), cl.Target(), c.proto, c.target)
		}
		cl.Close()
	}
}

// closedPort is a loopback port nothing listens on.
func closedPort(t testing.TB) string {
	t.Helper()
	p, err := otelcoltest.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPushUnreachable(t *testing.T) {
	addr := closedPort(t)
	for _, ep := range []string{addr, "http://" + addr} {
		c := pushClient(t, otlp.ClientOptions{Endpoint: ep, Insecure: true, Retry: quickRetry})
		res, err := c.Push(context.Background(), smallRequest(t))
		if !errors.Is(err, otlp.ErrGaveUp) || res.Accepted() {
			t.Fatalf("%s: %v (result %+v), want ErrGaveUp", ep, err, res)
		}
		if res.Attempts < 2 {
			t.Errorf("%s: %d attempts, want retries", ep, res.Attempts)
		}
		if !strings.Contains(err.Error(), "refused") {
			t.Errorf("%s: error %q does not say the connection was refused", ep, err)
		}
	}
}

// TestPushTimeout sends to a socket that accepts but never answers.
func TestPushTimeout(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			go func() { io.Copy(io.Discard, conn); conn.Close() }()
		}
	}()
	for _, ep := range []string{l.Addr().String(), "http://" + l.Addr().String()} {
		c := pushClient(t, otlp.ClientOptions{Endpoint: ep, Insecure: true, Timeout: 200 * time.Millisecond,
			Retry: otlp.Retry{Initial: 10 * time.Millisecond, MaxElapsed: 500 * time.Millisecond}})
		res, err := c.Push(context.Background(), smallRequest(t))
		if !errors.Is(err, otlp.ErrGaveUp) || res.Accepted() {
			t.Fatalf("%s: %v, want ErrGaveUp", ep, err)
		}
		if !strings.Contains(err.Error(), "no answer") && !strings.Contains(err.Error(), "deadline") {
			t.Errorf("%s: error %q does not say it timed out", ep, err)
		}
	}
}

// TestPushRefusedByCollector: a real Collector answers 404 for a wrong
// OTLP/HTTP path; that is permanent, so no retry.
func TestPushRefusedByCollector(t *testing.T) {
	col := startCollector(t)
	c := pushClient(t, otlp.ClientOptions{Endpoint: "http://" + col.HTTP + "/v1/profilez", Retry: quickRetry})
	res, err := c.Push(context.Background(), smallRequest(t))
	if !errors.Is(err, otlp.ErrRefused) || res.Attempts != 1 {
		t.Fatalf("%v after %d attempts, want ErrRefused after 1", err, res.Attempts)
	}
	if !strings.Contains(err.Error(), "404") {
		t.Errorf("error %q does not name the status", err)
	}
}

// TestPushTLSByDefault: without --insecure the client speaks TLS, which a
// plain-text Collector cannot answer; the error must say so.
func TestPushTLSByDefault(t *testing.T) {
	col := startCollector(t)
	for _, ep := range []string{col.GRPC, "https://" + col.HTTP} {
		c := pushClient(t, otlp.ClientOptions{Endpoint: ep, Retry: quickRetry})
		_, err := c.Push(context.Background(), smallRequest(t))
		if err == nil {
			t.Fatalf("%s: TLS push to a plain-text receiver succeeded", ep)
		}
		if !strings.Contains(err.Error(), "--insecure") || !errors.Is(err, otlp.ErrRefused) {
			t.Errorf("%s: error %q should be refused at once and point to --insecure", ep, err)
		}
	}
}

// The Collector never reports partial success nor asks to retry later, so
// these two cases use a small HTTP server speaking the OTLP/HTTP answers.

func TestPushPartialSuccess(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := proto.Marshal(&collectorpb.ExportProfilesServiceResponse{PartialSuccess: &collectorpb.ExportProfilesPartialSuccess{
			RejectedProfiles: 1, ErrorMessage: "profile too old",
		}})
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.Write(b)
	}))
	defer srv.Close()
	c := pushClient(t, otlp.ClientOptions{Endpoint: srv.URL})
	res, err := c.Push(context.Background(), smallRequest(t))
	if !errors.Is(err, otlp.ErrPartial) || res.Accepted() || res.Rejected != 1 || res.Message != "profile too old" {
		t.Fatalf("%v, result %+v: want ErrPartial with 1 rejected", err, res)
	}
	if !strings.Contains(err.Error(), "1 of 1 profiles rejected: profile too old") {
		t.Errorf("error %q", err)
	}
}

func TestPushRetriesThenSucceeds(t *testing.T) {
	var calls atomic.Int32
	var gotGzip, gotHeader atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotGzip.Store(r.Header.Get("Content-Encoding") == "gzip")
		gotHeader.Store(r.Header.Get("Authorization") == "Bearer x")
		if calls.Add(1) < 3 {
			w.Header().Set("Retry-After", "0")
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer srv.Close()
	c := pushClient(t, otlp.ClientOptions{Endpoint: srv.URL, Retry: quickRetry, Headers: map[string]string{"Authorization": "Bearer x"}})
	res, err := c.Push(context.Background(), smallRequest(t))
	if err != nil || !res.Accepted() || res.Attempts != 3 {
		t.Fatalf("%v, result %+v: want success on the 3rd attempt", err, res)
	}
	if !gotGzip.Load() || !gotHeader.Load() {
		t.Errorf("gzip %v, header %v: want both", gotGzip.Load(), gotHeader.Load())
	}
}
