package otlp_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	profilespb "go.opentelemetry.io/proto/otlp/profiles/v1development"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/internal/otelcoltest"
	"github.com/hprof2pprof/hprof2pprof/otlp"
)

// collector is a real OpenTelemetry Collector (v0.162.0, built by
// scripts/setup-otelcol.sh) listening on loopback, writing what it
// receives to a JSON-lines file.
type collector struct {
	GRPC, HTTP string // host:port
	out        string // file exporter output
	oc         *otelcoltest.Collector

	read     int        // bytes of out already decoded
	profiles []rProfile // every profile received so far, resolved
}

// moduleRoot is the directory holding go.mod.
func moduleRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test directory")
		}
		dir = parent
	}
}

// collectorBinary finds the collector: $OTELCOL_BIN, else the setup
// script's cache. Missing skips the test, or fails it when CI=true.
func collectorBinary(t testing.TB) string {
	t.Helper()
	bin, err := otelcoltest.Binary(moduleRoot(t))
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	return bin
}

// startCollector starts a collector for the test and stops it at cleanup.
func startCollector(t testing.TB) *collector {
	t.Helper()
	out := filepath.Join(t.TempDir(), "profiles.jsonl")
	oc, err := otelcoltest.Start(otelcoltest.Config{
		Bin: collectorBinary(t), Config: filepath.Join(moduleRoot(t), "otlp", "testdata", "otelcol-profiles.yaml"), Out: out,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(oc.Stop)
	return &collector{GRPC: oc.GRPC, HTTP: oc.HTTP, out: out, oc: oc}
}

// received polls the file exporter's output until it holds profiles of
// the given service, and returns those profiles resolved by the test's
// own reader. Every export's JSON is checked (indices, zero entries).
func (c *collector) received(t testing.TB, service string, want int) []rProfile {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		data, _ := os.ReadFile(c.out)
		for c.read < len(data) {
			nl := bytes.IndexByte(data[c.read:], '\n')
			if nl < 0 {
				break // a line still being written
			}
			line := data[c.read : c.read+nl]
			c.read += nl + 1
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			pd := &profilespb.ProfilesData{}
			if err := otlp.UnmarshalJSON(line, pd); err != nil {
				t.Fatalf("collector output line does not decode: %v", err)
			}
			c.profiles = append(c.profiles, resolve(t, pd)...)
		}
		var got []rProfile
		for _, p := range c.profiles {
			if p.Resource["service.name"] == service {
				got = append(got, p)
			}
		}
		if len(got) >= want {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("collector wrote %d of %d profiles for %s within 30s; log:\n%s", len(got), want, service, c.oc.Log(3000))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// sameProfiles compares what was sent with what arrived: every profile's
// type, view, totals, stacks (function names) and labels, and that no
// function, value or attribute went missing.
func sameProfiles(t testing.TB, sent, got []rProfile) {
	t.Helper()
	if len(got) != len(sent) {
		t.Fatalf("received %d profiles, sent %d", len(got), len(sent))
	}
	for i, s := range sent {
		g := got[i]
		name := fmt.Sprintf("%s %s/%s", s.Resource["file.name"], s.view(), s.Type)
		if g.view() != s.view() || g.Type != s.Type || g.Unit != s.Unit {
			t.Errorf("profile %d: received %s %s/%s, sent %s", i, g.view(), g.Type, g.Unit, name)
			continue
		}
		if g.total() != s.total() {
			t.Errorf("%s: total %d arrived, %d sent", name, g.total(), s.total())
		}
		if len(g.Samples) != len(s.Samples) {
			t.Errorf("%s: %d samples arrived, %d sent", name, len(g.Samples), len(s.Samples))
		}
		gk, sk := g.byKey(), s.byKey()
		for k, v := range sk {
			if gk[k] != v {
				t.Errorf("%s: %s arrived as %d, sent %d", name, k, gk[k], v)
			}
		}
		for j := range min(len(g.Samples), len(s.Samples)) {
			if a, b := strings.Join(g.Samples[j].Frames, "|"), strings.Join(s.Samples[j].Frames, "|"); a != b {
				t.Errorf("%s sample %d: frames arrived as %s, sent %s", name, j, a, b)
				break
			}
		}
		if g.Time != s.Time || g.Duration != s.Duration || g.Period != s.Period || g.PeriodType != s.PeriodType {
			t.Errorf("%s: time/duration/period %d/%d/%s %d arrived, %d/%d/%s %d sent", name,
				g.Time, g.Duration, g.PeriodType, g.Period, s.Time, s.Duration, s.PeriodType, s.Period)
		}
		if string(g.ID) != string(s.ID) || g.Format != s.Format {
			t.Errorf("%s: id %x format %q arrived, %x %q sent", name, g.ID, g.Format, s.ID, s.Format)
		}
		if labelString(g.Attrs) != labelString(s.Attrs) || labelString(g.Scope) != labelString(s.Scope) {
			t.Errorf("%s: attributes %v / scope %v arrived, %v / %v sent", name, g.Attrs, g.Scope, s.Attrs, s.Scope)
		}
	}
}

func pushClient(t testing.TB, opts otlp.ClientOptions) *otlp.Client {
	t.Helper()
	c, err := otlp.NewClient(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestCollectorPush(t *testing.T) {
	col := startCollector(t)
	for _, tc := range []struct {
		name string
		opts otlp.ClientOptions
	}{
		{"grpc", otlp.ClientOptions{Endpoint: col.GRPC, Insecure: true, Headers: map[string]string{"authorization": "Bearer t0ken"}}},
		{"grpc-nogzip", otlp.ClientOptions{Endpoint: "grpc://" + col.GRPC, Insecure: true, NoGzip: true}},
		{"http", otlp.ClientOptions{Endpoint: "http://" + col.HTTP, Headers: map[string]string{"X-Scope-OrgID": "tenant"}}},
		{"http-nogzip", otlp.ClientOptions{Endpoint: col.HTTP, Protocol: otlp.ProtocolHTTP, Insecure: true, NoGzip: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			service := "push-test-" + tc.name
			req, err := otlp.Build([]*graph.Graph{javaGraph()}, otlp.Options{ServiceName: service})
			if err != nil {
				t.Fatal(err)
			}
			sent := resolve(t, requestAsData(t, req))
			res, err := pushClient(t, tc.opts).Push(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Accepted() || res.Profiles != len(sent) {
				t.Errorf("result %+v: want accepted, %d profiles", res, len(sent))
			}
			sameProfiles(t, sent, col.received(t, service, len(sent)))
		})
	}
}
