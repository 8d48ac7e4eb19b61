package main

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/hprof2pprof/hprof2pprof/convert/javaname"
	"github.com/hprof2pprof/hprof2pprof/parquet"

	"github.com/hprof2pprof/hprof2pprof/internal/batch"
)

// readersModulesForCLI finds the npm table readers as the parquet
// package's tests do: $HPROF2PPROF_READERS_MODULES or
// .cache/readers/node_modules; missing means skip, or fail under CI=true.
func readersModulesForCLI(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("HPROF2PPROF_READERS_MODULES")
	if dir == "" {
		dir = filepath.Join("..", "..", ".cache", "readers", "node_modules")
	}
	_, nodeErr := exec.LookPath("node")
	_, modErr := os.Stat(filepath.Join(dir, "apache-arrow", "package.json"))
	if nodeErr != nil || modErr != nil {
		msg := "table readers not available (need node and " + dir + "); run scripts/setup-readers.sh"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// tableRows is one table as a reader saw it, rows in canonical JSON,
// sorted (parquet/testdata/readers/read.mjs).
type tableRows struct {
	Columns []string          `json:"columns"`
	Rows    []json.RawMessage `json:"rows"`
}

// readTablesWith reads each path (a file or, for DuckDB, a glob) with one
// reader of parquet/testdata/readers/read.mjs.
func readTablesWith(t *testing.T, reader, modules string, paths []string) []tableRows {
	t.Helper()
	args := append([]string{filepath.Join("..", "..", "parquet", "testdata", "readers", "read.mjs"), reader, modules}, paths...)
	cmd := exec.Command("node", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var res struct {
		Error  string               `json:"error"`
		Tables map[string]tableRows `json:"tables"`
	}
	if jerr := json.Unmarshal(out, &res); err != nil || jerr != nil || res.Error != "" {
		t.Fatalf("%s: %v %s\n%.2000s", reader, err, res.Error, stderr.String())
	}
	var tabs []tableRows
	for _, p := range paths {
		tb, ok := res.Tables[p]
		if !ok {
			t.Fatalf("%s: no result for %s", reader, p)
		}
		tabs = append(tabs, tb)
	}
	return tabs
}

// diffTables says how two readings of a table differ ("" when equal).
func diffTables(got, want tableRows) string {
	if !slices.Equal(got.Columns, want.Columns) {
		return fmt.Sprintf("columns %q, want %q", got.Columns, want.Columns)
	}
	for i := range min(len(got.Rows), len(want.Rows)) {
		if !bytes.Equal(got.Rows[i], want.Rows[i]) {
			return fmt.Sprintf("row %d: %.500s\n want %.500s", i, got.Rows[i], want.Rows[i])
		}
	}
	if len(got.Rows) != len(want.Rows) {
		return fmt.Sprintf("%d rows, want %d", len(got.Rows), len(want.Rows))
	}
	return ""
}

// dropPartitionKey checks the input column DuckDB reads from the
// partition folders (hive partitioning) against each row's source, and
// removes it, so a dataset's tables compare with a single table set.
func dropPartitionKey(t *testing.T, tabs []tableRows) []tableRows {
	t.Helper()
	for ti := range tabs {
		tab := &tabs[ti]
		in, src := slices.Index(tab.Columns, "input"), slices.Index(tab.Columns, "source")
		if in < 0 || src < 0 {
			t.Fatalf("table %d: columns %q: no input partition column", ti, tab.Columns)
		}
		tab.Columns = slices.Delete(slices.Clone(tab.Columns), in, in+1)
		for ri, r := range tab.Rows {
			var cells []json.RawMessage
			if err := json.Unmarshal(r, &cells); err != nil {
				t.Fatal(err)
			}
			var key, source string
			json.Unmarshal(cells[in], &key)
			json.Unmarshal(cells[src], &source)
			if key != batch.PartitionKey(source) {
				t.Fatalf("row of %s in partition input=%s", source, key)
			}
			tab.Rows[ri], _ = json.Marshal(slices.Delete(cells, in, in+1))
		}
	}
	return tabs
}

// resolveIDs rewrites a reading of every table (in parquet.Tables order)
// without the graph's ids, which depend on the order a conversion met
// the frames and stacks in: frame_id and stack_id become what they name
// (a frame's columns, a stack's frames), so two conversions of the same
// inputs compare equal row for row.
func resolveIDs(t *testing.T, tabs []tableRows) []tableRows {
	t.Helper()
	byName := map[string]*tableRows{}
	for i, name := range parquet.Tables {
		byName[name] = &tabs[i]
	}
	cells := func(r json.RawMessage) []json.RawMessage {
		var cs []json.RawMessage
		if err := json.Unmarshal(r, &cs); err != nil {
			t.Fatal(err)
		}
		return cs
	}
	col := func(tb *tableRows, name string) int {
		i := slices.Index(tb.Columns, name)
		if i < 0 {
			t.Fatalf("no column %s in %q", name, tb.Columns)
		}
		return i
	}
	// rewrite replaces or drops (nil) cells of every row and sorts again.
	rewrite := func(tb *tableRows, f func(cs []json.RawMessage) []json.RawMessage) {
		for i, r := range tb.Rows {
			out, err := json.Marshal(f(cells(r)))
			if err != nil {
				t.Fatal(err)
			}
			tb.Rows[i] = out
		}
		slices.SortFunc(tb.Rows, func(a, b json.RawMessage) int { return bytes.Compare(a, b) })
	}
	drop := func(cs []json.RawMessage, i int) []json.RawMessage { return slices.Delete(slices.Clone(cs), i, i+1) }

	frames := byName[parquet.TableFrames]
	fSrc, fID := col(frames, "source"), col(frames, "frame_id")
	frame := map[string]json.RawMessage{}
	for _, r := range frames.Rows {
		cs := cells(r)
		frame[string(cs[fSrc])+string(cs[fID])], _ = json.Marshal(drop(cs, fID))
	}
	stacks := byName[parquet.TableStacks]
	sSrc, sID, sFrames := col(stacks, "source"), col(stacks, "stack_id"), col(stacks, "frame_ids")
	stack := map[string]json.RawMessage{}
	rewrite(stacks, func(cs []json.RawMessage) []json.RawMessage {
		var ids []json.RawMessage
		if err := json.Unmarshal(cs[sFrames], &ids); err != nil {
			t.Fatal(err)
		}
		var named []json.RawMessage
		for _, id := range ids {
			named = append(named, frame[string(cs[sSrc])+string(id)])
		}
		cs[sFrames], _ = json.Marshal(named)
		stack[string(cs[sSrc])+string(cs[sID])] = cs[sFrames]
		return drop(cs, sID)
	})
	for _, name := range []string{parquet.TableSamples, parquet.TableThreads} {
		tb := byName[name]
		src, id := col(tb, "source"), col(tb, "stack_id")
		rewrite(tb, func(cs []json.RawMessage) []json.RawMessage {
			cs[id] = stack[string(cs[src])+string(cs[id])]
			if cs[id] == nil {
				cs[id] = json.RawMessage("[]") // stack 0, the empty stack
			}
			return cs
		})
	}
	rewrite(frames, func(cs []json.RawMessage) []json.RawMessage { return drop(cs, fID) })
	return tabs
}

// tablePaths lists DIR/<table><ext> for every table.
func tablePaths(dir, ext string) []string {
	var out []string
	for _, name := range parquet.Tables {
		out = append(out, filepath.Join(dir, name+ext))
	}
	return out
}

// TestConvertArrow: `convert --format arrow -d DIR` writes the same tables
// as `--format parquet`: apache-arrow reads the IPC files and DuckDB the
// Parquet files, and every table holds the same rows (ids resolved: two
// conversions may number frames and stacks differently).
func TestConvertArrow(t *testing.T) {
	duck := duckdbModulesForCLI(t)
	readers := readersModulesForCLI(t)
	inputs := []string{
		testdata("jdk17-zoo-live.hprof"),               // heap dump
		testdata("heap-sites.allocwork.jdk17.hprof"),   // agent binary
		testdata("monitor.monitorpileup.jdk17.txt.gz"), // agent text
	}
	pqDir, arDir := filepath.Join(t.TempDir(), "pq"), filepath.Join(t.TempDir(), "arrow")
	for _, a := range [][]string{{"--format", "parquet", "--layout", "single", "-d", pqDir}, {"--format", "arrow", "--layout", "single", "-d", arDir}} {
		args := append(append([]string{"convert", "-q"}, a...), inputs...)
		if code, stderr := runBin(t, args...); code != exitOK {
			t.Fatalf("hprof2pprof %v: exit %d\n%s", args, code, stderr)
		}
	}
	var want []string
	for _, name := range parquet.Tables {
		want = append(want, name+".arrow")
	}
	sort.Strings(want)
	if got := listFiles(t, arDir, true); !slices.Equal(got, want) {
		t.Errorf("arrow dir holds %q, want %q", got, want)
	}
	pq := resolveIDs(t, readTablesWith(t, "duckdb", duck, tablePaths(pqDir, ".parquet")))
	ar := resolveIDs(t, readTablesWith(t, "apache-arrow", readers, tablePaths(arDir, ".arrow")))
	for i, name := range parquet.Tables {
		// paths: an opt-in view these conversions do not ask for.
		if len(pq[i].Rows) == 0 && name != parquet.TableThreads && name != parquet.TablePaths {
			t.Errorf("%s: no rows", name)
		}
		if d := diffTables(ar[i], pq[i]); d != "" {
			t.Errorf("%s.arrow differs from %s.parquet: %s", name, name, d)
		}
	}

	// Like Parquet, the tables are a directory.
	args := []string{"convert", "--format", "arrow", "-o", filepath.Join(t.TempDir(), "x"), inputs[0]}
	if code, _ := runBin(t, args...); code != exitUsage {
		t.Errorf("--format arrow -o: exit %d, want %d (usage)", code, exitUsage)
	}
}

// TestShardedTablesOneDataset: shards of one job (--shard i/n) share one
// -d; each writes its inputs' partitions (DIR/<table>/input=<key>/), and
// DuckDB reads each table's folder as one table: every table holds exactly
// the rows one whole job writes in a single table set (ids resolved), and
// a rerun of the job adds nothing. Two heap dumps converted by different
// shards are compared in one query (the README's class_growth), and the
// answer equals the difference of the independent oracle's histograms.
func TestShardedTablesOneDataset(t *testing.T) {
	duck := duckdbModulesForCLI(t)
	dir := filepath.Join(t.TempDir(), "dumps")
	files := map[string]string{
		"host1/before.hprof":    "heap-dump.allocwork.jdk17.hprof",
		"host2/after.hprof":     "heap-all-cpu-samples.allocwork.jdk25.hprof",
		"host2/cpu.hprof":       "cpu-samples.cpuwork.jdk17.hprof",
		"host3/java.hprof.txt":  "cpu-times.monitorwork.jdk25.txt",
		"host3/sites.hprof.bz2": "cpu-samples.cpuwork.jdk17.hprof.bz2",
	}
	for rel, src := range files {
		copyFile(t, testdata(src), filepath.Join(dir, rel), 0)
	}
	// The fewest shards that put the two heap dumps in different ones.
	n := 2
	for ; n < 10; n++ {
		if !sameShard(n, "host1/before.hprof", "host2/after.hprof") {
			break
		}
	}

	whole, sharded := filepath.Join(t.TempDir(), "whole"), filepath.Join(t.TempDir(), "sharded")
	if code, stderr := runBin(t, "convert", "-q", "--format", "parquet", "--layout", "single", "-d", whole, dir); code != exitOK {
		t.Fatalf("whole job: exit %d\n%s", code, stderr)
	}
	for i := range n {
		if code, stderr := runBin(t, "convert", "-q", "--format", "parquet", "--shard", fmt.Sprintf("%d/%d", i, n), "-d", sharded, dir); code != exitOK {
			t.Fatalf("shard %d/%d: exit %d\n%s", i, n, code, stderr)
		}
	}
	var wantFiles []string
	for rel := range files {
		for _, name := range parquet.Tables {
			key := batch.PartitionKey(filepath.Join(dir, filepath.FromSlash(rel)))
			wantFiles = append(wantFiles, fmt.Sprintf("%s/input=%s/part-0.parquet", name, key))
		}
	}
	sort.Strings(wantFiles)
	if got := listFiles(t, sharded, false); !slices.Equal(got, wantFiles) {
		t.Errorf("sharded dir holds %q, want %q", got, wantFiles)
	}
	// A rerun finds every input done and writes nothing.
	done := listFiles(t, sharded, false)
	code, stderr := runBin(t, "convert", "-q", "--format", "parquet", "--summary", filepath.Join(t.TempDir(), "s.json"), "-d", sharded, dir)
	if code != exitOK || !slices.Equal(listFiles(t, sharded, false), done) {
		t.Errorf("rerun: exit %d, files %q\n%s", code, listFiles(t, sharded, false), stderr)
	}

	var globs []string
	for _, name := range parquet.Tables {
		globs = append(globs, filepath.Join(sharded, name, "**", "*.parquet"))
	}
	got := resolveIDs(t, dropPartitionKey(t, readTablesWith(t, "duckdb", duck, globs)))
	want := resolveIDs(t, readTablesWith(t, "duckdb", duck, tablePaths(whole, ".parquet")))
	for i, name := range parquet.Tables {
		if d := diffTables(got[i], want[i]); d != "" {
			t.Errorf("%s over %d shards differs from the whole job's: %s", name, n, d)
		}
	}

	// One query compares the two dumps' classes across the shards.
	before, after := filepath.Join(dir, "host1", "before.hprof"), filepath.Join(dir, "host2", "after.hprof")
	sql := readmeQuery(t, "class_growth")
	sql = strings.ReplaceAll(sql, "'before.hprof'", "'"+before+"'")
	sql = strings.ReplaceAll(sql, "'after.hprof'", "'"+after+"'")
	req, _ := json.Marshal(map[string]any{
		"views":   map[string]string{"classes": filepath.Join(sharded, "classes", "**", "*.parquet")},
		"queries": []map[string]string{{"name": "q", "sql": sql}},
	})
	rows := duckdbRun(t, duck, req)
	var growth []string
	for _, r := range rows {
		growth = append(growth, fmt.Sprintf("%v|%v|%v", r["class"], r["instances_delta"], r["bytes_delta"]))
	}
	sort.Strings(growth)
	wantGrowth := histogramDiff(t, testdata(files["host1/before.hprof"]+".oracle/histogram-by-name.csv"),
		testdata(files["host2/after.hprof"]+".oracle/histogram-by-name.csv"))
	t.Logf("%d shards; class_growth across them: %d classes", n, len(growth))
	if !slices.Equal(growth, wantGrowth) {
		t.Errorf("class_growth across shards (%d rows) differs from the oracle histograms' difference (%d rows):\n got  %q\n want %q",
			len(growth), len(wantGrowth), growth, wantGrowth)
	}
}

// sameShard reports whether two inputs fall in the same shard of n.
func sameShard(n int, a, b string) bool {
	for i := range n {
		s := batch.Shard{Index: i, Count: n}
		if s.Has(a) {
			return s.Has(b)
		}
	}
	return false
}

// readmeQuery returns the parquet README's SQL block named name.
func readmeQuery(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "parquet", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var sql strings.Builder
	in := false
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "-- name: "+name:
			in = true
		case in && line == "```":
			return sql.String()
		case in:
			sql.WriteString(line + "\n")
		}
	}
	t.Fatalf("parquet/README.md has no query %s", name)
	return ""
}

// duckdbRun runs a request through the parquet package's query script.
func duckdbRun(t *testing.T, modules string, req []byte) []map[string]any {
	t.Helper()
	cmd := exec.Command("node", filepath.Join("..", "..", "parquet", "testdata", "duckdb", "query.mjs"), modules)
	cmd.Stdin = bytes.NewReader(req)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("duckdb: %v\n%s%s", err, out, stderr.String())
	}
	var res struct {
		Results map[string][]map[string]any `json:"results"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("duckdb output: %v\n%s", err, out)
	}
	return res.Results["q"]
}

// histogramDiff is after − before of two oracle histograms, as
// "class|instances_delta|bytes_delta" rows over every class with
// instances in either.
func histogramDiff(t *testing.T, before, after string) []string {
	t.Helper()
	read := func(path string) map[string][2]int64 {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		recs, err := csv.NewReader(f).ReadAll()
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		m := map[string][2]int64{}
		for _, r := range recs[1:] { // class_name,instances,shallow_bytes,...
			var n, b int64
			fmt.Sscan(r[1], &n)
			fmt.Sscan(r[2], &b)
			if n != 0 {
				// Summed by the name the tables give a class: hidden
				// classes that differ only in their address are one.
				c := javaname.Normalize(r[0])
				m[c] = [2]int64{m[c][0] + n, m[c][1] + b}
			}
		}
		return m
	}
	b, a := read(before), read(after)
	var out []string
	seen := map[string]bool{}
	for _, m := range []map[string][2]int64{b, a} {
		for c := range m {
			if !seen[c] {
				seen[c] = true
				out = append(out, fmt.Sprintf("%s|%d|%d", c, a[c][0]-b[c][0], a[c][1]-b[c][1]))
			}
		}
	}
	sort.Strings(out)
	return out
}
