// Package folded writes one view of a graph as collapsed stacks, the
// text format of flamegraph.pl's stackcollapse scripts that speedscope
// and most flame graph tools read: one line per distinct stack,
//
//	java.lang.Thread.run;com.example.Worker.loop;java.util.HashMap.resize 42
//
// frames root first, separated by ";", then a space and the value. The
// format has no labels, so samples that differ only in labels are summed;
// lines are sorted by stack, so the output is stable run to run.
package folded

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
)

// ErrNoView: the graph has no view of the requested name.
var ErrNoView = errors.New("folded: no such view")

// ErrNoSampleType: the view has no sample type of the requested name.
var ErrNoSampleType = errors.New("folded: no such sample type")

// NoStack names the single frame of samples without a stack (a thread
// with no frames at dump time).
const NoStack = "(no stack)"

// SampleType is the column Write uses for a view when none is asked for:
// the view's default sample type, else its last one (as pprof does).
func SampleType(v *graph.View) string {
	if v.DefaultSampleType != "" && v.Index(v.DefaultSampleType) >= 0 {
		return v.DefaultSampleType
	}
	if len(v.SampleTypes) == 0 {
		return ""
	}
	return v.SampleTypes[len(v.SampleTypes)-1].Type
}

// Write writes the named view as collapsed stacks, valued by the sample
// type typ ("" for SampleType's choice). Stacks whose value is zero are
// left out.
func Write(w io.Writer, g *graph.Graph, view, typ string) error {
	v := g.View(view)
	if v == nil {
		return fmt.Errorf("%w: %q", ErrNoView, view)
	}
	if typ == "" {
		typ = SampleType(v)
	}
	col := v.Index(typ)
	if col < 0 {
		var have []string
		for _, st := range v.SampleTypes {
			have = append(have, st.Type)
		}
		return fmt.Errorf("%w: view %s has no %q (it has %s)", ErrNoSampleType, view, typ, strings.Join(have, ", "))
	}
	// Summed by the stack's line, not its id: stacks whose frames
	// differ only in their system names (hidden classes' exact names,
	// graph.Graph.NormalizeClasses) read alike and are one line.
	byStack := map[graph.StackID]int64{}
	for _, s := range v.Samples {
		if col < len(s.Values) {
			byStack[s.Stack] += s.Values[col]
		}
	}
	sums := make(map[string]int64, len(byStack))
	for id, n := range byStack {
		sums[stackLine(g, id)] += n
	}
	lines := make([]string, 0, len(sums))
	for stack, n := range sums {
		if n != 0 {
			lines = append(lines, stack+" "+strconv.FormatInt(n, 10))
		}
	}
	sort.Strings(lines)
	bw := bufio.NewWriter(w)
	for _, l := range lines {
		bw.WriteString(l)
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// stackLine joins a stack's frames root first. Readers split frames at
// ";" and lines at line breaks, so those become ":" and " " in names;
// spaces are safe, since readers take the value after the last space.
func stackLine(g *graph.Graph, id graph.StackID) string {
	st := g.Stacks[id]
	if len(st) == 0 {
		return NoStack
	}
	var b strings.Builder
	for i := len(st) - 1; i >= 0; i-- {
		if i != len(st)-1 {
			b.WriteByte(';')
		}
		b.WriteString(frameName(g.Frames[st[i]]))
	}
	return b.String()
}

var nameFix = strings.NewReplacer(";", ":", "\n", " ", "\r", " ")

func frameName(f graph.Frame) string {
	n := f.Function()
	if n == "" {
		n = "(unknown)"
	}
	return nameFix.Replace(n)
}
