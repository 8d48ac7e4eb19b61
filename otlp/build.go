package otlp

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	collectorpb "go.opentelemetry.io/proto/otlp/collector/profiles/v1development"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	profilespb "go.opentelemetry.io/proto/otlp/profiles/v1development"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	"google.golang.org/protobuf/proto"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
)

// Sentinel errors; wrapped with what and where.
var (
	// ErrNoInput means Build was given no graph.
	ErrNoInput = errors.New("otlp: no input graph")
	// ErrNoView means a requested view is not in a graph.
	ErrNoView = errors.New("otlp: view not in input")
	// ErrBadGraph means a graph breaks its own invariants (an index out
	// of range, a sample with the wrong number of values).
	ErrBadGraph = errors.New("otlp: inconsistent graph")
)

// ScopeName is the instrumentation scope name on every scope.
const ScopeName = "github.com/hprof2pprof/hprof2pprof/otlp"

// Options control Build.
type Options struct {
	// ServiceName is service.name on every resource. Empty: the input's
	// base name without extensions ("app" for "/tmp/app.hprof.gz").
	ServiceName string
	// Views selects views by name. Empty: every view of every graph.
	// A graph lacking a named view is an ErrNoView error.
	Views []string
	// Version is the scope version (the converter's version); optional.
	Version string
	// ResourceAttrs are added to every resource after the built-in
	// attributes; one with the key of a built-in attribute replaces it.
	// They also enter the profile ids, so two resources that differ only
	// here (two JVMs sending the same numbers) get different ids.
	ResourceAttrs []*commonpb.KeyValue
	// Store, when set, shapes the profiles for backends that store them
	// (Grafana Pyroscope): see StoreOptions. Nil: one profile per pprof
	// sample type with pprof's period, labels and stacks.
	Store *StoreOptions
}

// Build turns graphs into one export request with one shared dictionary:
// a resource per graph, a scope per view, a profile per sample type.
func Build(gs []*graph.Graph, opts Options) (*collectorpb.ExportProfilesServiceRequest, error) {
	if len(gs) == 0 {
		return nil, ErrNoInput
	}
	b := NewBuilder(opts)
	for _, g := range gs {
		if err := b.Add(g, opts.Views); err != nil {
			return nil, err
		}
	}
	return b.Request(), nil
}

// Builder gathers graphs into one request, one at a time, keeping only
// the request: the graphs can be dropped after Add.
type Builder struct {
	b   builder
	req *collectorpb.ExportProfilesServiceRequest
}

// NewBuilder starts an empty request. opts.Views is ignored; Add takes
// the views per graph.
func NewBuilder(opts Options) *Builder {
	return &Builder{
		b:   builder{d: newDict(), opts: opts},
		req: &collectorpb.ExportProfilesServiceRequest{},
	}
}

// Add appends a resource for g with the named views (all when empty). On
// error nothing of g is in the request, though the dictionary may hold
// entries nothing references.
func (b *Builder) Add(g *graph.Graph, views []string) error {
	if g == nil {
		return ErrNoInput
	}
	b.b.opts.Views = views
	vs, err := b.b.views(g)
	if err != nil {
		return err
	}
	return b.addViews(g, vs)
}

// addViews appends a resource for g holding the given views, which need
// not be g's own (a part of a view split by Split).
func (b *Builder) addViews(g *graph.Graph, views []*graph.View) error {
	rp, err := b.b.resource(g, views)
	if err != nil {
		return err
	}
	b.req.ResourceProfiles = append(b.req.ResourceProfiles, rp)
	return nil
}

// Len is the number of graphs added.
func (b *Builder) Len() int { return len(b.req.ResourceProfiles) }

// Request returns the request built so far, sharing its dictionary.
func (b *Builder) Request() *collectorpb.ExportProfilesServiceRequest {
	b.req.Dictionary = b.b.d.d
	return b.req
}

type builder struct {
	d    *dict
	opts Options

	// per graph: graph FrameID → location index, StackID → stack index
	locs   []int32
	stacks []int32
	// part numbers a split view's profiles in their ids; 0 when whole
	part int
}

