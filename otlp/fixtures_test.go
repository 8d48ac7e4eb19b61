package otlp_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"google.golang.org/protobuf/proto"

	collectorpb "go.opentelemetry.io/proto/otlp/collector/profiles/v1development"

	"github.com/hprof2pprof/hprof2pprof/convert"
	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/otlp"
	"github.com/hprof2pprof/hprof2pprof/pprofout"
)

// golden matches the expected-output files beside fixtures, one per view
// ("x.txt.cpu.txt", "x.hprof.heap.txt"); they are not inputs.
var golden = regexp.MustCompile(`\.(cpu|cputime|cpuold|alloc|heap|threads|monitor|retained)\.txt$`)

// fixtures are the HPROF inputs in the repository's testdata: binary
// files and agent text reports (not the JVMs' own class histograms
// kept beside dumps, "x.hprof.gz.jcmd-histo.txt").
func fixtures(t testing.TB) []string {
	t.Helper()
	all, err := filepath.Glob(filepath.Join(moduleRoot(t), "testdata", "*"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range all {
		base := filepath.Base(f)
		if strings.HasPrefix(base, ".") || strings.HasSuffix(base, ".oracle") || strings.HasSuffix(base, ".md") || golden.MatchString(base) ||
			strings.HasSuffix(base, ".jcmd-histo.txt") {
			continue
		}
		if fi, err := os.Stat(f); err == nil && !fi.IsDir() {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		t.Fatal("no HPROF fixtures in testdata")
	}
	return out
}

// corpusFiles are the binary inputs of ../shared/corpus, when present.
func corpusFiles(t testing.TB) []string {
	t.Helper()
	root := filepath.Join(moduleRoot(t), "..", "shared", "corpus")
	var out []string
	for _, dir := range []string{"hprof-agent", "heapdump", "thirdparty"} {
		ents, err := os.ReadDir(filepath.Join(root, dir))
		if err != nil {
			continue
		}
		for _, e := range ents {
			n := e.Name()
			if e.IsDir() || strings.HasSuffix(n, ".oracle") || strings.HasSuffix(n, ".md") || strings.HasSuffix(n, ".tsv") ||
				strings.HasSuffix(n, ".map") || strings.HasSuffix(n, ".phd") || strings.Contains(n, "jcmd-histo") || strings.Contains(n, "histogram") {
				continue
			}
			out = append(out, filepath.Join(root, dir, n))
		}
	}
	return out
}

func decodeFixture(t testing.TB, path string) *graph.Graph {
	t.Helper()
	g, err := convert.ConvertFile(context.Background(), path, convert.Options{})
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return g
}

// wireRoundTrip sends req through protobuf bytes, as a receiver sees it.
func wireRoundTrip(t testing.TB, req *collectorpb.ExportProfilesServiceRequest) []rProfile {
	t.Helper()
	b, err := otlp.Marshal(req, false)
	if err != nil {
		t.Fatal(err)
	}
	back := &collectorpb.ExportProfilesServiceRequest{}
	if err := proto.Unmarshal(b, back); err != nil {
		t.Fatal(err)
	}
	return resolve(t, requestAsData(t, back))
}

// pprofView writes a view with pprofout and parses it back with the
// pprof library, as `go tool pprof` would read it.
func pprofView(t testing.TB, g *graph.Graph, view string) *profile.Profile {
	t.Helper()
	var buf bytes.Buffer
	if err := pprofout.Write(&buf, g, view); err != nil {
		t.Fatalf("pprofout %s: %v", view, err)
	}
	p, err := profile.Parse(&buf)
	if err != nil {
		t.Fatalf("parsing pprofout %s: %v", view, err)
	}
	return p
}

// pprofKeys sums one pprof column by stack (function names) and labels
// named as OTLP attributes; frames collects every distinct frame
// rendered like the reader does.
func pprofKeys(p *profile.Profile, col int) (map[string]int64, map[string]bool) {
	keys := map[string]int64{}
	frames := map[string]bool{}
	for _, s := range p.Sample {
		if s.Value[col] == 0 {
			continue
		}
		var fns []string
		for _, l := range s.Location {
			ln := l.Line[0]
			fns = append(fns, ln.Function.Name)
			frames[fmt.Sprintf("%s %s:%d %s", ln.Function.Name, ln.Function.Filename, ln.Line, ln.Function.SystemName)] = true
		}
		labels := map[string]string{}
		for k, vs := range s.Label {
			labels[otlp.AttributeKey(k)] = strings.Join(vs, ",")
		}
		for k, vs := range s.NumLabel {
			var parts []string
			for i, v := range vs {
				x := fmt.Sprint(v)
				if i < len(s.NumUnit[k]) && s.NumUnit[k][i] != "" {
					x += " " + s.NumUnit[k][i]
				}
				parts = append(parts, x)
			}
			labels[otlp.AttributeKey(k)] = strings.Join(parts, ",")
		}
		keys[strings.Join(fns, ";")+" "+labelString(labels)] += s.Value[col]
	}
	return keys, frames
}

// compareWithPprof checks that the OTLP profiles of one input carry the
// same numbers as pprofout's profiles of the same graph: per view and
// sample type the total, every stack+labels value, every frame, the
// period, time and duration, and the comments.
func compareWithPprof(t testing.TB, name string, g *graph.Graph, profs []rProfile) {
	t.Helper()
	i := 0
	for _, v := range g.Views {
		pp := pprofView(t, g, v.Name)
		if len(pp.SampleType) != len(v.SampleTypes) {
			t.Fatalf("%s %s: pprof has %d sample types, graph %d", name, v.Name, len(pp.SampleType), len(v.SampleTypes))
		}
		for col, st := range pp.SampleType {
			if i >= len(profs) {
				t.Fatalf("%s: only %d OTLP profiles", name, len(profs))
			}
			op := profs[i]
			i++
			what := fmt.Sprintf("%s %s/%s", name, v.Name, st.Type)
			if op.view() != v.Name || op.Type != st.Type || op.Unit != st.Unit {
				t.Errorf("%s: OTLP profile is %s %s/%s", what, op.view(), op.Type, op.Unit)
				continue
			}
			want, frames := pprofKeys(pp, col)
			var wantTotal int64
			for _, s := range pp.Sample {
				wantTotal += s.Value[col]
			}
			if op.total() != wantTotal {
				t.Errorf("%s: OTLP total %d, pprof %d", what, op.total(), wantTotal)
			}
			got := op.byKey()
			if len(got) != len(want) {
				t.Errorf("%s: %d OTLP stacks+labels, pprof %d", what, len(got), len(want))
			}
			bad := 0
			for k, w := range want {
				if got[k] != w && bad < 5 {
					t.Errorf("%s: %s: OTLP %d, pprof %d", what, k, got[k], w)
					bad++
				}
			}
			for _, s := range op.Samples {
				for _, f := range s.Frames {
					if !frames[f] && bad < 5 {
						t.Errorf("%s: OTLP frame %q not in pprof", what, f)
						bad++
					}
				}
				for j, ty := range s.Types {
					if ty != "jvm" && bad < 5 {
						t.Errorf("%s: frame %s has profile.frame.type %q", what, s.Funcs[j], ty)
						bad++
					}
				}
			}
			if pp.PeriodType != nil && (op.PeriodType != pp.PeriodType.Type+"/"+pp.PeriodType.Unit || op.Period != pp.Period) {
				t.Errorf("%s: period %s %d, pprof %s/%s %d", what, op.PeriodType, op.Period, pp.PeriodType.Type, pp.PeriodType.Unit, pp.Period)
			}
			if pp.TimeNanos != 0 && op.Time != uint64(pp.TimeNanos) {
				t.Errorf("%s: time %d, pprof %d", what, op.Time, pp.TimeNanos)
			}
			if op.Duration != uint64(pp.DurationNanos) {
				t.Errorf("%s: duration %d, pprof %d", what, op.Duration, pp.DurationNanos)
			}
			if c := op.Attrs["pprof.profile.comment"]; c != "" {
				for _, line := range strings.Split(c, "\n") {
					if !slices.Contains(pp.Comments, line) {
						t.Errorf("%s: comment %q not among pprof's", what, line)
					}
				}
			}
			if op.Resource["hprof.version"] != g.Source.Version || op.Resource["service.name"] == "" {
				t.Errorf("%s: resource %v", what, op.Resource)
			}
		}
	}
	if i != len(profs) {
		t.Errorf("%s: %d OTLP profiles, pprof sample types %d", name, len(profs), i)
	}
}

// TestFixturesMatchPprof: every view of every fixture, through the wire
// format and the test's own reader, has pprof's numbers.
func TestFixturesMatchPprof(t *testing.T) {
	for _, f := range fixtures(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			g := decodeFixture(t, f)
			if len(g.Views) == 0 {
				t.Fatal("no views")
			}
			req, err := otlp.Build([]*graph.Graph{g}, otlp.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if err := otlp.Validate(req); err != nil {
				t.Fatal(err)
			}
			compareWithPprof(t, filepath.Base(f), g, wireRoundTrip(t, req))
		})
	}
}

// TestCorpusMatchesPprof sweeps ../shared/corpus when it is there.
func TestCorpusMatchesPprof(t *testing.T) {
	files := corpusFiles(t)
	if len(files) == 0 {
		t.Skip("../shared/corpus not present")
	}
	if testing.Short() {
		t.Skip("corpus sweep skipped in -short mode")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			g, err := convert.ConvertFile(context.Background(), f, convert.Options{})
			if err != nil {
				t.Skipf("not decodable by this build: %v", err)
			}
			req, err := otlp.Build([]*graph.Graph{g}, otlp.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if err := otlp.Validate(req); err != nil {
				t.Fatal(err)
			}
			compareWithPprof(t, filepath.Base(f), g, wireRoundTrip(t, req))
		})
	}
}

// TestCollectorFixtures pushes every fixture (all views in one request)
// to a real Collector over gRPC and over HTTP, and checks what the file
// exporter wrote against both what was sent and pprof.
func TestCollectorFixtures(t *testing.T) {
	col := startCollector(t)
	for _, f := range fixtures(t) {
		g := decodeFixture(t, f)
		for _, proto := range []string{"grpc", "http"} {
			t.Run(filepath.Base(f)+"/"+proto, func(t *testing.T) {
				service := "fixture-" + proto + "-" + filepath.Base(f)
				req, err := otlp.Build([]*graph.Graph{g}, otlp.Options{ServiceName: service})
				if err != nil {
					t.Fatal(err)
				}
				ep := col.GRPC
				if proto == "http" {
					ep = "http://" + col.HTTP
				}
				res, err := pushClient(t, otlp.ClientOptions{Endpoint: ep, Insecure: true}).Push(context.Background(), req)
				if err != nil || !res.Accepted() {
					t.Fatalf("push: %v (%+v)", err, res)
				}
				sent := resolve(t, requestAsData(t, req))
				got := col.received(t, service, len(sent))
				sameProfiles(t, sent, got)
				compareWithPprof(t, filepath.Base(f), g, got)
			})
		}
	}
}
