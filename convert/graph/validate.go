package graph

import (
	"fmt"
	"strings"
)

// Validate checks the invariants every emitter relies on, as pprof's
// Profile.CheckValid does for a profile: the reserved zero frame and
// stack, every frame and stack ID in range, one value per sample type,
// named and distinct views, no two samples of a view with the same stack
// and labels, labels with keys. The error names the view, the sample
// and what is wrong.
func (g *Graph) Validate() error {
	if len(g.Frames) == 0 || g.Frames[0] != (Frame{}) {
		return fmt.Errorf("graph: frame 0 is reserved and must be empty")
	}
	if len(g.Stacks) == 0 || len(g.Stacks[0]) != 0 {
		return fmt.Errorf("graph: stack 0 is reserved and must be empty")
	}
	for i, s := range g.Stacks {
		for _, f := range s {
			if f == 0 || int(f) >= len(g.Frames) {
				return fmt.Errorf("graph: stack %d names frame %d of %d", i, f, len(g.Frames))
			}
		}
	}
	for i, t := range g.Threads {
		if int(t.Stack) >= len(g.Stacks) {
			return fmt.Errorf("graph: thread %d (%q) names stack %d of %d", i, t.Name, t.Stack, len(g.Stacks))
		}
	}
	names := map[string]bool{}
	for _, v := range g.Views {
		if v.Name == "" || names[v.Name] {
			return fmt.Errorf("graph: view name %q empty or repeated", v.Name)
		}
		names[v.Name] = true
		if err := g.validateView(v); err != nil {
			return fmt.Errorf("graph: view %s: %w", v.Name, err)
		}
	}
	return nil
}

func (g *Graph) validateView(v *View) error {
	if len(v.SampleTypes) == 0 {
		return fmt.Errorf("no sample types")
	}
	seen := map[string]int{}
	for i, s := range v.Samples {
		if len(s.Values) != len(v.SampleTypes) {
			return fmt.Errorf("sample %d has %d values for %d sample types", i, len(s.Values), len(v.SampleTypes))
		}
		if int(s.Stack) >= len(g.Stacks) {
			return fmt.Errorf("sample %d names stack %d of %d", i, s.Stack, len(g.Stacks))
		}
		for _, l := range s.Labels {
			if l.Key == "" {
				return fmt.Errorf("sample %d has a label without a key", i)
			}
		}
		key := fmt.Sprint(s.Stack) + "|" + labelKey(s.Labels)
		if j, dup := seen[key]; dup {
			return fmt.Errorf("samples %d and %d share stack %d and labels %s", j, i, s.Stack, strings.TrimSuffix(labelKey(s.Labels), ";"))
		}
		seen[key] = i
	}
	return nil
}
