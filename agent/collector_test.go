package agent

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	profilespb "go.opentelemetry.io/proto/otlp/profiles/v1development"

	"github.com/hprof2pprof/hprof2pprof/internal/otelcoltest"
	"github.com/hprof2pprof/hprof2pprof/otlp"
)

// otelcol is a real OpenTelemetry Collector (built by
// scripts/setup-otelcol.sh) on loopback ports it keeps across restarts,
// so it can be stopped and started again where the exporter expects it.
// Each start writes to a new file.
type otelcol struct {
	t          *testing.T
	bin        string
	GRPC, HTTP string // empty until the first start picks them
	outs       []string
	oc         *otelcoltest.Collector
	logs       []string
}

// newOtelcol finds the collector binary: $OTELCOL_BIN, else the setup
// script's cache. Missing skips the test, or fails it when CI=true.
func newOtelcol(t *testing.T) *otelcol {
	t.Helper()
	bin, err := otelcoltest.Binary("..")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	c := &otelcol{t: t, bin: bin}
	t.Cleanup(func() {
		c.stop()
		if t.Failed() {
			t.Logf("collector logs (tails):\n%s", strings.Join(c.logs, "\n----\n"))
		}
	})
	return c
}

// start runs the collector until it says it is ready: on new ports the
// first time, on the same ports after that.
func (c *otelcol) start() {
	t := c.t
	t.Helper()
	out := filepath.Join(t.TempDir(), fmt.Sprintf("profiles-%d.jsonl", len(c.outs)+1))
	c.outs = append(c.outs, out)
	oc, err := otelcoltest.Start(otelcoltest.Config{Bin: c.bin, Config: "testdata/otelcol-agent.yaml", Out: out, GRPC: c.GRPC, HTTP: c.HTTP})
	if err != nil {
		t.Fatal(err)
	}
	c.oc, c.GRPC, c.HTTP = oc, oc.GRPC, oc.HTTP
}

// stop ends the collector (SIGTERM, then a kill after 15s) and waits.
func (c *otelcol) stop() {
	if c.oc == nil {
		return
	}
	c.oc.Stop()
	c.logs = append(c.logs, c.oc.Log(4000))
	c.oc = nil
}

// profileKey names one profile of one window: the JVM, the view, the
// window start and the sample type.
type profileKey struct {
	JVM, View, Type string
	Window          int64 // its number on the connection
	Start           int64
}

func (k profileKey) String() string {
	return fmt.Sprintf("%s window %d %s/%s@%s", k.JVM, k.Window, k.View, k.Type, time.Unix(0, k.Start).UTC().Format(StartStamp))
}

