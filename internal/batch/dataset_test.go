package batch

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/hprof2pprof/hprof2pprof/parquet"
)

// datasetFiles lists the files under dir, hidden ones (resume marks, the
// staging folder) apart.
func datasetFiles(t *testing.T, dir string) (files, hidden []string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case strings.HasPrefix(e.Name(), ".") && rel != ".":
			hidden = append(hidden, rel)
			if e.IsDir() {
				return filepath.SkipDir
			}
		case !e.IsDir():
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(files)
	return files, hidden
}

// TestDatasetPartitions: --format parquet -d writes one partition per
// input and table; a rerun skips done inputs, a forced one replaces the
// partitions (never adds to them), and a killed run's staging folder is
// removed by the next.
func TestDatasetPartitions(t *testing.T) {
	in, out := t.TempDir(), t.TempDir()
	copyInto(t, in, map[string]string{
		"a/x.hprof": "cpu-samples.cpuwork.jdk17.hprof",
		"b/x.hprof": "heap-sites.allocwork.jdk17.hprof",
	})
	all, err := Expand([]string{in}, Selection{})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, p := range []string{"a/x.hprof", "b/x.hprof"} {
		key := PartitionKey(filepath.Join(in, p))
		for _, table := range parquet.Tables {
			want = append(want, fmt.Sprintf("%s/input=%s/part-0.parquet", table, key))
		}
	}
	sort.Strings(want)
	run := func(force bool) {
		t.Helper()
		s, err := Run(context.Background(), Job{Inputs: all, Dir: out, Format: "parquet", Workers: 2, Force: force})
		if err != nil || s.Failed > 0 {
			t.Fatalf("run: %v, %+v", err, s)
		}
		if got, _ := datasetFiles(t, out); !slices.Equal(got, want) {
			t.Fatalf("dataset holds %q, want %q", got, want)
		}
	}
	run(false)
	first, _ := os.Stat(filepath.Join(out, want[0]))

	// A killed run of this host left a staging folder behind.
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	left := filepath.Join(out, stagingDir, fmt.Sprintf("%s-%d-x.hprof-00000000.1", strings.ReplaceAll(host, "-", "_"), dead.Process.Pid))
	if err := os.MkdirAll(left, 0o755); err != nil {
		t.Fatal(err)
	}
	run(false)
	if _, err := os.Stat(left); err == nil {
		t.Error("a killed run's staging folder was left")
	}
	if again, _ := os.Stat(filepath.Join(out, want[0])); !again.ModTime().Equal(first.ModTime()) {
		t.Error("a rerun wrote a done input again")
	}
	run(true)
	if _, hidden := datasetFiles(t, out); slices.ContainsFunc(hidden, func(h string) bool { return strings.HasPrefix(h, stagingDir) }) {
		t.Errorf("staging left after a clean run: %q", hidden)
	}
}

func TestPartitionKey(t *testing.T) {
	a, b := PartitionKey("/dumps/h1/java_pid1.hprof.gz"), PartitionKey("/dumps/h2/java_pid1.hprof")
	if !strings.HasPrefix(a, "java_pid1.hprof-") || !strings.HasPrefix(b, "java_pid1.hprof-") || a == b {
		t.Errorf("keys %q and %q: want the base name and apart", a, b)
	}
	if k := PartitionKey("s3://bucket/a b=c%/dump.hprof"); strings.ContainsAny(k, " =%/") {
		t.Errorf("key %q holds characters partition paths escape", k)
	}
}