func (b *builder) resource(g *graph.Graph, views []*graph.View) (*profilespb.ResourceProfiles, error) {
	b.locs = make([]int32, len(g.Frames))
	b.stacks = make([]int32, len(g.Stacks))
	for i := range b.stacks {
		b.stacks[i] = -1
	}
	rp := &profilespb.ResourceProfiles{
		Resource:  &resourcepb.Resource{Attributes: b.resourceAttrs(g)},
		SchemaUrl: semconv.SchemaURL,
	}
	for _, v := range views {
		sp, err := b.scope(g, v)
		if err != nil {
			return nil, fmt.Errorf("%s: view %s: %w", sourceName(g), v.Name, err)
		}
		rp.ScopeProfiles = append(rp.ScopeProfiles, sp)
	}
	return rp, nil
}

// views returns the graph's views that Options.Views selects, in the
// order the options name them (graph order when none are named).
func (b *builder) views(g *graph.Graph) ([]*graph.View, error) {
	if len(b.opts.Views) == 0 {
		return g.Views, nil
	}
	var out []*graph.View
	for _, name := range b.opts.Views {
		v := g.View(name)
		if v == nil {
			var have []string
			for _, v := range g.Views {
				have = append(have, v.Name)
			}
			return nil, fmt.Errorf("%w: %s has no view %q (has %s)", ErrNoView, sourceName(g), name, strings.Join(have, ", "))
		}
		out = append(out, v)
	}
	return out, nil
}

func (b *builder) resourceAttrs(g *graph.Graph) []*commonpb.KeyValue {
	s := g.Source
	service := b.opts.ServiceName
	if service == "" {
		service = DefaultServiceName(s.Path)
	}
	attrs := []*commonpb.KeyValue{strKV(attrServiceName, service), strKV(attrRuntimeName, "java")}
	add := func(k, v string) {
		if v != "" {
			attrs = append(attrs, strKV(k, v))
		}
	}
	if s.Path != "" && s.Path != "-" {
		add(attrFilePath, s.Path)
		add(attrFileName, filepath.Base(s.Path))
	}
	add(AttrFormat, s.Format)
	add(AttrVersion, s.Version)
	add(AttrWriter, s.Writer)
	if g.Damage != nil {
		add(AttrDamage, g.Damage.Error())
		add(AttrLost, g.Lost)
	}
	if st := b.opts.Store; st != nil && !st.Now.IsZero() && !s.Time.IsZero() {
		add(AttrTime, s.Time.UTC().Format(time.RFC3339Nano))
	}
	for _, kv := range b.opts.ResourceAttrs {
		if i := slices.IndexFunc(attrs, func(a *commonpb.KeyValue) bool { return a.Key == kv.Key }); i >= 0 {
			attrs[i] = kv
		} else {
			attrs = append(attrs, kv)
		}
	}
	if b.opts.Store != nil {
		cutValues(attrs)
	}
	return attrs
}

// cutValues shortens string attribute values for the store shape.
func cutValues(attrs []*commonpb.KeyValue) {
	for i, kv := range attrs {
		if sv, ok := kv.GetValue().GetValue().(*commonpb.AnyValue_StringValue); ok && len(sv.StringValue) > MaxAttrLen {
			attrs[i] = strKV(kv.Key, cut(sv.StringValue))
		}
	}
}

// DefaultServiceName is the service.name used when none is given: the
// input's base name without its extensions, or unknown_service:java for
// standard input.
func DefaultServiceName(path string) string {
	base := filepath.Base(path)
	if path == "" || path == "-" || base == "." || base == "/" {
		return "unknown_service:java"
	}
	if i := strings.IndexByte(base, '.'); i > 0 {
		base = base[:i]
	}
	return base
}