// received reads every profile the collector wrote to the output of
// start number run (1-based): totals by key, and how often each key came.
func (c *otelcol) received(run int) (totals map[profileKey]int64, count map[profileKey]int) {
	t := c.t
	t.Helper()
	totals, count = map[profileKey]int64{}, map[profileKey]int{}
	data, _ := os.ReadFile(c.outs[run-1])
	for len(data) > 0 {
		line, rest, ok := bytes.Cut(data, []byte("\n"))
		if !ok {
			break // a line still being written
		}
		data = rest
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		pd := &profilespb.ProfilesData{}
		if err := otlp.UnmarshalJSON(line, pd); err != nil {
			t.Fatalf("collector output line does not decode: %v", err)
		}
		strs := pd.GetDictionary().GetStringTable()
		str := func(i int32) string {
			if i < 0 || int(i) >= len(strs) {
				t.Fatalf("collector output: string index %d of %d", i, len(strs))
			}
			return strs[i]
		}
		// The collector may move keys and string values into the string
		// table (key_strindex, string_value_strindex).
		attr := func(kvs []*commonpb.KeyValue, key string) string {
			for _, kv := range kvs {
				k := kv.Key
				if k == "" {
					k = str(kv.KeyStrindex)
				}
				if k != key {
					continue
				}
				if i, ok := kv.GetValue().GetValue().(*commonpb.AnyValue_StringValueStrindex); ok {
					return str(i.StringValueStrindex)
				}
				return kv.GetValue().GetStringValue()
			}
			return ""
		}
		window := func(kvs []*commonpb.KeyValue) int64 {
			for _, kv := range kvs {
				if kv.Key == AttrWindow || (kv.Key == "" && str(kv.KeyStrindex) == AttrWindow) {
					return kv.GetValue().GetIntValue()
				}
			}
			return 0
		}
		for _, rp := range pd.ResourceProfiles {
			jvm := attr(rp.GetResource().GetAttributes(), "service.instance.id")
			seq := window(rp.GetResource().GetAttributes())
			if attr(rp.GetResource().GetAttributes(), "env") != "outage" {
				t.Errorf("collector output: a resource without the label env=outage")
			}
			for _, sp := range rp.ScopeProfiles {
				view := attr(sp.GetScope().GetAttributes(), otlp.AttrView)
				for _, p := range sp.Profiles {
					typ := str(p.GetSampleType().GetTypeStrindex())
					k := profileKey{JVM: jvm, View: view, Type: typ, Window: seq, Start: int64(p.TimeUnixNano)}
					var sum int64
					for _, s := range p.Samples {
						for _, v := range s.Values {
							sum += v
						}
					}
					totals[k] += sum
					count[k]++
				}
			}
		}
	}
	return totals, count
}

