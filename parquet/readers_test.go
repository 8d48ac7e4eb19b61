package parquet

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	pq "github.com/apache/arrow/go/v15/parquet"
	"github.com/apache/arrow/go/v15/parquet/file"

	"github.com/hprof2pprof/hprof2pprof/convert"
	"github.com/hprof2pprof/hprof2pprof/convert/graph"
)

// The reader tests read every table with independent readers (installed
// by scripts/setup-readers.sh into .cache/readers, DuckDB by
// scripts/setup-duckdb.sh) through testdata/readers/read.mjs, which
// prints each reader's rows in one canonical form, and require that all
// of them see the same rows: DuckDB, arrow-rs (parquet-wasm) and
// hyparquet for Parquet, apache-arrow for Arrow IPC.

// readerModules returns the node_modules directory holding the readers:
// $HPROF2PPROF_READERS_MODULES, or .cache/readers at the module root.
// When it or node is missing the test is skipped, or fails under CI=true.
func readerModules(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("HPROF2PPROF_READERS_MODULES")
	if dir == "" {
		dir = filepath.Join(moduleRoot(t), ".cache", "readers", "node_modules")
	}
	_, nodeErr := exec.LookPath("node")
	for _, pkg := range []string{"parquet-wasm", "hyparquet", "hyparquet-compressors", "apache-arrow"} {
		if _, err := os.Stat(filepath.Join(dir, pkg, "package.json")); err != nil || nodeErr != nil {
			msg := "table readers not available (need node and " + pkg + " in " + dir + "); run scripts/setup-readers.sh"
			if os.Getenv("CI") == "true" {
				t.Fatal(msg)
			}
			t.Skip(msg)
		}
	}
	return dir
}

// readTableOut is one file as a reader saw it.
type readTableOut struct {
	Columns        []string            `json:"columns"`
	Rows           []json.RawMessage   `json:"rows"`
	CreatedBy      *string             `json:"created_by"`
	RootRepetition *string             `json:"root_repetition"`
	Metadata       map[string]string   `json:"metadata"`
	Err            string              `json:"-"`
	parsed         [][]json.RawMessage // Rows split into cells, on demand
}

// readWith reads the tables of dir in the given format with one reader
// and returns them by table name.
func readWith(t *testing.T, reader, modules, dir string, format Format) (string, map[string]*readTableOut) {
	t.Helper()
	return readTablesWith(t, reader, modules, dir, format, Tables)
}

