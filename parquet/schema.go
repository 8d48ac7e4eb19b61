package parquet

import (
	"github.com/apache/arrow/go/v15/arrow"
)

// Table names; each is written to DIR/<name>.parquet.
const (
	TableSources = "sources"
	TableViews   = "views"
	TableSamples = "samples"
	TableStacks  = "stacks"
	TableFrames  = "frames"
	TableThreads = "threads"
	TableClasses = "classes"
	TablePaths   = "paths"
)

// Tables lists every table in the order the files are written.
var Tables = []string{TableSources, TableViews, TableSamples, TableStacks, TableFrames, TableThreads, TableClasses, TablePaths}

// ValueColumns are the sample types that get a column of their own in the
// samples table (NULL in rows of views without that type). A sample type
// not listed here goes into the samples table's other_values map.
var ValueColumns = []string{
	"samples", "cpu",
	"alloc_objects", "alloc_space",
	"inuse_objects", "inuse_space",
	"threads",
	"calls", "time", // cputime, cpuold
	"contentions", "delay", // monitor
}

var (
	tString    = arrow.BinaryTypes.String
	tInt64     = arrow.PrimitiveTypes.Int64
	tInt32     = arrow.PrimitiveTypes.Int32
	tTimestamp = arrow.FixedWidthTypes.Timestamp_us // UTC
	tStrings   = arrow.ListOf(arrow.BinaryTypes.String)
	tInt64s    = arrow.ListOf(arrow.PrimitiveTypes.Int64)
	tCounts    = arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64)
	tStrMap    = arrow.MapOf(arrow.BinaryTypes.String, arrow.BinaryTypes.String)
)

func req(name string, t arrow.DataType) arrow.Field { return arrow.Field{Name: name, Type: t} }
func opt(name string, t arrow.DataType) arrow.Field {
	return arrow.Field{Name: name, Type: t, Nullable: true}
}

// schemaOf returns the Arrow schema of a table, with the table name and
// schema version in its metadata (which pqarrow copies into the Parquet
// footer's key-value metadata).
func schemaOf(table string) *arrow.Schema {
	var fields []arrow.Field
	switch table {
	case TableSources:
		fields = []arrow.Field{
			req("source", tString),
			req("path", tString),
			opt("format", tString),
			opt("version", tString),
			opt("id_size", tInt32),
			opt("time", tTimestamp),
			opt("writer", tString),
			req("bytes", tInt64),
			opt("compression", tString),
			req("dumps", tInt32),
			req("dump", tInt32),
			opt("records", tCounts),
			req("soft_total", tInt64),
			opt("soft", tCounts),
			opt("damage", tString),
			opt("lost", tString),
			opt("notes", tStrings),
			req("frames", tInt64),
			req("stacks", tInt64),
			req("threads", tInt64),
		}
	case TableViews:
		fields = []arrow.Field{
			req("source", tString),
			req("view", tString),
			req("sample_types", tStrings),
			req("sample_units", tStrings),
			opt("default_sample_type", tString),
			opt("period_type", tString),
			opt("period_unit", tString),
			req("period", tInt64),
			opt("time", tTimestamp),
			req("duration_ns", tInt64),
			req("samples", tInt64),
			opt("comments", tStrings),
		}
	case TableSamples:
		fields = []arrow.Field{
			req("source", tString),
			req("view", tString),
			req("stack_id", tInt64),
			opt("leaf", tString),
			opt("function", tString),
			opt("thread", tString),
			opt("state", tString),
			opt("class", tString),
			opt("class_raw", tString),
			opt("heap", tString),
			opt("monitor", tString),
			opt("labels", tStrMap),
			opt("num_labels", tCounts),
		}
		for _, c := range ValueColumns {
			fields = append(fields, opt(c, tInt64))
		}
		fields = append(fields, opt("other_values", tCounts))
	case TableStacks:
		fields = []arrow.Field{
			req("source", tString),
			req("stack_id", tInt64),
			req("depth", tInt32),
			req("frame_ids", tInt64s),
			req("functions", tStrings),
		}
	case TableFrames:
		fields = []arrow.Field{
			req("source", tString),
			req("frame_id", tInt64),
			req("kind", tString),
			req("function", tString),
			req("class", tString),
			req("class_raw", tString),
			opt("method", tString),
			opt("signature", tString),
			opt("file", tString),
			req("line", tInt32),
		}
	case TableThreads:
		fields = []arrow.Field{
			req("source", tString),
			opt("serial", tInt64),
			opt("object_id", tInt64),
			opt("name", tString),
			opt("group", tString),
			opt("class", tString),
			opt("state", tString),
			req("stack_id", tInt64),
			opt("function", tString),
		}
	case TableClasses:
		fields = []arrow.Field{
			req("source", tString),
			req("class", tString),
			req("class_raw", tString),
			req("instances", tInt64),
			req("shallow_bytes", tInt64),
			opt("retained_bytes", tInt64),
		}
	case TablePaths:
		fields = pathsFields
	default:
		if fields = heapFields(table); fields == nil {
			return nil
		}
	}
	md := arrow.NewMetadata([]string{MetaSchemaVersion, MetaTable, MetaWriter},
		[]string{SchemaVersion, table, "hprof2pprof " + programVersion()})
	return arrow.NewSchema(fields, &md)
}
