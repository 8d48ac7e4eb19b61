package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// TestConvertHeapTables runs `convert --format parquet --tables
// objects,refs,strings,roots` on two real dumps at once (-j 2) and asks
// DuckDB for each table's counts: objects by class equal the oracle's
// histogram (VisualVM's library), Strings its java.lang.String instances.
func TestConvertHeapTables(t *testing.T) {
	modules := duckdbModulesForCLI(t)
	root := filepath.Join("..", "..")
	inputs := []string{
		filepath.Join(root, "testdata", "jdk17-zoo-live.hprof"),
		filepath.Join(root, "testdata", "jdk25-zoo-live.hprof.gz"),
	}
	dir := t.TempDir()
	// Compared with the oracle: its size model.
	args := append([]string{"convert", "-q", "-j", "2", "--format", "parquet", "--size-model", "visualvm", "--layout", "single", "--tables", "objects,refs,strings,roots", "-d", dir}, inputs...)
	var stderr bytes.Buffer
	if code := run(context.Background(), args, &env{stdout: &bytes.Buffer{}, stderr: &stderr}); code != exitOK {
		t.Fatalf("hprof2pprof %v: exit %d\n%s", args, code, stderr.String())
	}
	for _, table := range []string{"objects", "refs", "strings", "roots", "classes", "samples"} {
		if _, err := os.Stat(filepath.Join(dir, table+".parquet")); err != nil {
			t.Errorf("table %s: %v", table, err)
		}
	}
	var want, wantStrings []string
	for _, in := range inputs {
		f, err := os.Open(in + ".oracle/histogram-by-name.csv")
		if err != nil {
			t.Fatal(err)
		}
		rows, err := csv.NewReader(f).ReadAll()
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows[1:] {
			if r[1] != "0" {
				want = append(want, fmt.Sprintf("%s|%s|%s|%s", in, r[0], r[1], r[2]))
			}
			if r[0] == "java.lang.String" {
				wantStrings = append(wantStrings, in+"|"+r[1])
			}
		}
	}
	lit := func(table string) string { return "read_parquet('" + filepath.Join(dir, table+".parquet") + "')" }
	samples := filepath.Join(dir, "samples.parquet")
	var got []string
	// class_raw: the class as the dump (and the oracle) names it.
	for _, r := range duckdbQuery(t, modules, samples, `SELECT source, class_raw AS class, count(*) AS n, sum(shallow_size) AS b FROM `+
		lit("objects")+` WHERE kind <> 'class' GROUP BY ALL`) {
		got = append(got, fmt.Sprintf("%v|%v|%v|%v", r["source"], r["class"], r["n"], r["b"]))
	}
	sort.Strings(got)
	sort.Strings(want)
	if !slices.Equal(got, want) {
		t.Errorf("objects by class differ from the oracle's histogram: got %d rows, want %d", len(got), len(want))
	}
	var gotStrings []string
	for _, r := range duckdbQuery(t, modules, samples, `SELECT source, count(*) AS n FROM `+lit("strings")+` GROUP BY ALL`) {
		gotStrings = append(gotStrings, fmt.Sprintf("%v|%v", r["source"], r["n"]))
	}
	sort.Strings(gotStrings)
	sort.Strings(wantStrings)
	if !slices.Equal(gotStrings, wantStrings) {
		t.Errorf("strings: got %q, want %q", gotStrings, wantStrings)
	}
}

// TestConvertHeapTablesErrors: an unknown table is a usage error; heap
// tables of standard input fail (it cannot be read again), saying why.
func TestConvertHeapTablesErrors(t *testing.T) {
	dump := filepath.Join("..", "..", "testdata", "jdk17-zoo-live.hprof")
	var stderr bytes.Buffer
	args := []string{"convert", "--format", "parquet", "--tables", "objects,bogus", "-d", t.TempDir(), dump}
	if code := run(context.Background(), args, &env{stdout: &bytes.Buffer{}, stderr: &stderr}); code != exitUsage || !strings.Contains(stderr.String(), "bogus") {
		t.Errorf("exit %d, want %d (usage) naming the table\n%s", code, exitUsage, stderr.String())
	}
	b, err := os.ReadFile(dump)
	if err != nil {
		t.Fatal(err)
	}
	stderr.Reset()
	args = []string{"convert", "-q", "--format", "parquet", "--tables", "heap", "-d", t.TempDir(), "-"}
	code := run(context.Background(), args, &env{stdin: bytes.NewReader(b), stdout: &bytes.Buffer{}, stderr: &stderr})
	if code == exitOK || !strings.Contains(stderr.String(), "standard input") {
		t.Errorf("heap tables of standard input: exit %d\n%s", code, stderr.String())
	}
}