func (b *builder) scope(g *graph.Graph, v *graph.View) (*profilespb.ScopeProfiles, error) {
	scopeAttrs := []*commonpb.KeyValue{strKV(AttrView, v.Name)}
	if v.DefaultSampleType != "" {
		scopeAttrs = append(scopeAttrs, strKV(attrDefaultType, v.DefaultSampleType))
	}
	if b.opts.Store != nil {
		cutValues(scopeAttrs)
	}
	sp := &profilespb.ScopeProfiles{
		Scope:     &commonpb.InstrumentationScope{Name: ScopeName, Version: b.opts.Version, Attributes: scopeAttrs},
		SchemaUrl: semconv.SchemaURL,
	}
	// Resolve stacks and attributes once for all sample types.
	stacks, attrs, err := b.samples(g, v)
	if err != nil {
		return nil, err
	}
	ts := unixNano(b.profileTime(g, v))
	profAttrs := b.profileAttrs(v)
	for _, pr := range b.profilesOf(v) {
		st := v.SampleTypes[pr.col]
		p := &profilespb.Profile{
			SampleType:            &profilespb.ValueType{TypeStrindex: b.d.str(st.Type), UnitStrindex: b.d.str(st.Unit)},
			TimeUnixNano:          ts,
			OriginalPayloadFormat: PayloadFormat,
			AttributeIndices:      profAttrs,
		}
		if v.Duration > 0 {
			p.DurationNano = uint64(v.Duration)
		}
		if pr.periodType != (graph.ValueType{}) {
			p.PeriodType = &profilespb.ValueType{TypeStrindex: b.d.str(pr.periodType.Type), UnitStrindex: b.d.str(pr.periodType.Unit)}
			p.Period = pr.period
		}
		var total int64
		for i, s := range v.Samples {
			x := s.Values[pr.col]
			if x == 0 {
				continue
			}
			total += x
			smp := &profilespb.Sample{StackIndex: stacks[i], AttributeIndices: attrs[i], Values: []int64{x}}
			if ts != 0 {
				smp.TimestampsUnixNano = []uint64{ts}
			}
			p.Samples = append(p.Samples, smp)
		}
		p.ProfileId = profileID(g, v, st, ts, len(p.Samples), total, b.opts.ResourceAttrs, b.part)
		sp.Profiles = append(sp.Profiles, p)
	}
	return sp, nil
}

// samples resolves every sample's stack and attributes.
func (b *builder) samples(g *graph.Graph, v *graph.View) (stacks []int32, attrs [][]int32, err error) {
	stacks = make([]int32, len(v.Samples))
	attrs = make([][]int32, len(v.Samples))
	for i, s := range v.Samples {
		if len(s.Values) != len(v.SampleTypes) {
			return nil, nil, fmt.Errorf("%w: sample %d has %d values for %d sample types", ErrBadGraph, i, len(s.Values), len(v.SampleTypes))
		}
		var st int32
		if b.opts.Store != nil && int(s.Stack) < len(g.Stacks) && len(g.Stacks[s.Stack]) == 0 {
			st = b.noFrames(s.Labels)
		} else if st, err = b.stack(g, s.Stack); err != nil {
			return nil, nil, fmt.Errorf("sample %d: %w", i, err)
		}
		stacks[i] = st
		attrs[i] = b.labels(s.Labels)
	}
	return stacks, attrs, nil
}

// noFrames is the stack of a sample with no frames in the store shape:
// NoFramesFunction, with the thread's name under it when the sample has
// one ("thread Signal Dispatcher").
func (b *builder) noFrames(ls []graph.Label) int32 {
	root := b.d.location(graph.Frame{Kind: graph.KindRoot, Class: NoFramesFunction})
	for _, l := range ls {
		if l.Key == graph.LabelThread && l.Str != "" {
			leaf := b.d.location(graph.Frame{Kind: graph.KindRoot, Class: "thread " + l.Str})
			return b.d.stack([]int32{leaf, root})
		}
	}
	return b.d.stack([]int32{root})
}

// profilesOf says which profiles a view becomes: one per sample type
// with the view's period, or the store shape's choice.
func (b *builder) profilesOf(v *graph.View) []storeProfile {
	if b.opts.Store != nil {
		return storeProfiles(v)
	}
	out := make([]storeProfile, len(v.SampleTypes))
	for col := range v.SampleTypes {
		out[col] = storeProfile{col: col, periodType: v.PeriodType, period: v.Period}
	}
	return out
}

// profileTime is the time of a view's profiles: StoreOptions.Now when
// set, else the view's own start, else the input's header time.
func (b *builder) profileTime(g *graph.Graph, v *graph.View) time.Time {
	if st := b.opts.Store; st != nil && !st.Now.IsZero() {
		return st.Now
	}
	if !v.Time.IsZero() {
		return v.Time
	}
	return g.Source.Time
}

