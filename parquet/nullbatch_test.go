package parquet

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
)

// Row groups whose nullable dictionary column (refs.field) holds only
// NULLs (a run of array elements), no NULL at all (a run of fields), or
// both, are written, and read back as they were written.
func TestHeapTablesNullableDictionaryRuns(t *testing.T) {
	dir := t.TempDir()
	w, err := NewWriter(dir, Options{HeapTables: []string{TableRefs}, RowGroupRows: 1 << 10})
	if err != nil {
		t.Fatal(err)
	}
	s := w.ObjectSink("dump")
	var want []string // field by row, "" for NULL
	add := func(n int, field string) {
		for i := range n {
			r := graph.Ref{From: uint64(len(want)) * 16, To: uint64(i) * 8, Field: field, Index: -1}
			if field == "" {
				r.Index = int64(i)
			} else if i%3 == 0 {
				r.Field = fmt.Sprintf("%s%d", field, i%7)
			}
			if err := s.Ref(&r); err != nil {
				t.Fatal(err)
			}
			want = append(want, r.Field)
		}
	}
	// Row groups of 4 Ki rows (the heap tables' factor): fields only,
	// elements only, both.
	add(9000, "next")
	add(10000, "")
	add(3000, "value")
	add(1000, "")
	add(5000, "key")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	tbl := readTable(t, filepath.Join(dir, "refs.parquet"), memory.DefaultAllocator)
	defer tbl.Release()
	if int(tbl.NumRows()) != len(want) {
		t.Fatalf("%d rows read, %d written", tbl.NumRows(), len(want))
	}
	tr := array.NewTableReader(tbl, 0)
	defer tr.Release()
	row := 0
	for tr.Next() {
		rec := tr.Record()
		from := rec.Column(rec.Schema().FieldIndices("from_id")[0]).(*array.Int64)
		field := rec.Column(rec.Schema().FieldIndices("field")[0])
		for i := range int(rec.NumRows()) {
			got := ""
			if field.IsValid(i) {
				got = field.GetOneForMarshal(i).(string)
			}
			if got != want[row] || from.Value(i) != int64(row)*16 {
				t.Fatalf("row %d: from_id %d field %q, want %d %q", row, from.Value(i), got, row*16, want[row])
			}
			row++
		}
	}
}
