package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/parquet"
)

// parquetTables is --tables: the heap tables to write besides the
// default ones.
var parquetTables string

func init() {
	registerFormat(outputFormat{
		name: "parquet",
		help: "Parquet tables of every input in -d DIR (samples, stacks, frames, classes, threads, views, sources; --tables adds objects, refs, strings, roots)",
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&parquetTables, "tables", "default",
				"with --format parquet: tables to write besides the default ones, comma-separated: objects, refs, strings, roots (the heap dump's objects, references, Strings and GC roots), heap (all four)")
		},
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
	heap, err := parquet.ParseTables(parquetTables)
	if err != nil {
		return nil, fmt.Errorf("%w: --tables: %v", errUsage, err)
	}
	w, err := parquet.NewWriter(dst.Dir, parquet.Options{HeapTables: heap})
	if err != nil {
		return nil, err
	}
	return &parquetWriter{w: w}, nil
}

func (p *parquetWriter) Add(ctx context.Context, input string, g *graph.Graph, views []string) ([]string, error) {
	return nil, p.w.AddViews(input, g, views)
}

// ObjectSink hands the heap tables' rows of one input to the writer.
func (p *parquetWriter) ObjectSink(input string) *graph.ObjectSink { return p.w.ObjectSink(input) }

func (p *parquetWriter) Close() ([]string, error) {
	if err := p.w.Close(); err != nil {
		return nil, err
	}
	return p.w.Files(), nil
}