// profileAttrs are the attributes on every profile of a view: its name
// and the pprof comments.
func (b *builder) profileAttrs(v *graph.View) []int32 {
	profAttrs := []int32{b.d.attrStr(AttrView, v.Name)}
	if len(v.Comments) > 0 {
		vals := make([]*commonpb.AnyValue, len(v.Comments))
		for i, c := range v.Comments {
			vals[i] = &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: c}}
		}
		profAttrs = append(profAttrs, b.d.attrValue(attrComment,
			&commonpb.AnyValue{Value: &commonpb.AnyValue_ArrayValue{ArrayValue: &commonpb.ArrayValue{Values: vals}}}))
	}
	return profAttrs
}

// stack returns the dictionary stack for a graph stack, interning its
// frames' locations on first use.
func (b *builder) stack(g *graph.Graph, id graph.StackID) (int32, error) {
	if int(id) >= len(g.Stacks) {
		return 0, fmt.Errorf("%w: stack %d out of range (%d stacks)", ErrBadGraph, id, len(g.Stacks))
	}
	if b.stacks[id] >= 0 {
		return b.stacks[id], nil
	}
	frames := g.Stacks[id]
	locs := make([]int32, len(frames))
	for i, f := range frames {
		if f == 0 || int(f) >= len(g.Frames) {
			return 0, fmt.Errorf("%w: stack %d frame %d is %d (%d frames)", ErrBadGraph, id, i, f, len(g.Frames))
		}
		if b.locs[f] == 0 {
			b.locs[f] = b.d.location(g.Frames[f])
		}
		locs[i] = b.locs[f]
	}
	b.stacks[id] = b.d.stack(locs)
	return b.stacks[id], nil
}

// labels returns the attribute indices for a sample's labels.
func (b *builder) labels(ls []graph.Label) []int32 {
	if len(ls) == 0 {
		return nil
	}
	out := make([]int32, 0, len(ls))
	for _, l := range ls {
		if b.opts.Store != nil && !b.opts.Store.keepLabel(l.Key) {
			continue
		}
		key := AttributeKey(l.Key)
		if l.Str != "" || (l.Num == 0 && l.Unit == "") {
			out = append(out, b.d.attrStr(key, l.Str))
		} else {
			out = append(out, b.d.attrInt(key, l.Num, l.Unit))
		}
	}
	slices.Sort(out)
	return out
}

// profileID is a stable 16-byte id for one profile: the same input
// converted twice gives the same id, so a retried or repeated push can be
// recognised downstream.
func profileID(g *graph.Graph, v *graph.View, st graph.ValueType, ts uint64, n int, total int64, extra []*commonpb.KeyValue, part int) []byte {
	h := sha256.New()
	var num [8]byte
	for _, s := range []string{g.Source.Path, g.Source.Format, v.Name, st.Type, st.Unit} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	for _, kv := range extra { // none: the ids of earlier versions
		h.Write([]byte(kv.Key))
		h.Write([]byte{0})
		val, _ := proto.MarshalOptions{Deterministic: true}.Marshal(kv.GetValue())
		h.Write(val)
		h.Write([]byte{0})
	}
	for _, x := range []uint64{ts, uint64(n), uint64(total), uint64(g.Source.Bytes)} {
		binary.LittleEndian.PutUint64(num[:], x)
		h.Write(num[:])
	}
	if part > 0 { // a part of a split view; whole views keep their ids
		binary.LittleEndian.PutUint64(num[:], uint64(part))
		h.Write(num[:])
	}
	return h.Sum(nil)[:16]
}

func strKV(k, v string) *commonpb.KeyValue {
	return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v}}}
}

func sourceName(g *graph.Graph) string {
	if g.Source.Path == "" {
		return "input"
	}
	return g.Source.Path
}

// unixNano converts t for OTLP; zero for the zero time.
func unixNano(t time.Time) uint64 {
	if t.IsZero() || t.UnixNano() <= 0 {
		return 0
	}
	return uint64(t.UnixNano())
}
