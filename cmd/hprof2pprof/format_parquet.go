package main

import (
	"context"
	"fmt"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/parquet"
)

func init() {
	registerFormat(outputFormat{
		name: "parquet",
		help: "Parquet tables of every input in -d DIR (samples, stacks, frames, classes, threads, views, sources)",
		open: openParquet,
	})
}

// parquetWriter gathers every input into one set of tables in -d DIR;
// the source column of each row is the input path as given.
type parquetWriter struct{ w *parquet.Writer }

func openParquet(dst destination) (formatWriter, error) {
	if dst.Dir == "" || dst.Out != "" {
		return nil, fmt.Errorf("%w: --format parquet writes a directory of tables: use -d DIR (not -o)", errUsage)
	}
	w, err := parquet.NewWriter(dst.Dir, parquet.Options{})
	if err != nil {
		return nil, err
	}
	return &parquetWriter{w: w}, nil
}

func (p *parquetWriter) Add(ctx context.Context, input string, g *graph.Graph, views []string) ([]string, error) {
	return nil, p.w.AddViews(input, g, views)
}

func (p *parquetWriter) Close() ([]string, error) {
	if err := p.w.Close(); err != nil {
		return nil, err
	}
	return p.w.Files(), nil
}
