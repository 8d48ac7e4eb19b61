package otlp

import (
	"slices"
	"time"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
)

// StoreOptions shape profiles for backends that store and show them
// (Grafana Pyroscope, and Grafana Cloud, which follows the same rules),
// instead of mirroring pprof one sample type at a time:
//
//   - Every profile has a period type and a period that is not zero:
//     Pyroscope names a profile after its period type's type, and only
//     when the period is set. That type is the name the backend shows
//     (StoreName: process_cpu, memory, alloc, threads, retained, …), its
//     unit the unit of the view's default sample type; the period is the
//     view's (the CPU sampling interval) or 1. Sample types keep their
//     pprof names and values, so the backend shows process_cpu/cpu,
//     process_cpu/samples, memory/inuse_space, … with pprof's totals.
//   - A sample with no frames gets the frame "(no Java frames)" (under it
//     the thread's name when the sample has one), so it is not dropped.
//   - Sample attributes are kept only for labels whose values are few
//     whatever the input (thread state, Android heap); class, thread and
//     monitor names become attributes only when SampleAttrs names them,
//     since every distinct set of attributes becomes a stored series.
//   - Attribute values are cut to MaxAttrLen bytes (label values longer
//     than the backend's limit are refused).
type StoreOptions struct {
	// SampleAttrs lists graph label keys (thread, class, monitor, …) to
	// keep as sample attributes besides the bounded ones; "all" keeps
	// every label.
	SampleAttrs []string
	// Now, when not zero, is the time of every profile and sample (a
	// backend that refuses old profiles takes them); the input's own time
	// is then the resource attribute hprof.time.
	Now time.Time
}

// Names the store shape gives.
const (
	// NoFramesFunction is the frame of a sample with an empty stack.
	NoFramesFunction = "(no Java frames)"
	// AttrTime is the input's own time (RFC 3339) when StoreOptions.Now
	// replaces it as the profiles' time.
	AttrTime = "hprof.time"
	// MaxAttrLen bounds resource and scope attribute values in the store
	// shape (Pyroscope refuses label values over 2048 bytes).
	MaxAttrLen = 1024
)

// boundedLabels are the label keys whose values are few whatever the
// input: kept as sample attributes in the store shape.
var boundedLabels = []string{graph.LabelState, graph.LabelHeap}

// StoreName is the profile name a store shows for a view: the period
// type's type in the store shape. cpu becomes process_cpu (Pyroscope's
// name for every runtime's CPU profile), heap becomes memory (its name
// for every runtime's memory profile); other views keep their own name,
// so the alloc view's live counts do not add to the heap view's.
func StoreName(view string) string {
	switch view {
	case graph.ViewCPU:
		return "process_cpu"
	case graph.ViewHeap:
		return "memory"
	}
	return view
}

// storeProfile is one profile the store shape sends for a view: the
// view's sample type column, with its period type and period.
type storeProfile struct {
	col        int
	periodType graph.ValueType
	period     int64
}

// storeProfiles says which profiles the store shape sends for v: one
// per sample type, all with the period type naming the view.
func storeProfiles(v *graph.View) []storeProfile {
	unit := v.PeriodType.Unit
	if unit == "" && len(v.SampleTypes) > 0 {
		unit = v.SampleTypes[0].Unit
	}
	if i := slices.IndexFunc(v.SampleTypes, func(st graph.ValueType) bool { return st.Type == v.DefaultSampleType }); i >= 0 {
		unit = v.SampleTypes[i].Unit
	}
	pt := graph.ValueType{Type: StoreName(v.Name), Unit: unit}
	period := v.Period
	if period <= 0 {
		period = 1 // every object, thread or event counted once
	}
	out := make([]storeProfile, len(v.SampleTypes))
	for col := range v.SampleTypes {
		out[col] = storeProfile{col: col, periodType: pt, period: period}
	}
	return out
}

// keepLabel reports whether the store shape keeps a label as a sample
// attribute.
func (s *StoreOptions) keepLabel(key string) bool {
	if slices.Contains(boundedLabels, key) {
		return true
	}
	return slices.Contains(s.SampleAttrs, key) || slices.Contains(s.SampleAttrs, "all")
}

// cut shortens an attribute value to MaxAttrLen bytes on a UTF-8
// boundary.
func cut(s string) string {
	if len(s) <= MaxAttrLen {
		return s
	}
	i := MaxAttrLen
	for i > 0 && s[i]&0xC0 == 0x80 {
		i--
	}
	return s[:i] + "…"
}
