package batch

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/parquet"
)

func init() {
	registerFormat(outputFormat{
		// Parquet tables of every input in Dir (samples, stacks, frames,
		// classes, threads, views, sources; Tables adds objects, refs,
		// strings, roots)
		name: "parquet",
		open: func(dst Destination, o FormatOptions) (Writer, error) {
			return openTables(dst, o, parquet.FormatParquet)
		},
	})
	registerFormat(outputFormat{
		// the same tables as Arrow IPC files (DIR/<table>.arrow) for
		// pandas, Polars, DataFusion
		name: "arrow",
		open: func(dst Destination, o FormatOptions) (Writer, error) {
			return openTables(dst, o, parquet.FormatArrow)
		},
	})
}

// tablesWriter gathers every input into one set of tables in Dir;
// the source column of each row is the input path as given.
type tablesWriter struct{ w *parquet.Writer }

// openTables opens the table writer of a Parquet or Arrow conversion: a
// dataset partitioned by input (datasetWriter), or with Single one table
// set of every input in Dir. Then a shard of a job (i/n) writes its
// tables into Dir/shard-i-of-n/, so shards sharing one Dir never
// overwrite each other's files and the whole directory reads as one
// table set through a glob (read_parquet('DIR/**/samples.parquet')).
func openTables(dst Destination, o FormatOptions, format parquet.Format) (Writer, error) {
	if dst.Dir == "" || dst.Out != "" {
		return nil, fmt.Errorf("%w: --format %s writes a directory of tables: use -d DIR (not -o)", ErrUsage, format)
	}
	heap, err := parquet.ParseTables(o.Tables)
	if err != nil {
		return nil, fmt.Errorf("%w: --tables: %v", ErrUsage, err)
	}
	if !o.Single {
		return openDataset(dst.Dir, parquet.Options{Format: format, HeapTables: heap})
	}
	dir := dst.Dir
	if dst.Shard.Count > 1 {
		dir = filepath.Join(dir, shardDir(dst.Shard))
	}
	w, err := parquet.NewWriter(dir, parquet.Options{Format: format, HeapTables: heap})
	if err != nil {
		return nil, err
	}
	return &tablesWriter{w: w}, nil
}

// shardDir names the directory of one shard's tables.
func shardDir(s Shard) string { return fmt.Sprintf("shard-%d-of-%d", s.Index, s.Count) }

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
