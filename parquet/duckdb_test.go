package parquet

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
)

// The DuckDB tests run the README's queries in a real DuckDB (npm
// @duckdb/node-api, installed by scripts/setup-duckdb.sh into
// .cache/duckdb) over the tables this package wrote.

// moduleRoot is the directory holding go.mod.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test directory")
		}
		dir = parent
	}
}

// duckdbModules returns the node_modules directory holding
// @duckdb/node-api: $HPROF2PPROF_DUCKDB_MODULES, or .cache/duckdb at the
// module root. When it or node is missing the test is skipped, or fails
// under CI=true.
func duckdbModules(t *testing.T) string {
	t.Helper()
	missing := func(why string) {
		msg := "DuckDB not available (" + why + "); run scripts/setup-duckdb.sh"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	if _, err := exec.LookPath("node"); err != nil {
		missing("no node in PATH")
	}
	dir := os.Getenv("HPROF2PPROF_DUCKDB_MODULES")
	if dir == "" {
		dir = filepath.Join(moduleRoot(t), ".cache", "duckdb", "node_modules")
	}
	if _, err := os.Stat(filepath.Join(dir, "@duckdb", "node-api", "package.json")); err != nil {
		missing(dir + " has no @duckdb/node-api")
	}
	return dir
}

// namedQuery is one SQL block of the README.
type namedQuery struct {
	Name string `json:"name"`
	SQL  string `json:"sql"`
}

// readmeQueries returns the README's ```sql blocks that start with
// "-- name: NAME".
func readmeQueries(t *testing.T) []namedQuery {
	t.Helper()
	return readmeBlocks(t, "-- name: ")
}

// readmeBlocks returns the README's ```sql blocks whose first line is
// prefix followed by the query's name.
func readmeBlocks(t *testing.T, prefix string) []namedQuery {
	t.Helper()
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	var qs []namedQuery
	var cur *strings.Builder
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case cur == nil && line == "```sql":
			cur = &strings.Builder{}
		case cur != nil && line == "```":
			sql := cur.String()
			if first, rest, ok := strings.Cut(sql, "\n"); ok && strings.HasPrefix(first, prefix) {
				qs = append(qs, namedQuery{Name: strings.TrimPrefix(first, prefix), SQL: rest})
			}
			cur = nil
		case cur != nil:
			cur.WriteString(line + "\n")
		}
	}
	if len(qs) == 0 {
		t.Fatal("README.md has no named SQL queries")
	}
	return qs
}

// duckdbResult is a query's rows, each value as DuckDB's JSON gives it
// (BIGINTs as strings, NULL as nil).
type duckdbResult map[string][]map[string]any

// runDuckDB creates a view per table over the Parquet files in dirs and
// runs the queries.
func runDuckDB(t *testing.T, modules string, dirs []string, qs []namedQuery) duckdbResult {
	t.Helper()
	views := map[string][]string{}
	for _, name := range append(slices.Clone(Tables), HeapTables...) {
		for _, d := range dirs {
			p := filepath.Join(d, name+".parquet")
			if _, err := os.Stat(p); err == nil || slices.Contains(Tables, name) {
				views[name] = append(views[name], p)
			}
		}
	}
	req, err := json.Marshal(map[string]any{"views": views, "queries": qs})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", filepath.Join("testdata", "duckdb", "query.mjs"), modules)
	cmd.Stdin = bytes.NewReader(req)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("duckdb: %v\n%s%s", err, out, stderr.Bytes())
	}
	var res struct {
		Version string       `json:"version"`
		Results duckdbResult `json:"results"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("duckdb output: %v\n%s", err, out)
	}
	t.Logf("DuckDB %s", res.Version)
	return res.Results
}

// rows renders a result's rows as "a|b|c" strings of the named columns,
// NULL for null, for comparison as a set.
func (r duckdbResult) rows(t *testing.T, query string, cols ...string) []string {
	t.Helper()
	rs, ok := r[query]
	if !ok {
		t.Fatalf("no result for query %s", query)
	}
	var out []string
	for _, row := range rs {
		var parts []string
		for _, c := range cols {
			v, ok := row[c]
			if !ok {
				t.Fatalf("%s: no column %s in %v", query, c, row)
			}
			parts = append(parts, cell(v))
		}
		out = append(out, strings.Join(parts, "|"))
	}
	return out
}

func cell(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case string:
		return x
	case float64:
		return fmt.Sprint(int64(x))
	default:
		return fmt.Sprint(x)
	}
}

// TestREADMEQueriesHandBuilt runs the README queries over two hand-built
// dumps ("before.hprof", "after.hprof") and compares each answer with
// the same numbers computed from the graphs directly.
func TestREADMEQueriesHandBuilt(t *testing.T) {
	modules := duckdbModules(t)
	qs := readmeQueries(t)
	dir := t.TempDir()
	names := []string{"before.hprof", "after.hprof"}
	gs := []*graph.Graph{testGraph(names[0], 1), testGraph(names[1], 3)}
	if err := WriteDir(dir, Options{RowGroupRows: 7}, gs...); err != nil {
		t.Fatal(err)
	}
	res := runDuckDB(t, modules, []string{dir}, qs)

	var views []flatView
	for i, g := range gs {
		views = append(views, flattenGraph(names[i], g)...)
	}
	exp := expectFromViews(views, names[0], names[1])
	expectFromGraphs(exp, names, gs)
	checkQueries(t, qs, res, exp)

	// view_totals also counts rows: one per graph sample.
	var wantRows []string
	for i, g := range gs {
		for _, v := range g.Views {
			wantRows = append(wantRows, fmt.Sprintf("%s|%s|%d", names[i], v.Name, len(v.Samples)))
		}
	}
	got := res.rows(t, "view_totals", "source", "view", "rows")
	sort.Strings(got)
	sort.Strings(wantRows)
	if !slices.Equal(got, wantRows) {
		t.Errorf("view_totals rows: got %q, want %q", got, wantRows)
	}
}
