package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	profilespb "go.opentelemetry.io/proto/otlp/profiles/v1development"

	"github.com/hprof2pprof/hprof2pprof/convert"
	"github.com/hprof2pprof/hprof2pprof/internal/otelcoltest"
	"github.com/hprof2pprof/hprof2pprof/otlp"
	"github.com/hprof2pprof/hprof2pprof/pprofout"
)

// End-to-end tests of `convert --format otlp` and `push`: real inputs,
// a real Collector, and pprofout's profiles of the same inputs as the
// independent numbers.

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func otlpFixtures(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, f := range []string{"cpu-samples.cpuwork.jdk17.hprof", "heap-sites.allocwork.jdk17.hprof", "jdk25-zoo-live.hprof.gz"} {
		out = append(out, filepath.Join(repoRoot(t), "testdata", f))
	}
	return out
}

func runOTLPCLI(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr})
	return code, stderr.String()
}

// pprofTotals is, per "file view/type", the total pprofout writes.
func pprofTotals(t *testing.T, inputs []string) map[string]int64 {
	t.Helper()
	want := map[string]int64{}
	for _, in := range inputs {
		g, err := convert.ConvertFile(context.Background(), in, convert.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range g.Views {
			p, err := pprofout.Profile(g, v.Name)
			if err != nil {
				t.Fatal(err)
			}
			for i, st := range p.SampleType {
				var n int64
				for _, s := range p.Sample {
					n += s.Value[i]
				}
				want[fmt.Sprintf("%s %s/%s", filepath.Base(in), v.Name, st.Type)] = n
			}
		}
	}
	return want
}

// otlpTotals resolves profiles by hand: file name from the resource,
// view from the scope, type through the string table, values summed.
func otlpTotals(t *testing.T, pd *profilespb.ProfilesData) map[string]int64 {
	t.Helper()
	strs := pd.GetDictionary().GetStringTable()
	str := func(i int32) string {
		if i < 0 || int(i) >= len(strs) {
			t.Fatalf("string index %d out of range", i)
		}
		return strs[i]
	}
	val := func(kv *commonpb.KeyValue) (string, string) {
		k := kv.Key
		if k == "" {
			k = str(kv.KeyStrindex)
		}
		if x, ok := kv.GetValue().GetValue().(*commonpb.AnyValue_StringValueStrindex); ok {
			return k, str(x.StringValueStrindex)
		}
		return k, kv.GetValue().GetStringValue()
	}
	got := map[string]int64{}
	for _, rp := range pd.ResourceProfiles {
		var file string
		for _, kv := range rp.GetResource().GetAttributes() {
			if k, v := val(kv); k == "file.name" {
				file = v
			}
		}
		for _, sp := range rp.ScopeProfiles {
			var view string
			for _, kv := range sp.GetScope().GetAttributes() {
				if k, v := val(kv); k == "hprof.view" {
					view = v
				}
			}
			for _, p := range sp.Profiles {
				key := fmt.Sprintf("%s %s/%s", file, view, str(p.GetSampleType().GetTypeStrindex()))
				for _, s := range p.Samples {
					for _, x := range s.Values {
						got[key] += x
					}
				}
			}
		}
	}
	return got
}

func sameTotals(t *testing.T, got, want map[string]int64) {
	t.Helper()
	for k, w := range want {
		if g, ok := got[k]; !ok || g != w {
			t.Errorf("%s: OTLP total %d (present %v), pprof %d", k, g, ok, w)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: in OTLP but not in pprof", k)
		}
	}
}

func TestConvertFormatOTLP(t *testing.T) {
	inputs := otlpFixtures(t)
	want := pprofTotals(t, inputs)
	for _, name := range []string{"all.pb", "all.json"} {
		out := filepath.Join(t.TempDir(), name)
		code, stderr := runOTLPCLI(t, append([]string{"convert", "-q", "--format", "otlp", "-o", out}, inputs...)...)
		if code != exitOK {
			t.Fatalf("convert: exit %d: %s", code, stderr)
		}
		req, err := otlp.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if err := otlp.Validate(req); err != nil {
			t.Fatal(err)
		}
		sameTotals(t, otlpTotals(t, &profilespb.ProfilesData{ResourceProfiles: req.ResourceProfiles, Dictionary: req.Dictionary}), want)
	}
	// Without -o: one file per input, named after it.
	dir := t.TempDir()
	if code, stderr := runOTLPCLI(t, "convert", "-q", "--format", "otlp", "-d", dir, inputs[2]); code != exitOK {
		t.Fatalf("convert -d: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "jdk25-zoo-live.hprof.otlp.pb")); err != nil {
		t.Error(err)
	}
}

func TestPushUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	code, stderr := runOTLPCLI(t, "push", "-q", "--endpoint", "http://"+addr, "--retry-for", "300ms", otlpFixtures(t)[0])
	if code != exitFailure || !strings.Contains(stderr, "connection refused") || !strings.Contains(stderr, "gave up") {
		t.Errorf("exit %d, stderr %q: want 1 and a message saying the connection was refused", code, stderr)
	}
	if code, _ := runOTLPCLI(t, "push", otlpFixtures(t)[0]); code != exitUsage {
		t.Errorf("push without --endpoint: exit %d, want %d", code, exitUsage)
	}
	if code, _ := runOTLPCLI(t, "push", "--endpoint", "x:1", "--header", "novalue", otlpFixtures(t)[0]); code != exitUsage {
		t.Errorf("bad --header: exit %d, want %d", code, exitUsage)
	}
}

// TestPushCollector runs `push` against a real Collector over both
// protocols and checks its file exporter's output against pprof.
func TestPushCollector(t *testing.T) {
	bin, err := otelcoltest.Binary(repoRoot(t))
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	out := filepath.Join(t.TempDir(), "out.jsonl")
	col, err := otelcoltest.Start(otelcoltest.Config{Bin: bin, Config: filepath.Join(repoRoot(t), "otlp", "testdata", "otelcol-profiles.yaml"), Out: out})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(col.Stop)
	grpcAddr, httpAddr := col.GRPC, col.HTTP

	inputs := otlpFixtures(t)
	want := pprofTotals(t, inputs)
	for _, tc := range []struct{ name, endpoint string }{
		{"grpc", grpcAddr},
		{"http", "http://" + httpAddr},
	} {
		t.Run(tc.name, func(t *testing.T) {
			service := "cli-" + tc.name
			code, msg := runOTLPCLI(t, append([]string{"push", "--endpoint", tc.endpoint, "--insecure", "--service-name", service,
				"--header", "authorization=Bearer test"}, inputs...)...)
			if code != exitOK {
				t.Fatalf("push: exit %d: %s", code, msg)
			}
			if n := strings.Count(msg, "pushed "); n != len(inputs) {
				t.Errorf("%d 'pushed' lines for %d inputs:\n%s", n, len(inputs), msg)
			}
			deadline := time.Now().Add(30 * time.Second)
			for {
				got := map[string]int64{}
				data, _ := os.ReadFile(out)
				for _, line := range bytes.Split(data, []byte("\n")) {
					pd := &profilespb.ProfilesData{}
					if len(line) == 0 || otlp.UnmarshalJSON(line, pd) != nil || !hasService(pd, service) {
						continue
					}
					for k, v := range otlpTotals(t, pd) {
						got[k] += v
					}
				}
				if len(got) >= len(want) || time.Now().After(deadline) {
					sameTotals(t, got, want)
					return
				}
				time.Sleep(100 * time.Millisecond)
			}
		})
	}
}

func hasService(pd *profilespb.ProfilesData, service string) bool {
	strs := pd.GetDictionary().GetStringTable()
	for _, rp := range pd.ResourceProfiles {
		for _, kv := range rp.GetResource().GetAttributes() {
			v := kv.GetValue().GetStringValue()
			if x, ok := kv.GetValue().GetValue().(*commonpb.AnyValue_StringValueStrindex); ok && int(x.StringValueStrindex) < len(strs) {
				v = strs[x.StringValueStrindex]
			}
			if v == service {
				return true
			}
		}
	}
	return false
}
