package batch

import (
	"context"
	"os"
	"slices"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/folded"
)

func init() {
	registerFormat(outputFormat{
		// collapsed stacks ('frame;frame;frame value', root first) per
		// view, for flamegraph.pl and speedscope
		name: "folded",
		open: func(dst Destination, o FormatOptions) (Writer, error) {
			return &foldedWriter{dst: dst, types: o.FoldedTypes}, nil
		},
	})
}

// foldedWriter writes <Out or input name>.<view>.folded for each view, or
// Out itself for one view.
type foldedWriter struct {
	dst   Destination
	types []string
}

func (w *foldedWriter) Add(ctx context.Context, input string, g *graph.Graph, views []string) ([]string, error) {
	var wrote []string
	for _, v := range views {
		typ := w.typeFor(g.View(v))
		p := w.dst.ViewPath(input, v, ".folded")
		if p == "-" {
			if err := folded.Write(w.dst.Stdout, g, v, typ); err != nil {
				return wrote, err
			}
			wrote = append(wrote, "standard output")
			continue
		}
		if err := writeFileAtomic(p, func(f *os.File) error { return folded.Write(f, g, v, typ) }); err != nil {
			return wrote, err
		}
		wrote = append(wrote, p)
	}
	return wrote, nil
}

// typeFor picks the first of w.types the view has ("" for its default).
func (w *foldedWriter) typeFor(v *graph.View) string {
	if v == nil {
		return ""
	}
	for _, t := range w.types {
		if slices.ContainsFunc(v.SampleTypes, func(st graph.ValueType) bool { return st.Type == t }) {
			return t
		}
	}
	return ""
}

// perInput: Add only reads w, so it is safe for concurrent use.
func (w *foldedWriter) perInput() bool { return true }

func (w *foldedWriter) Close() ([]string, error) { return nil, nil }
