package otlp_test

// An independent reader of OTLP profiles for the tests: it resolves every
// index by hand (checking ranges and zero entries as it goes) into plain
// Go values, so tests compare names and numbers, never indices. It shares
// no code with the package under test.

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	collectorpb "go.opentelemetry.io/proto/otlp/collector/profiles/v1development"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	profilespb "go.opentelemetry.io/proto/otlp/profiles/v1development"
	"google.golang.org/protobuf/proto"
)

// rProfile is one resolved profile.
type rProfile struct {
	Resource   map[string]string // resource attributes
	Scope      map[string]string // scope attributes
	ScopeName  string
	Attrs      map[string]string // profile attributes (arrays joined by "\n")
	Type, Unit string
	PeriodType string // "type/unit"
	Period     int64
	Time       uint64
	Duration   uint64
	Format     string
	ID         []byte
	Samples    []rSample
}

// rSample is one resolved sample.
type rSample struct {
	Funcs  []string // function names, leaf first
	Frames []string // "name file:line system" per location, leaf first
	Types  []string // profile.frame.type of each location
	Files  []string // each location's function's file name
	Sys    []string // each location's function's system name
	Labels map[string]string
	Value  int64
	Times  []uint64
}

// key is the sample's stack and labels as one string.
func (s rSample) key() string {
	return strings.Join(s.Funcs, ";") + " " + labelString(s.Labels)
}

func labelString(m map[string]string) string {
	var ks []string
	for k, v := range m {
		ks = append(ks, k+"="+v)
	}
	sort.Strings(ks)
	return "{" + strings.Join(ks, ",") + "}"
}

// view is the resolved profile's view name (scope attribute hprof.view).
func (p rProfile) view() string { return p.Scope["hprof.view"] }

func (p rProfile) total() int64 {
	var n int64
	for _, s := range p.Samples {
		n += s.Value
	}
	return n
}

// byKey sums values by stack+labels.
func (p rProfile) byKey() map[string]int64 {
	m := map[string]int64{}
	for _, s := range p.Samples {
		m[s.key()] += s.Value
	}
	return m
}

// requestAsData re-reads a request as ProfilesData: the two messages
// share field numbers for resource_profiles and dictionary.
func requestAsData(t testing.TB, req *collectorpb.ExportProfilesServiceRequest) *profilespb.ProfilesData {
	t.Helper()
	b, err := proto.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	pd := &profilespb.ProfilesData{}
	if err := proto.Unmarshal(b, pd); err != nil {
		t.Fatal(err)
	}
	return pd
}

// resolve reads every profile of pd, failing the test on any index out
// of range or any table whose entry 0 is not the zero value.
func resolve(t testing.TB, pd *profilespb.ProfilesData) []rProfile {
	t.Helper()
	r := &resolver{t: t, d: pd.GetDictionary()}
	if r.d == nil {
		t.Fatal("no dictionary")
	}
	r.checkZero()
	var out []rProfile
	for _, rp := range pd.ResourceProfiles {
		res := r.kvs(rp.GetResource().GetAttributes())
		for _, sp := range rp.ScopeProfiles {
			scope := r.kvs(sp.GetScope().GetAttributes())
			for _, p := range sp.Profiles {
				out = append(out, r.profile(p, res, scope, sp.GetScope().GetName()))
			}
		}
	}
	return out
}

type resolver struct {
	t testing.TB
	d *profilespb.ProfilesDictionary
}

func (r *resolver) checkZero() {
	d := r.d
	if len(d.StringTable) == 0 || d.StringTable[0] != "" {
		r.t.Fatalf("string_table[0] = %q, want empty", first(d.StringTable))
	}
	tables := []struct {
		name  string
		n     int
		first proto.Message
	}{
		{"mapping_table", len(d.MappingTable), firstMsg(d.MappingTable)},
		{"location_table", len(d.LocationTable), firstMsg(d.LocationTable)},
		{"function_table", len(d.FunctionTable), firstMsg(d.FunctionTable)},
		{"link_table", len(d.LinkTable), firstMsg(d.LinkTable)},
		{"attribute_table", len(d.AttributeTable), firstMsg(d.AttributeTable)},
		{"stack_table", len(d.StackTable), firstMsg(d.StackTable)},
	}
	for _, tb := range tables {
		if tb.n == 0 {
			r.t.Fatalf("%s has no zero entry", tb.name)
		}
		if a, ok := tb.first.(*profilespb.KeyValueAndUnit); ok && a.KeyStrindex == 0 && a.UnitStrindex == 0 && a.GetValue().GetValue() == nil {
			continue // the Collector writes the zero attribute with an empty value: {"value": {}}
		}
		if n := proto.Size(tb.first); n != 0 {
			r.t.Errorf("%s[0] is not the zero value (%d bytes)", tb.name, n)
		}
	}
}

func first(s []string) string {
	if len(s) == 0 {
		return "<none>"
	}
	return s[0]
}

