package parquet

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/apache/arrow/go/v15/arrow"
	pq "github.com/apache/arrow/go/v15/parquet"
	"github.com/apache/arrow/go/v15/parquet/compress"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
)

// The heap tables: one row per object, reference, String and GC root of
// a heap dump. They are opt-in (Options.HeapTables, `--tables`), as they
// are as large as the dump's object graph; rows arrive from the decoder
// through ObjectSink while it reads the dump, and are written in row
// groups like every other table, so no table is held whole.

// Heap table names.
const (
	TableObjects = "objects"
	TableRefs    = "refs"
	TableStrings = "strings"
	TableRoots   = "roots"
)

// HeapTables lists the heap tables in the order their files are written.
var HeapTables = []string{TableObjects, TableRefs, TableStrings, TableRoots}

// ParseTables reads a --tables list: heap table names, "heap" for all
// of them, and "default" or the default tables' names (always written).
// It returns the heap tables named, in HeapTables order.
func ParseTables(list string) ([]string, error) {
	var heap []string
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		switch {
		case name == "" || name == "default" || slices.Contains(Tables, name):
		case name == "heap":
			heap = append(heap, HeapTables...)
		case slices.Contains(HeapTables, name):
			heap = append(heap, name)
		default:
			return nil, fmt.Errorf("parquet: unknown table %q (have default, %s, %s, heap)",
				name, strings.Join(Tables, ", "), strings.Join(HeapTables, ", "))
		}
	}
	var out []string
	for _, t := range HeapTables {
		if slices.Contains(heap, t) {
			out = append(out, t)
		}
	}
	return out, nil
}

// heapRowGroupFactor makes the heap tables' row groups this many times
// Options.RowGroupRows (256Ki rows by default): their rows are narrow, and
// the zstd codec sets up an encoder for every page it compresses, which
// costs as much as compressing a small page.
const heapRowGroupFactor = 4

// heapCompressionLevel is the heap tables' zstd level unless
// Options.CompressionLevel sets one: the fastest (level 1 of zstd's
// scale), whose encoder Arrow v15 sets up the cheapest for every page.
// Their columns are mostly numbers, which it compresses nearly as well
// as the default level.
const heapCompressionLevel = 1

// heapPageSize is the heap tables' data page size. Arrow v15 compresses
// every page with a zstd encoder of its own; one at the fastest level
// takes a page of up to 64 KiB in one block without allocating its 8 MiB
// history window, which a bigger page makes it allocate and clear. Pages
// end at the first batch of 1,024 values past this size: an int64
// column's pages stay under 56 KiB.
const heapPageSize = 48 << 10

// deltaColumns are required int64 columns of the heap tables written
// DELTA_BINARY_PACKED: object IDs in dump order and the counts beside
// them change little from row to row, so the page holds a few bits per
// value where plain encoding has eight bytes for zstd to compress. A
// reference's target changes more, but mostly within the heap's range:
// delta-packed it costs zstd half the time for a fifth more bytes.
// (The optional columns stay plain: Arrow v15's delta encoder fails on
// a column with nulls.)
var deltaColumns = map[string][]string{
	TableObjects: {"object_id"},
	TableRefs:    {"from_id", "to_id"},
	TableStrings: {"object_id", "length", "shallow_size", "array_id", "array_bytes"},
	TableRoots:   {"object_id"},
}

// uncompressedColumns are heap table columns written without zstd: a
// reference's target, delta-packed, is close to random bits, which zstd
// shrinks by a sixth (bench-1g: 104 to 88 MB) for about 7 % of the heap
// tables' CPU.
var uncompressedColumns = map[string][]string{
	TableRefs: {"to_id"},
}

// uniqueColumns are heap table columns whose values are (nearly) all
// distinct, or, for a String's text, mostly distinct and long: a
// dictionary only costs time and memory there, and past
// dictionaryPageLimit Arrow would give it up for plain pages, which makes
// the file differ from run to run (see newParquetSink).
var uniqueColumns = map[string][]string{
	TableObjects: {"object_id", "retained_size", "dominator_id"},
	TableRefs:    {"from_id", "to_id", "array_index"},
	TableStrings: {"object_id", "array_id", "value"},
	TableRoots:   {"object_id"},
}

// heapColumnProps are the writer properties of a heap table's columns.
func heapColumnProps(table string) []pq.WriterProperty {
	var props []pq.WriterProperty
	for _, c := range uniqueColumns[table] {
		props = append(props, pq.WithDictionaryFor(c, false))
	}
	for _, f := range heapFields(table) {
		if hasDictColumn(table, f) {
			props = append(props, pq.WithStatsFor(f.Name, false))
		}
	}
	for _, c := range deltaColumns[table] {
		props = append(props, pq.WithEncodingFor(c, pq.Encodings.DeltaBinaryPacked), pq.WithDictionaryFor(c, false))
	}
	for _, c := range uncompressedColumns[table] {
		props = append(props, pq.WithCompressionFor(c, compress.Codecs.Uncompressed))
	}
	return props
}