// readTablesWith is readWith for the named tables.
func readTablesWith(t *testing.T, reader, modules, dir string, format Format, tables []string) (string, map[string]*readTableOut) {
	t.Helper()
	var files []string
	for _, name := range tables {
		files = append(files, filepath.Join(dir, name+format.Ext()))
	}
	args := append([]string{filepath.Join("testdata", "readers", "read.mjs"), reader, modules}, files...)
	cmd := exec.Command("node", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var res struct {
		Version string                   `json:"version"`
		Error   string                   `json:"error"`
		File    string                   `json:"file"`
		Tables  map[string]*readTableOut `json:"tables"`
	}
	if jerr := json.Unmarshal(out, &res); jerr != nil || err != nil || res.Error != "" {
		t.Fatalf("%s could not read %s: %v %s\n%s%s", reader, res.File, err, res.Error, limit(out), limit(stderr.Bytes()))
	}
	byName := map[string]*readTableOut{}
	for i, name := range tables {
		tb := res.Tables[files[i]]
		if tb == nil {
			t.Fatalf("%s: no result for %s", reader, files[i])
		}
		byName[name] = tb
	}
	t.Logf("%s (%s): read %s", reader, res.Version, dir)
	return res.Version, byName
}

func limit(b []byte) []byte {
	if len(b) > 2000 {
		return append(b[:2000:2000], "…"...)
	}
	return b
}

// sameRows reports how got differs from want: columns, then the first
// differing row of the sorted row lists.
func sameRows(got, want *readTableOut) string {
	if !slices.Equal(got.Columns, want.Columns) {
		return fmt.Sprintf("columns %q, want %q", got.Columns, want.Columns)
	}
	for i := range min(len(got.Rows), len(want.Rows)) {
		if !bytes.Equal(got.Rows[i], want.Rows[i]) {
			return fmt.Sprintf("row %d: %s\n want %s", i, limit(got.Rows[i]), limit(want.Rows[i]))
		}
	}
	if len(got.Rows) != len(want.Rows) {
		return fmt.Sprintf("%d rows, want %d", len(got.Rows), len(want.Rows))
	}
	return ""
}

// cells returns the rows split into cells.
func (r *readTableOut) cells(t *testing.T) [][]json.RawMessage {
	t.Helper()
	if r.parsed == nil {
		for _, row := range r.Rows {
			var cs []json.RawMessage
			if err := json.Unmarshal(row, &cs); err != nil {
				t.Fatal(err)
			}
			r.parsed = append(r.parsed, cs)
		}
	}
	return r.parsed
}

// col returns the index of a column.
func (r *readTableOut) col(t *testing.T, name string) int {
	t.Helper()
	i := slices.Index(r.Columns, name)
	if i < 0 {
		t.Fatalf("no column %s in %q", name, r.Columns)
	}
	return i
}

// mixedGraphs converts a mixed set of real inputs: a heap dump with its
// retained view, hprof agent binary output, and text reports; plus a
// hand-built graph that fills the map columns.
func mixedGraphs(t *testing.T) []*graph.Graph {
	t.Helper()
	root := moduleRoot(t)
	inputs := []struct {
		file  string
		views []string
	}{
		{"jdk17-zoo-live.hprof", []string{graph.ViewHeap, graph.ViewRetained, graph.ViewThreads}},
		{"heap-all-cpu-samples.allocwork.jdk25.hprof", nil},
		{"cpu-samples.cpuwork.jdk17.hprof", nil},
		{"cpu-times.monitorwork.jdk25.txt", nil},
		{"monitor.monitorpileup.jdk17.txt.gz", nil},
		{"cpu-old.cpuwork.jdk17.txt.gz", nil},
	}
	var gs []*graph.Graph
	for _, in := range inputs {
		g, err := convert.ConvertFile(context.Background(), filepath.Join(root, "testdata", in.file), convert.Options{Views: in.views})
		if err != nil {
			t.Fatalf("%s: %v", in.file, err)
		}
		g.Source.Path = in.file
		gs = append(gs, g)
	}
	return append(gs, testGraph("hand-built.hprof", 2))
}

// TestReadersAgree writes a mixed conversion as Parquet (default row
// groups, and row groups of 97 rows so that every table has several) and
// as Arrow IPC (batches of 97 rows), reads every table with every reader, and requires the
// same rows from each; the rows themselves are checked against the
// graphs (row counts, every view's totals, the heap histogram), and the
// footers against the format: root repetition REQUIRED, created_by
// naming this program and the Parquet library, the schema version.
func TestReadersAgree(t *testing.T) {
	duck := duckdbModules(t)
	readers := readerModules(t)
	gs := mixedGraphs(t)
	checkReadersAgree(t, duck, readers, gs, []layout{{FormatParquet, 0}, {FormatParquet, 97}, {FormatArrow, 97}})
}

// layout is one way of writing the same tables.
type layout struct {
	format Format
	rows   int // RowGroupRows; 0 is the default
}

// TestReadersAgreeLarge does the same with tables big enough to span
// several row groups at the default size and to overflow the dictionary
// page limit (the writer falls back to plain pages mid column chunk). The
// limit is lowered to Arrow's default, 1 MB, for it: at ours a row group
// needs more than 64 MB of distinct strings to fall back.
func TestReadersAgreeLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("large tables")
	}
	defer func(old int64) { dictionaryPageLimit = old }(dictionaryPageLimit)
	dictionaryPageLimit = 1 << 20
	duck := duckdbModules(t)
	readers := readerModules(t)
	dirs := checkReadersAgree(t, duck, readers, []*graph.Graph{longNamesGraph(DefaultRowGroupRows + 5000)},
		[]layout{{FormatParquet, 0}, {FormatArrow, 0}})
	// The layouts this test is for really occurred.
	r, err := file.OpenParquetFile(filepath.Join(dirs[0], "frames.parquet"), false)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.NumRowGroups() < 2 {
		t.Errorf("frames: %d row groups, want several", r.NumRowGroups())
	}
	plain := 0
	for i := range r.NumRowGroups() {
		rg := r.MetaData().RowGroup(i)
		for c := range rg.NumColumns() {
			cc, err := rg.ColumnChunk(c)
			if err != nil {
				t.Fatal(err)
			}
			for _, st := range cc.EncodingStats() {
				if fmt.Sprint(st.PageType) == "DATA_PAGE" && st.Encoding == pq.Encodings.Plain && cc.Type() == pq.Types.ByteArray {
					plain++
				}
			}
		}
	}
	if plain == 0 {
		t.Error("frames: no string column fell back from dictionary to plain pages")
	}
}

