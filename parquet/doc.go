// Package parquet writes graphs as a small set of Parquet tables for batch
// analysis in DuckDB, Spark or Trino: many dumps converted into one
// directory (or many directories read together) answer "which classes grew",
// "top allocating methods across the fleet" or "CPU by thread" with one SQL
// statement each.
//
// A Writer appends one graph per input (a "source") and writes one file per
// table into a directory: sources, views, samples, stacks, frames, threads
// and classes (see README.md for the columns and example queries). Every
// row carries its source, and the ids in it (stack_id, frame_id) are the
// graph's own dense ids, stable within that source, so tables from many
// dumps concatenate without renumbering. They are numbered in the order
// the sorted samples use them, and the heap table rows of several inputs
// go in input order, so the same inputs give the same files run after
// run.
//
// Options.HeapTables adds the heap tables (objects, refs, strings, roots):
// one row per object, reference, String and GC root of a heap dump, which
// the decoder hands to Writer.ObjectSink as it reads the dump.
//
// Rows are buffered in Arrow builders and written as a Parquet row group
// whenever a table reaches Options.RowGroupRows rows, so the writer's own
// memory stays bounded however many sources are added. Columns are zstd
// compressed; strings are dictionary encoded (not a String's text, nor
// the heap tables' IDs). The heap tables use zstd level 1, small pages
// and delta-encoded object IDs, and hand their repeated strings to the
// writer as dictionary arrays (dictColumn). The same rows give the same file bytes, run
// after run (see dictionaryPageLimit). Each file's key-value
// metadata names the table and the schema version (MetaSchemaVersion);
// created_by names this program and the Parquet library (CreatedBy).
//
// With Options.Format = FormatArrow the same record batches go to Arrow
// IPC files (DIR/<table>.arrow) instead: a table is a schema plus record
// batches streamed to a sink, and only the sink differs.
package parquet

import (
	"runtime/debug"

	pq "github.com/apache/arrow/go/v15/parquet"
)

// SchemaVersion is the version of the table layout this package writes. It
// changes whenever a column is renamed, removed or changes type; adding a
// column does not change it.
const SchemaVersion = "1"

// Key-value metadata keys written into every file's footer.
const (
	MetaSchemaVersion = "hprof2pprof.schema_version" // SchemaVersion
	MetaTable         = "hprof2pprof.table"          // "samples", "stacks", …
	// MetaWriter is "hprof2pprof VERSION": Arrow IPC files have no
	// created_by, so the writer's version travels here in both formats.
	MetaWriter = "hprof2pprof.writer"
)

// CreatedBy is the footer's created_by: this program and its version, then
// the Parquet library and its version in the library's own words, so that
// readers can recognise the writer and work around its known bugs.
func CreatedBy() string {
	return "hprof2pprof " + programVersion() + " (" + pq.DefaultCreatedBy + ")"
}

// programVersion is the main module's version as the Go tool stamped it
// (a tag, or a pseudo-version of the commit), else "devel+REVISION" when
// only the commit was stamped, else "devel" (go test, go run).
func programVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			return "devel+" + s.Value[:12]
		}
	}
	return "devel"
}
