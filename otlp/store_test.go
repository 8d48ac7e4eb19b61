package otlp_test

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/pprof/profile"
	collectorpb "go.opentelemetry.io/proto/otlp/collector/profiles/v1development"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/otlp"
)

// Grafana Pyroscope's OTLP ingestion rules, as read from its public
// source (pkg/ingester/otlp, pkg/distributor, pkg/validation, checked at
// commit 3fe6a457), restated here so CI can hold our output to them
// without running Pyroscope:
//
//   - A profile's name (__name__) is the third field of
//     "type:unit:periodType:periodUnit", where the period fields are
//     empty unless period_type is set and period is not 0; an empty name
//     is refused ("invalid metric name").
//   - Each OTLP profile becomes its own pprof profile and series push;
//     its labels are the resource and scope attributes with string or
//     int values, plus __name__ and service_name; every distinct set of
//     sample attributes splits it further into series.
//   - A sample whose stack has no locations is dropped.
//   - Default limits: 16,000 samples and 4 MiB (pprof encoding) per
//     profile, label values up to 2,048 bytes, 30 label names per series,
//     100 labels per sample; sample types may not contain "-"; the rate
//     limiter refuses any push larger than its burst (2 MiB).
type pyroSeries struct {
	name, profileType string
	labels            string
}

type pyroProfile struct {
	rProfile
	name  string
	bytes int // pprof encoding, uncompressed, plus labels
}

// pyroscopeView applies the rules to one request: the profiles as
// Pyroscope would store them, and an error for any it would refuse.
func pyroscopeView(t *testing.T, req *collectorpb.ExportProfilesServiceRequest) []pyroProfile {
	t.Helper()
	var out []pyroProfile
	for _, p := range wireRoundTrip(t, req) {
		pt, pu := "", ""
		if p.Period != 0 && p.PeriodType != "" {
			pt, pu, _ = strings.Cut(p.PeriodType, "/")
		}
		name := pt
		what := fmt.Sprintf("%s %s/%s", p.view(), p.Type, p.Unit)
		if name == "" || strings.Contains(name, ":") || !utf8.ValidString(name) {
			t.Errorf("%s: name %q from period type %q period %d: Pyroscope refuses it (invalid metric name)", what, name, p.PeriodType, p.Period)
		}
		if strings.Contains(p.Type, "-") {
			t.Errorf("%s: sample type contains '-'", what)
		}
		labels := 4 // __name__, __delta__, __otel__, service_name
		for _, m := range []map[string]string{p.Resource, p.Scope} {
			for k, v := range m {
				labels++
				if len(v) > 2048 || len(k) > 1024 {
					t.Errorf("%s: label %s is %d bytes long", what, k, len(v))
				}
			}
		}
		for _, s := range p.Samples {
			if len(s.Funcs) == 0 {
				t.Errorf("%s: a sample of %d has no frames: Pyroscope drops it", what, s.Value)
			}
			if labels+len(s.Labels) > 30 {
				t.Errorf("%s: %d label names per series", what, labels+len(s.Labels))
			}
		}
		_ = pu
		out = append(out, pyroProfile{rProfile: p, name: name, bytes: pprofSize(t, p)})
	}
	return out
}