// longNamesGraph is a cpu view with n distinct stacks whose frames have
// long distinct names and files: more than 1 MB of distinct strings.
func longNamesGraph(n int) *graph.Graph {
	g := graph.New()
	g.Source.Path = "long-names.hprof"
	v := graph.NewCPUView(graph.DefaultCPUInterval)
	a := graph.NewAggregator(v)
	run := g.Frame(graph.Frame{Kind: graph.KindMethod, Class: "com.example.Worker", Method: "run", Signature: "()V", File: "Worker.java", Line: 40})
	pad := strings.Repeat("x", 40)
	for i := range n {
		f := g.Frame(graph.Frame{Kind: graph.KindMethod, Class: fmt.Sprintf("com.example.generated.%s.Class%d", pad, i),
			Method: fmt.Sprintf("method%d", i), Signature: "()V", File: fmt.Sprintf("com/example/generated/%s/Class%d.java", pad, i), Line: int32(i%900 + 1)})
		st := g.Stack([]graph.FrameID{f, run})
		a.Add(st, []graph.Label{{Key: graph.LabelThread, Str: fmt.Sprintf("worker-%d", i%16)}}, int64(i%7+1), int64(i%7+1)*int64(graph.DefaultCPUInterval))
	}
	g.AddView(v)
	return g
}

// checkReadersAgree writes the graphs in each layout, reads them with
// every reader of the format, and requires the same rows from each. It
// returns the directories written, in layout order.
func checkReadersAgree(t *testing.T, duck, readers string, gs []*graph.Graph, layouts []layout) []string {
	t.Helper()
	type reading struct {
		what   string
		tables map[string]*readTableOut
	}
	var all []reading
	var dirs []string
	base := t.TempDir()
	for _, c := range layouts {
		dir := filepath.Join(base, fmt.Sprintf("%s-%d", c.format, c.rows))
		dirs = append(dirs, dir)
		if err := WriteDir(dir, Options{Format: c.format, RowGroupRows: c.rows}, gs...); err != nil {
			t.Fatal(err)
		}
		if c.format == FormatArrow {
			_, tb := readWith(t, "apache-arrow", readers, dir, c.format)
			all = append(all, reading{"apache-arrow " + filepath.Base(dir), tb})
			checkFooters(t, "apache-arrow", tb)
			continue
		}
		rs := []string{"arrow-rs", "hyparquet"}
		if len(all) == 0 {
			rs = append([]string{"duckdb"}, rs...) // the reference
		}
		for _, r := range rs {
			mods := readers
			if r == "duckdb" {
				mods = duck
			}
			_, tb := readWith(t, r, mods, dir, c.format)
			all = append(all, reading{r + " " + filepath.Base(dir), tb})
			checkFooters(t, r, tb)
		}
	}

	ref := all[0]
	for _, name := range Tables {
		var want []string
		for _, f := range schemaOf(name).Fields() {
			want = append(want, f.Name)
		}
		if got := ref.tables[name].Columns; !slices.Equal(got, want) {
			t.Errorf("%s: %s columns %q, want the schema's %q", ref.what, name, got, want)
		}
	}
	checkRowsAgainstGraphs(t, ref.tables, gs)
	for _, r := range all[1:] {
		for _, name := range Tables {
			if d := sameRows(r.tables[name], ref.tables[name]); d != "" {
				t.Errorf("%s: %s differs from %s: %s", r.what, name, ref.what, d)
			}
		}
	}
	if !t.Failed() {
		n := 0
		for _, name := range Tables {
			n += len(ref.tables[name].Rows)
		}
		t.Logf("%d readings of %d tables (%d rows) agree row for row", len(all), len(Tables), n)
	}
	return dirs
}