// heapFields are the columns of a heap table, nil for another name.
func heapFields(table string) []arrow.Field {
	switch table {
	case TableObjects:
		return []arrow.Field{
			req("source", tString),
			req("object_id", tInt64),
			req("class", tString),
			req("class_raw", tString),
			req("kind", tString),
			opt("shallow_size", tInt64),
			opt("array_length", tInt64),
			opt("size", tInt64),
			opt("retained_size", tInt64),
			opt("dominator_id", tInt64),
			opt("defines", tString),
			opt("defines_raw", tString),
		}
	case TableRefs:
		return []arrow.Field{
			req("source", tString),
			req("from_id", tInt64),
			req("to_id", tInt64),
			req("kind", tString),
			opt("field", tString),
			opt("array_index", tInt64),
		}
	case TableStrings:
		return []arrow.Field{
			req("source", tString),
			req("object_id", tInt64),
			req("value", tString),
			req("length", tInt64),
			req("coder", tString),
			req("shallow_size", tInt64),
			req("array_id", tInt64),
			req("array_bytes", tInt64),
		}
	case TableRoots:
		return []arrow.Field{
			req("source", tString),
			req("object_id", tInt64),
			req("kind", tString),
			opt("thread_serial", tInt64),
			opt("thread_name", tString),
			opt("frame", tInt64),
		}
	}
	return nil
}

// heapRows writes rows into the heap tables. The decoders of several
// inputs may run at once (convert -j), so rows are appended under a lock.
type heapRows struct {
	mu     sync.Mutex
	tables map[string]*table // only the heap tables asked for
}

// ObjectSink returns the sink one input's heap dump rows are read into
// (convert.Decoded.Rows), with source as their source
// column, or nil when no heap table was asked for. It may be used from
// another goroutine than the Writer's other methods, and several sinks
// at once; rows of inputs converted at the same time then interleave.
func (w *Writer) ObjectSink(source string) *graph.ObjectSink {
	h := w.heap
	if h == nil {
		return nil
	}
	s := &graph.ObjectSink{}
	if t := h.tables[TableObjects]; t != nil {
		s.Object = func(o *graph.Object) error { return h.object(t, source, o) }
	}
	if t := h.tables[TableRefs]; t != nil {
		s.Ref = func(r *graph.Ref) error { return h.ref(t, source, r) }
	}
	if t := h.tables[TableStrings]; t != nil {
		s.String = func(st *graph.String) error { return h.str(t, source, st) }
	}
	if t := h.tables[TableRoots]; t != nil {
		s.Root = func(r *graph.Root) error { return h.root(t, source, r) }
	}
	return s
}

func (h *heapRows) object(t *table, source string, o *graph.Object) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	r := t.row()
	r.str(source)
	r.i64(int64(o.ID))
	r.str(o.Class)
	r.str(cmp.Or(o.RawClass, o.Class))
	r.str(o.Kind)
	r.optI64(o.Shallow, o.HasShallow)
	r.optI64(o.Length, o.HasLength)
	r.optI64(o.Size, o.HasSize)
	r.optI64(o.Retained, o.HasRetained)
	r.optI64(int64(o.Dominator), o.HasDominator)
	r.optStr(o.Defines)
	r.optStr(cmp.Or(o.RawDefines, o.Defines))
	return r.end()
}

func (h *heapRows) ref(t *table, source string, x *graph.Ref) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	r := t.row()
	r.str(source)
	r.i64(int64(x.From))
	r.i64(int64(x.To))
	switch {
	case x.Index >= 0:
		r.str("element")
	case x.Static:
		r.str("static")
	default:
		r.str("field")
	}
	r.optStr(x.Field)
	r.optI64(x.Index, x.Index >= 0)
	return r.end()
}

func (h *heapRows) str(t *table, source string, s *graph.String) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	r := t.row()
	r.str(source)
	r.i64(int64(s.ID))
	r.str(s.Value)
	r.i64(s.Length)
	r.str(s.Coder)
	r.i64(s.Shallow)
	r.i64(int64(s.Array))
	r.i64(s.Bytes)
	return r.end()
}

func (h *heapRows) root(t *table, source string, x *graph.Root) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	r := t.row()
	r.str(source)
	r.i64(int64(x.ID))
	r.str(x.Kind)
	r.optI64(int64(x.Thread), x.Thread != 0)
	r.optStr(x.ThreadName)
	r.optI64(x.Frame, x.Frame >= 0)
	return r.end()
}