// pprofSize encodes a profile as pprof the way Pyroscope converts it
// (one sample type, functions, locations, string labels) and measures it.
func pprofSize(t *testing.T, p rProfile) int {
	t.Helper()
	pp := &profile.Profile{SampleType: []*profile.ValueType{{Type: p.Type, Unit: p.Unit}}, Mapping: []*profile.Mapping{{ID: 1}}}
	funcs := map[string]*profile.Function{}
	locs := map[string]*profile.Location{}
	for _, s := range p.Samples {
		ps := &profile.Sample{Value: []int64{s.Value}, Label: map[string][]string{}}
		for i, fr := range s.Frames {
			loc := locs[fr]
			if loc == nil {
				fn := funcs[fr]
				if fn == nil {
					fn = &profile.Function{ID: uint64(len(funcs) + 1), Name: s.Funcs[i], SystemName: s.Sys[i], Filename: s.Files[i]}
					funcs[fr] = fn
					pp.Function = append(pp.Function, fn)
				}
				loc = &profile.Location{ID: uint64(len(locs) + 1), Mapping: pp.Mapping[0], Line: []profile.Line{{Function: fn, Line: int64(i)}}}
				locs[fr] = loc
				pp.Location = append(pp.Location, loc)
			}
			ps.Location = append(ps.Location, loc)
		}
		for k, v := range s.Labels {
			ps.Label[k] = []string{v}
		}
		pp.Sample = append(pp.Sample, ps)
	}
	var buf bytes.Buffer
	if err := pp.WriteUncompressed(&buf); err != nil {
		t.Fatal(err)
	}
	n := buf.Len()
	for k, v := range p.Resource {
		n += len(k) + len(v)
	}
	return n
}

// series lists the distinct series a view's profiles make.
func series(ps []pyroProfile) map[pyroSeries]bool {
	out := map[pyroSeries]bool{}
	for _, p := range ps {
		var base []string
		for _, m := range []map[string]string{p.Resource, p.Scope} {
			for k, v := range m {
				base = append(base, k+"="+v)
			}
		}
		ptype := p.name + ":" + p.Type + ":" + p.Unit + ":" + p.PeriodType
		for _, s := range p.Samples {
			ls := append([]string(nil), base...)
			for k, v := range s.Labels {
				ls = append(ls, k+"="+v)
			}
			sort.Strings(ls)
			out[pyroSeries{name: p.name, profileType: ptype, labels: strings.Join(ls, ",")}] = true
		}
	}
	return out
}

// TestStoreShapeFollowsPyroscopeRules: every view of every test file,
// shaped for a store and split under Pyroscope's default limits, is
// stored whole by the rules above, in at most 12 series per view, with
// pprof's totals per sample type.
func TestStoreShapeFollowsPyroscopeRules(t *testing.T) {
	lim := otlp.PyroscopeLimits
	for _, f := range fixtures(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			g := decodeFixture(t, f)
			parts, err := otlp.Split(g, nil, otlp.Options{Store: &otlp.StoreOptions{}}, lim)
			if err != nil {
				t.Fatal(err)
			}
			byView := map[string][]pyroProfile{}
			for _, part := range parts {
				if err := otlp.Validate(part.Req); err != nil {
					t.Fatal(err)
				}
				ps := pyroscopeView(t, part.Req)
				reqBytes := 0
				for _, p := range ps {
					if p.view() != part.View {
						t.Errorf("part of view %s holds a profile of view %s", part.View, p.view())
					}
					if len(p.Samples) > lim.MaxSamples || p.bytes > lim.MaxBytes {
						t.Errorf("%s %s: %d samples, %d bytes: over Pyroscope's limits", p.view(), p.Type, len(p.Samples), p.bytes)
					}
					reqBytes += p.bytes
				}
				if reqBytes > lim.Burst {
					t.Errorf("view %s part %d/%d: %d bytes in one request, over the %d-byte burst", part.View, part.Index, part.Count, reqBytes, lim.Burst)
				}
				byView[part.View] = append(byView[part.View], ps...)
			}
			for _, v := range g.Views {
				ps := byView[v.Name]
				if n := len(series(ps)); n > 12 {
					t.Errorf("view %s: %d series, want at most 12", v.Name, n)
				}
				pp := pprofView(t, g, v.Name)
				for col, st := range pp.SampleType {
					var want, got int64
					for _, s := range pp.Sample {
						want += s.Value[col]
					}
					for _, p := range ps {
						if p.Type == st.Type {
							got += p.total()
						}
					}
					if got != want {
						t.Errorf("view %s %s: stored total %d, pprof %d", v.Name, st.Type, got, want)
					}
				}
			}
		})
	}
}