// checkFooters checks what a reader reports of each file's footer.
func checkFooters(t *testing.T, reader string, tables map[string]*readTableOut) {
	t.Helper()
	for _, name := range Tables {
		tb := tables[name]
		if v := tb.Metadata[MetaSchemaVersion]; v != SchemaVersion {
			t.Errorf("%s: %s: %s = %q, want %q", reader, name, MetaSchemaVersion, v, SchemaVersion)
		}
		if v := tb.Metadata[MetaTable]; v != name {
			t.Errorf("%s: %s: %s = %q, want %q", reader, name, MetaTable, v, name)
		}
		if v := tb.Metadata[MetaWriter]; !strings.HasPrefix(v, "hprof2pprof ") {
			t.Errorf("%s: %s: %s = %q, want \"hprof2pprof VERSION\"", reader, name, MetaWriter, v)
		}
		if tb.CreatedBy != nil {
			cb := *tb.CreatedBy
			if !strings.HasPrefix(cb, "hprof2pprof ") || !strings.HasSuffix(cb, " (parquet-go version 15.0.2)") {
				t.Errorf("%s: %s: created_by %q, want \"hprof2pprof VERSION (parquet-go version 15.0.2)\"", reader, name, cb)
			}
		}
		if tb.RootRepetition != nil && *tb.RootRepetition != "REQUIRED" {
			t.Errorf("%s: %s: root schema element repetition %s, want REQUIRED", reader, name, *tb.RootRepetition)
		}
	}
}

// checkRowsAgainstGraphs checks a reading against the graphs: rows per
// table, every view's total of every sample type, and the classes table
// against each heap view summed by class.
func checkRowsAgainstGraphs(t *testing.T, tables map[string]*readTableOut, gs []*graph.Graph) {
	t.Helper()
	for name, n := range expectedRows(gs...) {
		if got := int64(len(tables[name].Rows)); got != n {
			t.Errorf("%s: %d rows, want %d", name, got, n)
		}
	}
	samples := tables[TableSamples]
	src, view, other := samples.col(t, "source"), samples.col(t, "view"), samples.col(t, "other_values")
	got := map[string]int64{}
	for _, row := range samples.cells(t) {
		key := str(t, row[src]) + "/" + str(t, row[view]) + "/"
		for _, c := range ValueColumns {
			if s := str(t, row[samples.col(t, c)]); s != "" {
				got[key+c] += num(t, s)
			}
		}
		var pairs [][2]*string
		if err := json.Unmarshal(row[other], &pairs); err != nil {
			t.Fatal(err)
		}
		for _, p := range pairs {
			got[key+*p[0]] += num(t, *p[1])
		}
	}
	for _, g := range gs {
		for _, v := range g.Views {
			for i, st := range v.SampleTypes {
				k := g.Source.Path + "/" + v.Name + "/" + st.Type
				if got[k] != v.Totals()[i] {
					t.Errorf("samples: %s total %d, want %d", k, got[k], v.Totals()[i])
				}
			}
		}
	}

	classes := tables[TableClasses]
	csrc, inst, bytesCol := classes.col(t, "source"), classes.col(t, "instances"), classes.col(t, "shallow_bytes")
	sums := map[string][2]int64{}
	for _, row := range classes.cells(t) {
		s := sums[str(t, row[csrc])]
		sums[str(t, row[csrc])] = [2]int64{s[0] + num(t, str(t, row[inst])), s[1] + num(t, str(t, row[bytesCol]))}
	}
	for _, g := range gs {
		if v := g.View(graph.ViewHeap); v != nil {
			tot := v.Totals()
			want := [2]int64{tot[v.Index("inuse_objects")], tot[v.Index("inuse_space")]}
			if sums[g.Source.Path] != want {
				t.Errorf("classes: %s sums to %v, want the heap view's %v", g.Source.Path, sums[g.Source.Path], want)
			}
		}
	}
}