// waitFor polls the outputs of the given runs until every wanted key has
// arrived (bounded) and returns what arrived.
func (c *otelcol) waitFor(want map[profileKey]int64, runs ...int) (map[profileKey]int64, map[profileKey]int) {
	c.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		totals, count := map[profileKey]int64{}, map[profileKey]int{}
		for _, r := range runs {
			tt, cc := c.received(r)
			for k, v := range tt {
				totals[k] += v
				count[k] += cc[k]
			}
		}
		missing := 0
		for k := range want {
			if count[k] == 0 {
				missing++
			}
		}
		if missing == 0 || time.Now().After(deadline) {
			return totals, count
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// windowRE finds the window number in a pprof file's comment.
var windowRE = regexp.MustCompile(`, window (\d+), `)

// pprofTotals are the totals of the pprof files written for the same
// windows, by the same key.
func pprofTotals(h *harness, jvms ...string) map[profileKey]int64 {
	out := map[profileKey]int64{}
	for jvm, views := range h.windows() {
		if len(jvms) > 0 && !slices.Contains(jvms, jvm) {
			continue
		}
		for view, ps := range views {
			for _, p := range ps {
				var seq int64
				for _, c := range p.Comments {
					if m := windowRE.FindStringSubmatch(c); m != nil {
						seq, _ = strconv.ParseInt(m[1], 10, 64)
					}
				}
				for i, st := range p.SampleType {
					k := profileKey{JVM: jvm, View: view, Type: st.Type, Window: seq, Start: p.TimeNanos}
					for _, s := range p.Sample {
						out[k] += s.Value[i]
					}
				}
			}
		}
	}
	return out
}

// The real Collector stopped and restarted during a run: windows
// exported while it runs arrive; windows cut while it is down spill to
// disk and arrive once it is back on the same port; none is lost or
// doubled, and every total is the one of the pprof file written for the
// same window (whose CPU totals are the recording's own).
func TestCollectorOutage(t *testing.T) {
	for _, proto := range []string{otlp.ProtocolGRPC, otlp.ProtocolHTTP} {
		t.Run(proto, func(t *testing.T) { collectorOutage(t, proto) })
	}
}

func collectorOutage(t *testing.T, proto string) {
	col := newOtelcol(t)
	col.start()
	endpoint := "grpc://" + col.GRPC
	if proto == otlp.ProtocolHTTP {
		endpoint = "http://" + col.HTTP
	}
	exp, err := NewOTLP(OTLPOptions{Client: otlp.ClientOptions{Endpoint: endpoint, Insecure: true}, ServiceName: "outage-test"})
	if err != nil {
		t.Fatal(err)
	}
	defer exp.Close()
	om := &Metrics{}
	rel, err := NewReliable(exp, RetryOptions{SpillDir: t.TempDir(), Attempts: 2, Timeout: 10 * time.Second,
		MinBackoff: 10 * time.Millisecond, MaxBackoff: 200 * time.Millisecond, Metrics: om})
	if err != nil {
		t.Fatal(err)
	}
	h := start(t, Config{Labels: map[string]string{"env": "outage"}}, rel)

	// JVM 1 while the collector runs.
	jvm1 := newCommandsJVM(t)
	if err := jvm1.run(h.addr()); err != nil {
		t.Fatal(err)
	}
	ws := h.windows()
	if len(ws) != 1 {
		t.Fatalf("%d JVM directories after the first JVM, want 1", len(ws))
	}
	first := slices.Collect(maps.Keys(ws))[0]
	want1 := pprofTotals(h, first)
	got1, _ := col.waitFor(want1, 1)
	for k, v := range want1 {
		if got1[k] != v {
			t.Errorf("before the outage: %s: total %d in the collector, %d in the pprof file", k, got1[k], v)
		}
	}
	if s := om.Snapshot(); s.Spilled != 0 || s.Exported == 0 {
		t.Fatalf("before the outage: OTLP metrics %+v, want exports and no spill", s)
	}

	// JVM 2 while the collector is down: its windows spill.
	col.stop()
	jvm2 := newCommandsJVM(t)
	if err := jvm2.run(h.addr()); err != nil {
		t.Fatal(err)
	}
	exportedBefore := om.Exported.Load()
	spilled := om.Spilled.Load()
	if spilled < 3 || rel.Queued() == 0 {
		t.Fatalf("during the outage: %d windows spilled, %d queued; want the second JVM's (3 or more)", spilled, rel.Queued())
	}

	// Back on the same port: the queue drains.
	col.start()
	for i := 0; i < 600 && rel.Queued() > 0; i++ {
		time.Sleep(100 * time.Millisecond)
	}
	if n := rel.Queued(); n > 0 {
		t.Fatalf("%d spilled windows still queued 60s after the collector came back", n)
	}
	h.stop()
	rel.Close(context.Background())

	ws = h.windows()
	if len(ws) != 2 {
		t.Fatalf("%d JVM directories, want 2", len(ws))
	}
	for _, views := range ws {
		checkSession(t, views) // the recording's own CPU totals
	}
	want := pprofTotals(h)
	got, count := col.waitFor(want, 1, 2)
	for k, v := range want {
		switch {
		case count[k] == 0:
			t.Errorf("%s: lost (in the pprof files, not in the collector)", k)
		case count[k] > 1:
			t.Errorf("%s: arrived %d times", k, count[k])
		case got[k] != v:
			t.Errorf("%s: total %d in the collector, %d in the pprof file", k, got[k], v)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: in the collector, not in the pprof files", k)
		}
	}
	// The second JVM's windows all came through the spill queue into
	// the restarted collector.
	second, _ := col.received(2)
	var late int
	for k := range want {
		if k.JVM != first && second[k] == want[k] {
			late++
		}
	}
	if s := om.Snapshot(); s.Respooled != spilled || s.Exported != exportedBefore+spilled || s.ExportFail != 0 {
		t.Errorf("OTLP metrics %+v, want all %d spilled windows respooled and none failed", s, spilled)
	}
	if late == 0 {
		t.Errorf("no window of the second JVM in the restarted collector's output")
	}
	t.Logf("%s: %d profiles in %d windows compared; %d windows went through the spill queue", proto, len(want), h.srv.Metrics().Windows.Load(), spilled)
}
