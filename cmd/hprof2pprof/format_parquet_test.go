package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"testing"
)

// TestConvertParquet runs `convert --format parquet -d DIR` and
// `convert -d DIR` (pprof) on the same real inputs, then asks DuckDB for
// each view's totals from the Parquet tables: they must equal the sample
// totals of the pprof files the CLI wrote.
func TestConvertParquet(t *testing.T) {
	modules := duckdbModulesForCLI(t)
	root := filepath.Join("..", "..")
	inputs := []string{
		filepath.Join(root, "testdata", "heap-all-cpu-samples.allocwork.jdk25.hprof"),
		filepath.Join(root, "testdata", "cpu-samples.cpuwork.jdk17.hprof"),
	}
	pqDir, ppDir := t.TempDir(), t.TempDir()
	for _, args := range [][]string{
		append([]string{"convert", "-q", "--format", "parquet", "--layout", "single", "-d", pqDir}, inputs...),
		append([]string{"convert", "-q", "-d", ppDir}, inputs...),
	} {
		var stderr bytes.Buffer
		if code := run(context.Background(), args, &env{stdout: &bytes.Buffer{}, stderr: &stderr}); code != exitOK {
			t.Fatalf("hprof2pprof %v: exit %d\n%s", args, code, stderr.String())
		}
	}

	// Expected: "input|view|type|total" from every pprof file.
	var want []string
	for _, in := range inputs {
		matches, _ := filepath.Glob(filepath.Join(ppDir, filepath.Base(in)+".*.pb.gz"))
		if len(matches) == 0 {
			t.Fatalf("no pprof files for %s", in)
		}
		for _, m := range matches {
			p := readPprof(t, m)
			view := filepath.Ext(m[:len(m)-len(".pb.gz")])[1:]
			for i, st := range p.SampleType {
				var sum int64
				for _, s := range p.Sample {
					sum += s.Value[i]
				}
				want = append(want, fmt.Sprintf("%s|%s|%s|%d", in, view, st.Type, sum))
			}
		}
	}

	// Got: the same from DuckDB, unpivoting the value columns.
	sql := `SELECT source, view, type, sum(value) AS total
FROM (UNPIVOT samples ON samples, cpu, alloc_objects, alloc_space, inuse_objects, inuse_space, threads
      INTO NAME type VALUE value)
GROUP BY ALL`
	rows := duckdbQuery(t, modules, filepath.Join(pqDir, "samples.parquet"), sql)
	var got []string
	for _, r := range rows {
		got = append(got, fmt.Sprintf("%v|%v|%v|%v", r["source"], r["view"], r["type"], r["total"]))
	}
	sort.Strings(got)
	sort.Strings(want)
	if !slices.Equal(got, want) {
		t.Errorf("DuckDB totals from the Parquet tables differ from the pprof files:\n got  %q\n want %q", got, want)
	}
}

// TestConvertParquetNeedsDir: -o is a usage error for a directory format.
func TestConvertParquetNeedsDir(t *testing.T) {
	var stderr bytes.Buffer
	args := []string{"convert", "--format", "parquet", "-o", filepath.Join(t.TempDir(), "x"), filepath.Join("..", "..", "testdata", "cpu-samples.cpuwork.jdk17.hprof")}
	if code := run(context.Background(), args, &env{stdout: &bytes.Buffer{}, stderr: &stderr}); code != exitUsage {
		t.Errorf("exit %d, want %d (usage)\n%s", code, exitUsage, stderr.String())
	}
}

// duckdbModulesForCLI finds DuckDB as the parquet package's tests do:
// $HPROF2PPROF_DUCKDB_MODULES or .cache/duckdb/node_modules at the module
// root; missing means skip, or fail under CI=true.
func duckdbModulesForCLI(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("HPROF2PPROF_DUCKDB_MODULES")
	if dir == "" {
		dir = filepath.Join("..", "..", ".cache", "duckdb", "node_modules")
	}
	_, nodeErr := exec.LookPath("node")
	_, modErr := os.Stat(filepath.Join(dir, "@duckdb", "node-api", "package.json"))
	if nodeErr != nil || modErr != nil {
		msg := "DuckDB not available (need node and " + dir + "); run scripts/setup-duckdb.sh"
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

// duckdbQuery runs one query over a samples table with the parquet
// package's query script.
func duckdbQuery(t *testing.T, modules, samples, sql string) []map[string]any {
	t.Helper()
	req, _ := json.Marshal(map[string]any{
		"views":   map[string]string{"samples": samples},
		"queries": []map[string]string{{"name": "q", "sql": sql}},
	})
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
