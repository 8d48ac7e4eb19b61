package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// TestRetainedSpillFlags: --retained-memory 0 forces the retained view's
// graph into files under --spill-dir; the view equals the in-memory one
// and the directory is cleaned up.
func TestRetainedSpillFlags(t *testing.T) {
	in := "../../testdata/jdk17-zoo-live.hprof"
	spill := t.TempDir()
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), []string{"info", "--view", "retained", "--retained-memory", "0", "--spill-dir", spill, in},
		&env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr})
	if code != exitOK || !strings.Contains(stdout.String(), "spilled to "+spill) {
		t.Fatalf("exit %d; info does not say it spilled to %s:\n%s%s", code, spill, stdout.String(), stderr.String())
	}
	mem, disk := filepath.Join(dir, "mem.pb.gz"), filepath.Join(dir, "disk.pb.gz")
	if code, log := runCLI(t, "convert", "-q", "--view", "retained", "-o", mem, in); code != exitOK {
		t.Fatalf("exit %d: %s", code, log)
	}
	if code, log := runCLI(t, "convert", "-q", "--view", "retained", "--retained-memory", "0", "--spill-dir", spill, "-o", disk, in); code != exitOK {
		t.Fatalf("exit %d: %s", code, log)
	}
	a, b := totals(t, mem), totals(t, disk)
	if a != b {
		t.Errorf("retained totals: in memory %v, spilled %v", a, b)
	}
	if left, _ := os.ReadDir(spill); len(left) > 0 {
		t.Errorf("spill directory not cleaned: %v", left)
	}
}

// readPprof parses the pprof file at path, as go tool pprof reads it.
func readPprof(t *testing.T, path string) *profile.Profile {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return p
}

func totals(t *testing.T, path string) [2]int64 {
	t.Helper()
	p := readPprof(t, path)
	var sum [2]int64
	for _, s := range p.Sample {
		for i := range min(2, len(s.Value)) {
			sum[i] += s.Value[i]
		}
	}
	return sum
}