// str decodes a JSON string cell; null gives "".
func str(t *testing.T, c json.RawMessage) string {
	t.Helper()
	var s *string
	if err := json.Unmarshal(c, &s); err != nil {
		t.Fatalf("cell %s: %v", c, err)
	}
	if s == nil {
		return ""
	}
	return *s
}

func num(t *testing.T, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestReadersAgreeCorpus does the same over every heap dump of the shared
// corpus, when it is present beside the repository: real class names,
// thread stacks and the retained view of dumps from JDK 17 and 25.
func TestReadersAgreeCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("corpus sweep")
	}
	corpus := filepath.Join(moduleRoot(t), "..", "shared", "corpus", "heapdump")
	if _, err := os.Stat(corpus); err != nil {
		t.Skip("no shared corpus at " + corpus)
	}
	duck := duckdbModules(t)
	readers := readerModules(t)
	var gs []*graph.Graph
	for _, pat := range []string{"*.hprof", "*.hprof.gz"} {
		m, _ := filepath.Glob(filepath.Join(corpus, pat))
		for _, p := range m {
			g, err := convert.ConvertFile(context.Background(), p, convert.Options{Views: []string{graph.ViewHeap, graph.ViewRetained, graph.ViewThreads}})
			if err != nil {
				t.Logf("%s: skipped: %v", p, err)
				continue
			}
			g.Source.Path = filepath.Base(p)
			gs = append(gs, g)
		}
	}
	if len(gs) == 0 {
		t.Fatal("no heap dump converted")
	}
	checkReadersAgree(t, duck, readers, gs, []layout{{FormatParquet, 0}, {FormatArrow, 0}})
}

// TestReadersAgreeEmpty: tables without rows (a shard that got no input,
// a conversion without a heap view) are still files every reader opens,
// with every column.
func TestReadersAgreeEmpty(t *testing.T) {
	duck := duckdbModules(t)
	readers := readerModules(t)
	checkReadersAgree(t, duck, readers, nil, []layout{{FormatParquet, 0}, {FormatArrow, 0}})
}

// TestReadersAgreeHeapTables: the heap tables of a real dump (their
// dictionary columns written from dictionary arrays, delta-encoded IDs,
// small zstd pages) read the same, row for row, in DuckDB, arrow-rs and
// hyparquet.
func TestReadersAgreeHeapTables(t *testing.T) {
	if testing.Short() {
		t.Skip("heap tables of a real dump")
	}
	duck := duckdbModules(t)
	readers := readerModules(t)
	dir := t.TempDir()
	w, err := NewWriter(dir, Options{RowGroupRows: 10000, HeapTables: HeapTables})
	if err != nil {
		t.Fatal(err)
	}
	d := heapDumps[0]
	opts := convert.Options{Views: []string{graph.ViewHeap, graph.ViewRetained}}
	g, err := convertWithRows(context.Background(), filepath.Join(moduleRoot(t), "testdata", d.file), opts, w.ObjectSink(d.source))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.AddAs(d.source, g); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	_, ref := readTablesWith(t, "duckdb", duck, dir, FormatParquet, HeapTables)
	for _, name := range HeapTables {
		if len(ref[name].Rows) == 0 {
			t.Errorf("duckdb: %s has no rows", name)
		}
	}
	for _, r := range []string{"arrow-rs", "hyparquet"} {
		_, tb := readTablesWith(t, r, readers, dir, FormatParquet, HeapTables)
		for _, name := range HeapTables {
			if d := sameRows(tb[name], ref[name]); d != "" {
				t.Errorf("%s: %s differs from duckdb: %s", r, name, d)
			}
		}
	}
	t.Logf("%d objects, %d refs, %d strings, %d roots agree in three readers", len(ref[TableObjects].Rows),
		len(ref[TableRefs].Rows), len(ref[TableStrings].Rows), len(ref[TableRoots].Rows))
}