func firstMsg[T proto.Message](s []T) proto.Message {
	if len(s) == 0 {
		return nil
	}
	return s[0]
}

func (r *resolver) str(i int32) string {
	if i < 0 || int(i) >= len(r.d.StringTable) {
		r.t.Fatalf("string index %d out of range (%d)", i, len(r.d.StringTable))
	}
	return r.d.StringTable[i]
}

// anyString renders an AnyValue, resolving string_value_strindex (the
// Collector re-encodes strings through the dictionary).
func (r *resolver) anyString(v *commonpb.AnyValue) string {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_StringValueStrindex:
		return r.str(x.StringValueStrindex)
	case *commonpb.AnyValue_IntValue:
		return fmt.Sprint(x.IntValue)
	case *commonpb.AnyValue_BoolValue:
		return fmt.Sprint(x.BoolValue)
	case *commonpb.AnyValue_DoubleValue:
		return fmt.Sprint(x.DoubleValue)
	case *commonpb.AnyValue_ArrayValue:
		var parts []string
		for _, e := range x.ArrayValue.GetValues() {
			parts = append(parts, r.anyString(e))
		}
		return strings.Join(parts, "\n")
	case nil:
		return ""
	}
	r.t.Fatalf("unexpected attribute value %v", v)
	return ""
}

func (r *resolver) kvs(kvs []*commonpb.KeyValue) map[string]string {
	m := map[string]string{}
	for _, kv := range kvs {
		k := kv.Key
		if k == "" && kv.KeyStrindex != 0 {
			k = r.str(kv.KeyStrindex)
		}
		m[k] = r.anyString(kv.Value)
	}
	return m
}

func (r *resolver) attrs(idx []int32) map[string]string {
	m := map[string]string{}
	for _, i := range idx {
		if i <= 0 || int(i) >= len(r.d.AttributeTable) {
			r.t.Fatalf("attribute index %d out of range 1..%d", i, len(r.d.AttributeTable)-1)
		}
		a := r.d.AttributeTable[i]
		v := r.anyString(a.Value)
		if u := r.str(a.UnitStrindex); u != "" {
			v += " " + u
		}
		m[r.str(a.KeyStrindex)] = v
	}
	return m
}

func (r *resolver) profile(p *profilespb.Profile, res, scope map[string]string, scopeName string) rProfile {
	out := rProfile{
		Resource: res, Scope: scope, ScopeName: scopeName,
		Attrs:  r.attrs(p.AttributeIndices),
		Type:   r.str(p.GetSampleType().GetTypeStrindex()),
		Unit:   r.str(p.GetSampleType().GetUnitStrindex()),
		Period: p.Period, Time: p.TimeUnixNano, Duration: p.DurationNano,
		Format: p.OriginalPayloadFormat, ID: p.ProfileId,
	}
	if p.PeriodType != nil {
		out.PeriodType = r.str(p.PeriodType.TypeStrindex) + "/" + r.str(p.PeriodType.UnitStrindex)
	}
	for _, s := range p.Samples {
		if s.StackIndex < 0 || int(s.StackIndex) >= len(r.d.StackTable) {
			r.t.Fatalf("stack index %d out of range", s.StackIndex)
		}
		if len(s.Values) != 1 {
			r.t.Fatalf("sample has %d values, want 1", len(s.Values))
		}
		rs := rSample{Labels: r.attrs(s.AttributeIndices), Value: s.Values[0], Times: s.TimestampsUnixNano}
		for _, li := range r.d.StackTable[s.StackIndex].LocationIndices {
			if li <= 0 || int(li) >= len(r.d.LocationTable) {
				r.t.Fatalf("location index %d out of range 1..%d", li, len(r.d.LocationTable)-1)
			}
			loc := r.d.LocationTable[li]
			if loc.MappingIndex < 0 || int(loc.MappingIndex) >= len(r.d.MappingTable) {
				r.t.Fatalf("mapping index %d out of range", loc.MappingIndex)
			}
			if len(loc.Lines) != 1 {
				r.t.Fatalf("location %d has %d lines, want 1", li, len(loc.Lines))
			}
			ln := loc.Lines[0]
			if ln.FunctionIndex <= 0 || int(ln.FunctionIndex) >= len(r.d.FunctionTable) {
				r.t.Fatalf("function index %d out of range", ln.FunctionIndex)
			}
			fn := r.d.FunctionTable[ln.FunctionIndex]
			name := r.str(fn.NameStrindex)
			rs.Funcs = append(rs.Funcs, name)
			rs.Frames = append(rs.Frames, fmt.Sprintf("%s %s:%d %s", name, r.str(fn.FilenameStrindex), ln.Line, r.str(fn.SystemNameStrindex)))
			rs.Types = append(rs.Types, r.attrs(loc.AttributeIndices)["profile.frame.type"])
			rs.Files = append(rs.Files, r.str(fn.FilenameStrindex))
			rs.Sys = append(rs.Sys, r.str(fn.SystemNameStrindex))
		}
		out.Samples = append(out.Samples, rs)
	}
	return out
}
