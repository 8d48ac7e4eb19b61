package main

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/parquet"
)

// parquetTables is --tables: the heap tables to write besides the
// default ones (Parquet and Arrow).
var parquetTables string

func init() {
	registerFormat(outputFormat{
		name: "parquet",
		help: "Parquet tables of every input in -d DIR (samples, stacks, frames, classes, threads, views, sources; --tables adds objects, refs, strings, roots)",
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&parquetTables, "tables", "default",
				"with --format parquet or arrow: tables to write besides the default ones, comma-separated: objects, refs, strings, roots (the heap dump's objects, references, Strings and GC roots), heap (all four)")
		},
		open: func(dst destination) (formatWriter, error) { return openTables(dst, parquet.FormatParquet) },
	})
	registerFormat(outputFormat{
		name: "arrow",
		help: "the same tables as Arrow IPC files (DIR/<table>.arrow) for pandas, Polars, DataFusion",
		open: func(dst destination) (formatWriter, error) { return openTables(dst, parquet.FormatArrow) },
	})
}

// tablesWriter gathers every input into one set of tables in -d DIR;
// the source column of each row is the input path as given.
type tablesWriter struct{ w *parquet.Writer }

// openTables opens the table writer of a Parquet or Arrow conversion. A
// shard of a job (--shard i/n) writes its tables into DIR/shard-i-of-n/,
// so shards sharing one -d never overwrite each other's files and the
// whole directory reads as one table set through a glob
// (read_parquet('DIR/**/samples.parquet')).
func openTables(dst destination, format parquet.Format) (formatWriter, error) {
	if dst.Dir == "" || dst.Out != "" {
		return nil, fmt.Errorf("%w: --format %s writes a directory of tables: use -d DIR (not -o)", errUsage, format)
	}
	dir := dst.Dir
	if dst.Shard.Count > 1 {
		dir = filepath.Join(dir, shardDir(dst.Shard))
	}
	heap, err := parquet.ParseTables(parquetTables)
	if err != nil {
		return nil, fmt.Errorf("%w: --tables: %v", errUsage, err)
	}
	w, err := parquet.NewWriter(dir, parquet.Options{Format: format, HeapTables: heap})
	if err != nil {
		return nil, err
	}
	return &tablesWriter{w: w}, nil
}

// shardDir names the directory of one shard's tables.
func shardDir(s shard) string { return fmt.Sprintf("shard-%d-of-%d", s.Index, s.Count) }

func (p *tablesWriter) Add(ctx context.Context, input string, g *graph.Graph, views []string) ([]string, error) {
	return nil, p.w.AddViews(input, g, views)
}

// ObjectSink hands the heap tables' rows of one input to the writer.
func (p *tablesWriter) ObjectSink(input string) *graph.ObjectSink { return p.w.ObjectSink(input) }

func (p *tablesWriter) Close() ([]string, error) {
	if err := p.w.Close(); err != nil {
		return nil, err
	}
	return p.w.Files(), nil
}
