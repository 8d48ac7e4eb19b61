package graph

import (
	"strings"

	"github.com/hprof2pprof/hprof2pprof/convert/javaname"
)

// ExactClass is the frame's class as the input wrote it: RawClass when
// the class name was normalised, else Class.
func (f Frame) ExactClass() string {
	if f.RawClass != "" {
		return f.RawClass
	}
	return f.Class
}

// NormalizeClasses names every method and class frame, and every class
// label, by the run-independent form of its class (javaname.Normalize:
// "Foo$$Lambda$42.0x00000007c00c1670" becomes "Foo$$Lambda"), so two
// runs of one program name their frames and classes alike. A frame keeps
// the exact name in RawClass (its SystemName); frames that differ only
// in the exact name stay separate frames with one function name, which
// profile viewers add up. Sample order and stacks are unchanged, so no
// two samples of a view come to share stack and labels. Calling it again
// changes nothing.
func (g *Graph) NormalizeClasses() {
	changed := false
	for i := range g.Frames {
		f := &g.Frames[i]
		if (f.Kind != KindMethod && f.Kind != KindClass && f.Kind != KindField) || f.RawClass != "" {
			continue
		}
		if n := normalizeClass(f.Class); n != f.Class {
			f.RawClass, f.Class = f.Class, n
			changed = true
		}
	}
	for _, v := range g.Views {
		for i := range v.Samples {
			ls := v.Samples[i].Labels
			for j := range ls {
				if ls[j].Key == LabelClass && ls[j].Str != "" {
					ls[j].Str = normalizeClass(ls[j].Str)
				}
			}
		}
	}
	if !changed {
		return
	}
	clear(g.frameIdx)
	for i, f := range g.Frames[1:] {
		g.frameIdx[f] = FrameID(i + 1)
	}
}

// normalizeClass is javaname.Normalize of a class name as the views
// write it, also of the class a class object stands for in the retained
// view ("Foo$$Lambda+0x1.class").
func normalizeClass(name string) string {
	base, ok := strings.CutSuffix(name, ".class")
	if !ok {
		return javaname.Normalize(name)
	}
	if n := javaname.Normalize(base); n != base {
		return n + ".class"
	}
	return name
}

// compareRaw orders two stacks whose frames have the same names by the
// exact class names of their frames, so that stacks NormalizeClasses
// made alike still sort in one order.
func (g *Graph) compareRaw(a, b StackID) int {
	x, y := g.Stacks[a], g.Stacks[b]
	for i := 0; i < len(x) && i < len(y); i++ {
		if rx, ry := g.Frames[x[i]].RawClass, g.Frames[y[i]].RawClass; rx != ry {
			if rx < ry {
				return -1
			}
			return 1
		}
	}
	return len(x) - len(y)
}
