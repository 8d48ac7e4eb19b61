package parquet

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"
	pq "github.com/apache/arrow/go/v15/parquet"
	"github.com/apache/arrow/go/v15/parquet/compress"
	"github.com/apache/arrow/go/v15/parquet/file"
	"github.com/apache/arrow/go/v15/parquet/pqarrow"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
)

// expectedRows counts, straight from the graphs, how many rows each table
// must hold.
func expectedRows(gs ...*graph.Graph) map[string]int64 {
	n := map[string]int64{}
	for _, g := range gs {
		n[TableSources]++
		n[TableViews] += int64(len(g.Views))
		for _, v := range g.Views {
			n[TableSamples] += int64(len(v.Samples))
		}
		n[TableStacks] += int64(len(g.Stacks) - 1)
		n[TableFrames] += int64(len(g.Frames) - 1)
		n[TableThreads] += int64(len(g.Threads))
		v := g.View(graph.ViewHeap)
		if v == nil {
			continue // no heap view: no classes rows
		}
		// One row per class as the dump names it: the leaf class
		// frame's exact name when it stands for the class label.
		classes := map[string]bool{}
		for _, s := range v.Samples {
			for _, l := range s.Labels {
				if l.Key != graph.LabelClass {
					continue
				}
				exact := l.Str
				if f := g.Frames[g.Stacks[s.Stack][0]]; f.Kind == graph.KindClass && f.Class == l.Str {
					exact = f.ExactClass()
				}
				classes[exact] = true
			}
		}
		n[TableClasses] += int64(len(classes))
	}
	return n
}

// TestWriteReadBack writes two graphs in small row groups with a checked
// allocator, then reads every file back with the Parquet reader: footer
// metadata, row counts, row groups, zstd and dictionary encodings, and the
// sample totals of every view.
func TestWriteReadBack(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)

	dir := t.TempDir()
	g1, g2 := testGraph("before.hprof", 1), testGraph("after.hprof", 3)
	const rg = 5
	if err := WriteDir(dir, Options{RowGroupRows: rg, Allocator: mem}, g1, g2); err != nil {
		t.Fatal(err)
	}
	want := expectedRows(g1, g2)

	entries, _ := os.ReadDir(dir)
	if len(entries) != len(Tables) {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("dir holds %v, want one file per table %v", names, Tables)
	}

	for _, name := range Tables {
		path := filepath.Join(dir, name+".parquet")
		r, err := file.OpenParquetFile(path, false)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		md := r.MetaData()
		kv := md.KeyValueMetadata()
		if v := kv.FindValue(MetaSchemaVersion); v == nil || *v != SchemaVersion {
			t.Errorf("%s: %s = %v, want %s", name, MetaSchemaVersion, v, SchemaVersion)
		}
		if v := kv.FindValue(MetaTable); v == nil || *v != name {
			t.Errorf("%s: %s = %v, want %s", name, MetaTable, v, name)
		}
		if md.NumRows != want[name] {
			t.Errorf("%s: %d rows, want %d", name, md.NumRows, want[name])
		}
		if wantRG := int((want[name] + rg - 1) / rg); r.NumRowGroups() != wantRG {
			t.Errorf("%s: %d row groups, want %d", name, r.NumRowGroups(), wantRG)
		}
		for i := 0; i < r.NumRowGroups(); i++ {
			rgm := md.RowGroup(i)
			for c := 0; c < rgm.NumColumns(); c++ {
				cc, err := rgm.ColumnChunk(c)
				if err != nil {
					t.Fatal(err)
				}
				if cc.Compression() != compress.Codecs.Zstd {
					t.Errorf("%s.%s: compression %v, want zstd", name, cc.PathInSchema(), cc.Compression())
				}
				if cc.Type() == pq.Types.ByteArray && !hasDict(cc.Encodings()) {
					t.Errorf("%s.%s: encodings %v, want a dictionary", name, cc.PathInSchema(), cc.Encodings())
				}
			}
		}
		r.Close()
	}

	// The samples table read back with Arrow: totals per source and view
	// equal the graphs' own View.Totals.
	tbl := readTable(t, filepath.Join(dir, "samples.parquet"), mem)
	defer tbl.Release()
	got := sumByKey(t, tbl)
	for _, g := range []*graph.Graph{g1, g2} {
		for _, v := range g.Views {
			for i, st := range v.SampleTypes {
				k := g.Source.Path + "/" + v.Name + "/" + st.Type
				if got[k] != v.Totals()[i] {
					t.Errorf("%s: %d, want %d", k, got[k], v.Totals()[i])
				}
			}
		}
	}
}

func hasDict(encs []pq.Encoding) bool {
	for _, e := range encs {
		if e == pq.Encodings.RLEDict || e == pq.Encodings.PlainDict {
			return true
		}
	}
	return false
}

