package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/pprofout"
)

func init() {
	registerFormat(outputFormat{
		name: "pprof",
		help: "one gzipped pprof profile per view (default)",
		open: func(dst destination) (formatWriter, error) {
			if dst.Out != "" && len(dst.Inputs) > 1 && len(dst.Views) == 1 {
				return nil, fmt.Errorf("%w: -o names one file, but there are %d inputs: use -d DIR", errUsage, len(dst.Inputs))
			}
			return &pprofWriter{dst: dst}, nil
		},
	})
}

type pprofWriter struct{ dst destination }

// path names the output of one view: -o itself for a single view,
// otherwise <OUT or input name>.<view>.pb.gz, in -d DIR when given.
func (w *pprofWriter) path(input, view string) string {
	return w.dst.viewPath(input, view, ".pb.gz")
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

// writeFileAtomic writes path through a temporary file in the same
// directory and renames it into place, so a killed run leaves no half
// file under the final name.
func writeFileAtomic(path string, write func(f *os.File) error) error {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	if err := write(f); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Chmod(tmp, 0o644); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}
