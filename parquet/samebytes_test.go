package parquet

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
)

// TestHeapTablesSameBytes: the same rows give the same files, also when a
// row group's values pass the size at which Arrow gives up a column's
// dictionary for plain pages. Arrow v15 then lists the two encodings of
// the column chunk in its footer in map order, which differs run to run:
// the columns where that can happen (a String's text, lengths and sizes
// of every row distinct) must not get there.
func TestHeapTablesSameBytes(t *testing.T) {
	// Lengths and sizes all distinct: more than 1 MB of int64 per row
	// group of the default size, five row groups.
	objects := func(s *graph.ObjectSink) {
		for i := range 5 * 4 * DefaultRowGroupRows {
			o := graph.Object{ID: uint64(i) * 16, Class: "int[]", Kind: "array", Shallow: int64(i) * 8, HasShallow: true, Length: int64(i), HasLength: true}
			if err := s.Object(&o); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Texts all distinct, 1.6 MB per row group of 16 Ki rows: twenty row
	// groups.
	strings := func(s *graph.ObjectSink) {
		for i := range 20 * 16 << 10 {
			v := fmt.Sprintf("%-100d", i)
			str := graph.String{ID: uint64(i) * 16, Value: v, Length: int64(len(v)), Bytes: int64(len(v)) + 16, Shallow: 24, Array: uint64(i)*16 + 8, Coder: "latin1"}
			if err := s.String(&str); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, c := range []struct {
		table string
		opts  Options
		rows  func(*graph.ObjectSink)
	}{
		{TableObjects, Options{HeapTables: []string{TableObjects}}, objects},
		{TableStrings, Options{HeapTables: []string{TableStrings}, RowGroupRows: 4 << 10}, strings},
	} {
		var files [][]byte
		for range 2 {
			dir := t.TempDir()
			w, err := NewWriter(dir, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			c.rows(w.ObjectSink("dump"))
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(filepath.Join(dir, c.table+".parquet"))
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, b)
		}
		if !bytes.Equal(files[0], files[1]) {
			t.Errorf("%s.parquet differs between two writes of the same rows", c.table)
		}
	}
}