func readTable(t *testing.T, path string, mem memory.Allocator) arrow.Table {
	t.Helper()
	r, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	fr, err := pqarrow.NewFileReader(r, pqarrow.ArrowReadProperties{BatchSize: 1024}, mem)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// sumByKey sums every value column of a samples table by
// "source/view/type", skipping NULLs.
func sumByKey(t *testing.T, tbl arrow.Table) map[string]int64 {
	t.Helper()
	sum := map[string]int64{}
	tr := array.NewTableReader(tbl, 0)
	defer tr.Release()
	for tr.Next() {
		rec := tr.Record()
		col := func(name string) arrow.Array {
			idx := rec.Schema().FieldIndices(name)
			if len(idx) != 1 {
				t.Fatalf("no column %s", name)
			}
			return rec.Column(idx[0])
		}
		src, view := col("source").(*array.String), col("view").(*array.String)
		for _, vc := range ValueColumns {
			vals := col(vc).(*array.Int64)
			for i := 0; i < int(rec.NumRows()); i++ {
				if vals.IsValid(i) {
					sum[src.Value(i)+"/"+view.Value(i)+"/"+vc] += vals.Value(i)
				}
			}
		}
	}
	return sum
}

func TestWriterErrors(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)

	t.Run("duplicate source", func(t *testing.T) {
		w, err := NewWriter(t.TempDir(), Options{Allocator: mem})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		if err := w.Add(testGraph("a.hprof", 1)); err != nil {
			t.Fatal(err)
		}
		if err := w.Add(testGraph("a.hprof", 1)); !errors.Is(err, ErrDuplicateSource) {
			t.Errorf("second a.hprof: %v, want ErrDuplicateSource", err)
		}
		if err := w.AddAs("host2/a.hprof", testGraph("a.hprof", 1)); err != nil {
			t.Errorf("AddAs under another name: %v", err)
		}
		if err := w.Add(nil); !errors.Is(err, ErrNilGraph) {
			t.Errorf("nil graph: %v", err)
		}
	})

	t.Run("invalid graph discards files", func(t *testing.T) {
		dir := t.TempDir()
		w, err := NewWriter(dir, Options{Allocator: mem})
		if err != nil {
			t.Fatal(err)
		}
		g := testGraph("bad.hprof", 1)
		g.View(graph.ViewCPU).Samples[0].Stack = graph.StackID(len(g.Stacks) + 5)
		if err := w.Add(g); !errors.Is(err, ErrInvalidGraph) {
			t.Errorf("Add: %v, want ErrInvalidGraph", err)
		}
		if err := w.Add(testGraph("good.hprof", 1)); !errors.Is(err, ErrInvalidGraph) {
			t.Errorf("Add after a failure: %v, want the first error again", err)
		}
		if err := w.Close(); !errors.Is(err, ErrInvalidGraph) {
			t.Errorf("Close: %v, want ErrInvalidGraph", err)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("files left after a failed write: %d", len(entries))
		}
		if err := w.Close(); !errors.Is(err, ErrClosed) {
			t.Errorf("second Close: %v, want ErrClosed", err)
		}
		if err := w.Add(testGraph("late.hprof", 1)); !errors.Is(err, ErrClosed) {
			t.Errorf("Add after Close: %v, want ErrClosed", err)
		}
	})

	t.Run("frame out of range", func(t *testing.T) {
		w, err := NewWriter(t.TempDir(), Options{Allocator: mem})
		if err != nil {
			t.Fatal(err)
		}
		g := testGraph("bad.hprof", 1)
		g.Stacks[1] = append(graph.Stack{graph.FrameID(len(g.Frames))}, g.Stacks[1]...)
		if err := w.Add(g); !errors.Is(err, ErrInvalidGraph) {
			t.Errorf("Add: %v, want ErrInvalidGraph", err)
		}
		w.Close()
	})

	t.Run("empty graph", func(t *testing.T) {
		dir := t.TempDir()
		if err := WriteDir(dir, Options{Allocator: mem}, graph.New()); err != nil {
			t.Fatal(err)
		}
		tbl := readTable(t, filepath.Join(dir, "sources.parquet"), mem)
		defer tbl.Release()
		if tbl.NumRows() != 1 {
			t.Errorf("sources: %d rows, want 1", tbl.NumRows())
		}
	})
}

// TestAddViews writes only the cpu view: samples and views hold cpu rows
// only, and the classes table (from the heap view) stays empty.
func TestAddViews(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	w, err := NewWriter(dir, Options{Allocator: mem})
	if err != nil {
		t.Fatal(err)
	}
	g := testGraph("a.hprof", 1)
	if err := w.AddViews("a.hprof", g, []string{graph.ViewCPU}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for _, f := range w.Files() {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("Files() names %s: %v", f, err)
		}
	}
	want := map[string]int64{
		TableSamples: int64(len(g.View(graph.ViewCPU).Samples)),
		TableViews:   1,
		TableClasses: 0,
		TableStacks:  int64(len(g.Stacks) - 1),
	}
	for name, n := range want {
		tbl := readTable(t, filepath.Join(dir, name+".parquet"), mem)
		if tbl.NumRows() != n {
			t.Errorf("%s: %d rows, want %d", name, tbl.NumRows(), n)
		}
		tbl.Release()
	}
}