// TestStoreShapeNames: the name each view is stored under, and its
// period type and period.
func TestStoreShapeNames(t *testing.T) {
	g := javaGraph()
	parts, err := otlp.Split(g, nil, otlp.Options{Store: &otlp.StoreOptions{}}, otlp.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"cpu/samples":       "process_cpu/nanoseconds 10000000",
		"cpu/cpu":           "process_cpu/nanoseconds 10000000",
		"alloc/alloc_space": "alloc/bytes 1",
		"heap/inuse_space":  "memory/bytes 1",
		"threads/threads":   "threads/count 1",
	}
	seen := map[string]bool{}
	for _, part := range parts {
		if part.Count != 1 {
			t.Errorf("view %s split in %d parts without limits", part.View, part.Count)
		}
		for _, p := range resolve(t, requestAsData(t, part.Req)) {
			k := p.view() + "/" + p.Type
			seen[k] = true
			if w, ok := want[k]; ok && fmt.Sprintf("%s %d", p.PeriodType, p.Period) != w {
				t.Errorf("%s: period %s %d, want %s", k, p.PeriodType, p.Period, w)
			}
		}
	}
	for k := range want {
		if !seen[k] {
			t.Errorf("no profile %s", k)
		}
	}
}

// TestStoreShapeSamples: the thread with no Java frames keeps its sample
// under the documented frame, and only bounded labels stay attributes
// unless asked for.
func TestStoreShapeSamples(t *testing.T) {
	g := javaGraph()
	for _, tc := range []struct {
		attrs []string
		want  map[string]bool // attribute keys on threads samples
	}{
		{nil, map[string]bool{"jvm.thread.state": true}},
		{[]string{"thread"}, map[string]bool{"jvm.thread.state": true, "thread.name": true}},
		{[]string{"all"}, map[string]bool{"jvm.thread.state": true, "thread.name": true}},
	} {
		parts, err := otlp.Split(g, []string{"threads", "heap"}, otlp.Options{Store: &otlp.StoreOptions{SampleAttrs: tc.attrs}}, otlp.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		var threads, heapAttrs []string
		var n int64
		for _, part := range parts {
			for _, p := range resolve(t, requestAsData(t, part.Req)) {
				for _, s := range p.Samples {
					for k := range s.Labels {
						if p.view() == "threads" && !tc.want[k] {
							t.Errorf("--sample-attrs %v: threads sample has attribute %s", tc.attrs, k)
						}
						if p.view() == "heap" {
							heapAttrs = append(heapAttrs, k)
						}
					}
					if p.view() == "threads" {
						n += s.Value
						threads = append(threads, strings.Join(s.Funcs, ";"))
					}
				}
			}
		}
		if n != 3 {
			t.Errorf("threads: %d threads stored, want 3", n)
		}
		if !strings.Contains(strings.Join(threads, "|"), "thread Signal Dispatcher;"+otlp.NoFramesFunction) {
			t.Errorf("the thread without frames is not under %q: %v", otlp.NoFramesFunction, threads)
		}
		for _, k := range heapAttrs {
			if k == "hprof.class" && len(tc.attrs) == 0 {
				t.Errorf("heap samples carry hprof.class by default")
			}
		}
	}
}

// TestStoreShapeNow: --now moves the profiles to the push time and keeps
// the input's time as an attribute.
func TestStoreShapeNow(t *testing.T) {
	g := javaGraph()
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	parts, err := otlp.Split(g, []string{"cpu"}, otlp.Options{Store: &otlp.StoreOptions{Now: now}}, otlp.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range resolve(t, requestAsData(t, parts[0].Req)) {
		if p.Time != uint64(now.UnixNano()) {
			t.Errorf("time %d, want %d", p.Time, now.UnixNano())
		}
		if got, want := p.Resource[otlp.AttrTime], dumpTime.UTC().Format(time.RFC3339Nano); got != want {
			t.Errorf("%s = %q, want %q", otlp.AttrTime, got, want)
		}
		for _, s := range p.Samples {
			if len(s.Times) != 1 || s.Times[0] != p.Time {
				t.Errorf("sample times %v", s.Times)
			}
		}
	}
}

// TestSplitKeepsTotals: with small limits a view is cut into parts that
// each fit, and together hold every sample once.
func TestSplitKeepsTotals(t *testing.T) {
	f := filepath.Join(moduleRoot(t), "testdata", "jdk17-zoo-live.hprof")
	g := decodeFixture(t, f)
	lim := otlp.Limits{MaxSamples: 100, MaxBytes: 40 << 10, Burst: 60 << 10}
	parts, err := otlp.Split(g, []string{"heap", "threads"}, otlp.Options{Store: &otlp.StoreOptions{}}, lim)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	nparts := map[string]int{}
	for _, part := range parts {
		nparts[part.View]++
		reqBytes := 0
		for _, p := range pyroscopeView(t, part.Req) {
			if len(p.Samples) > lim.MaxSamples || p.bytes > lim.MaxBytes {
				t.Errorf("%s part %d: %d samples, %d bytes", part.View, part.Index, len(p.Samples), p.bytes)
			}
			reqBytes += p.bytes
			got[p.view()+"/"+p.Type] += p.total()
		}
		if reqBytes > lim.Burst {
			t.Errorf("%s part %d: request of %d bytes", part.View, part.Index, reqBytes)
		}
	}
	if nparts["heap"] < 2 {
		t.Errorf("heap view not split: %d parts", nparts["heap"])
	}
	for _, view := range []string{"heap", "threads"} {
		v := g.View(view)
		for col, tot := range v.Totals() {
			if k := view + "/" + v.SampleTypes[col].Type; got[k] != tot {
				t.Errorf("%s: parts sum to %d, view total %d", k, got[k], tot)
			}
		}
	}
}

// TestSplitRefusesWhatCannotFit: a limit smaller than one sample is an
// error naming the view, not an endless loop or a dropped sample.
func TestSplitRefusesWhatCannotFit(t *testing.T) {
	_, err := otlp.Split(javaGraph(), []string{"cpu"}, otlp.Options{Store: &otlp.StoreOptions{}}, otlp.Limits{MaxBytes: 10})
	if err == nil || !strings.Contains(err.Error(), "view cpu") {
		t.Errorf("err = %v, want one naming view cpu", err)
	}
	_ = graph.ViewCPU
}

// TestCollectorShipsParts: a view split under small limits, shipped part
// by part to a real Collector, arrives whole: every part accepted, and
// the profiles received add up to pprof's totals.
func TestCollectorShipsParts(t *testing.T) {
	col := startCollector(t)
	g := decodeFixture(t, filepath.Join(moduleRoot(t), "testdata", "jdk17-zoo-live.hprof"))
	service := "split-parts"
	lim := otlp.Limits{MaxSamples: 200, MaxBytes: 64 << 10, Burst: 128 << 10, Rate: 64 << 20}
	parts, err := otlp.Split(g, []string{"heap"}, otlp.Options{ServiceName: service, Store: &otlp.StoreOptions{}}, lim)
	if err != nil {
		t.Fatal(err)
	}
	if len(parts) < 2 {
		t.Fatalf("%d parts, want the heap view split", len(parts))
	}
	profiles := 0
	for _, r := range otlp.Ship(context.Background(), pushClient(t, otlp.ClientOptions{Endpoint: col.GRPC, Insecure: true}), parts, otlp.NewPacer(lim)) {
		if !r.Stored() {
			t.Fatalf("part %d/%d: %v (%+v)", r.Index, r.Count, r.Err, r.Result)
		}
		profiles += r.Profiles
	}
	got := map[string]int64{}
	for _, p := range col.received(t, service, profiles) {
		got[p.Type] += p.total()
	}
	v := g.View("heap")
	for col, tot := range v.Totals() {
		if st := v.SampleTypes[col].Type; got[st] != tot {
			t.Errorf("heap %s: received %d, view total %d", st, got[st], tot)
		}
	}
}
