// Package pprofout turns one view of a graph into a pprof profile, the
// format `go tool pprof` reads.
//
// Each graph frame becomes one pprof Location with one Line; functions
// are named as Java users write them ("java.util.HashMap.resize"), with
// the JVM descriptor in system_name and the source file as filename.
// Java's special line numbers (-1 unknown, -2 compiled, -3 native) have
// no pprof equivalent and become line 0.
package pprofout

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/google/pprof/profile"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
)

// ErrNoView: the graph has no view of the requested name.
var ErrNoView = errors.New("pprofout: no such view")

// Profile builds the pprof profile of the named view.
func Profile(g *graph.Graph, view string) (*profile.Profile, error) {
	v := g.View(view)
	if v == nil {
		return nil, fmt.Errorf("%w: %q", ErrNoView, view)
	}
	b := builder{
		g:    g,
		p:    &profile.Profile{},
		fn:   map[fnKey]*profile.Function{},
		locs: map[graph.FrameID]*profile.Location{},
	}
	p := b.p
	for _, st := range v.SampleTypes {
		p.SampleType = append(p.SampleType, &profile.ValueType{Type: st.Type, Unit: st.Unit})
	}
	p.DefaultSampleType = v.DefaultSampleType
	if v.PeriodType.Type != "" {
		p.PeriodType = &profile.ValueType{Type: v.PeriodType.Type, Unit: v.PeriodType.Unit}
		p.Period = v.Period
	}
	if !v.Time.IsZero() {
		p.TimeNanos = v.Time.UnixNano()
	}
	p.DurationNanos = int64(v.Duration)
	p.Comments = append(p.Comments, sourceComment(g))
	p.Comments = append(p.Comments, v.Comments...)
	if g.Lost != "" {
		p.Comments = append(p.Comments, "PARTIAL: "+g.Lost)
	}
	p.Mapping = []*profile.Mapping{{
		ID:             1,
		File:           mappingName(g),
		HasFunctions:   true,
		HasFilenames:   true,
		HasLineNumbers: true,
	}}
	for _, s := range v.Samples {
		ps := &profile.Sample{Value: append([]int64(nil), s.Values...)}
		for _, f := range g.Stacks[s.Stack] {
			ps.Location = append(ps.Location, b.location(f))
		}
		for _, l := range s.Labels {
			if l.Str != "" || l.Unit == "" && l.Num == 0 {
				if ps.Label == nil {
					ps.Label = map[string][]string{}
				}
				ps.Label[l.Key] = append(ps.Label[l.Key], l.Str)
				continue
			}
			if ps.NumLabel == nil {
				ps.NumLabel = map[string][]int64{}
				ps.NumUnit = map[string][]string{}
			}
			ps.NumLabel[l.Key] = append(ps.NumLabel[l.Key], l.Num)
			ps.NumUnit[l.Key] = append(ps.NumUnit[l.Key], l.Unit)
		}
		p.Sample = append(p.Sample, ps)
	}
	if err := p.CheckValid(); err != nil {
		return nil, fmt.Errorf("pprofout: view %s: %w", view, err)
	}
	return p, nil
}

// Write writes the named view as a gzip-compressed pprof profile.
func Write(w io.Writer, g *graph.Graph, view string) error {
	p, err := Profile(g, view)
	if err != nil {
		return err
	}
	return p.Write(w)
}

func sourceComment(g *graph.Graph) string {
	s := g.Source
	c := fmt.Sprintf("source: %s (%s", s.Path, s.Format)
	if s.Version != "" {
		c += ", " + s.Version
	}
	if s.IDSize != 0 {
		c += fmt.Sprintf(", ID size %d", s.IDSize)
	}
	if s.Compression != "" {
		c += ", " + s.Compression
	}
	return c + ")"
}

func mappingName(g *graph.Graph) string {
	if g.Source.Path == "" || g.Source.Path == "-" {
		return "java"
	}
	return filepath.Base(g.Source.Path)
}

type fnKey struct{ name, system, file string }

type builder struct {
	g    *graph.Graph
	p    *profile.Profile
	fn   map[fnKey]*profile.Function
	locs map[graph.FrameID]*profile.Location
}

func (b *builder) location(id graph.FrameID) *profile.Location {
	if l, ok := b.locs[id]; ok {
		return l
	}
	f := b.g.Frames[id]
	k := fnKey{f.Function(), f.SystemName(), f.File}
	fn, ok := b.fn[k]
	if !ok {
		fn = &profile.Function{ID: uint64(len(b.p.Function) + 1), Name: k.name, SystemName: k.system, Filename: k.file}
		b.fn[k] = fn
		b.p.Function = append(b.p.Function, fn)
	}
	line := int64(f.Line)
	if line < 0 {
		line = 0
	}
	l := &profile.Location{
		ID:      uint64(len(b.p.Location) + 1),
		Mapping: b.p.Mapping[0],
		Line:    []profile.Line{{Function: fn, Line: line}},
	}
	b.locs[id] = l
	b.p.Location = append(b.p.Location, l)
	return l
}
