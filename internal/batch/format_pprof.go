package batch

import (
	"context"
	"fmt"
	"os"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/pprofout"
)

func init() {
	registerFormat(outputFormat{
		name: "pprof", // one gzipped pprof profile per view
		open: func(dst Destination, _ FormatOptions) (Writer, error) {
			if dst.Out != "" && len(dst.Inputs) > 1 && len(dst.Views) == 1 {
				return nil, fmt.Errorf("%w: -o names one file, but there are %d inputs: use -d DIR", ErrUsage, len(dst.Inputs))
			}
			return &pprofWriter{dst: dst}, nil
		},
	})
}

type pprofWriter struct{ dst Destination }

// path names the output of one view: -o itself for a single view,
// otherwise <OUT or input name>.<view>.pb.gz, in -d DIR when given.
func (w *pprofWriter) path(input, view string) string {
	return w.dst.ViewPath(input, view, ".pb.gz")
}

func (w *pprofWriter) Add(ctx context.Context, input string, g *graph.Graph, views []string) ([]string, error) {
	var wrote []string
	for _, v := range views {
		p := w.path(input, v)
		if p == "-" {
			if err := pprofout.Write(w.dst.Stdout, g, v); err != nil {
				return wrote, err
			}
			wrote = append(wrote, "standard output")
			continue
		}
		if err := writeFileAtomic(p, func(f *os.File) error { return pprofout.Write(f, g, v) }); err != nil {
			return wrote, err
		}
		wrote = append(wrote, p)
	}
	return wrote, nil
}

// perInput: each input's profiles are written by Add, which only reads
// w.dst, so it is safe for concurrent use.
func (w *pprofWriter) perInput() bool { return true }

func (w *pprofWriter) Close() ([]string, error) { return nil, nil }
