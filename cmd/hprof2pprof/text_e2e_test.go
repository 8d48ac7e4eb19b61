package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// runCLI runs the command in-process and returns its exit code and stderr.
func runCLI(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr})
	return code, stderr.String()
}

// fileCPUTable reads a text report's CPU SAMPLES rows and sums the count
// column per method (the leaf function the agent prints).
func fileCPUTable(t *testing.T, path string) (map[string]int64, int64) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	per := map[string]int64{}
	var total int64
	in := false
	for _, line := range strings.Split(string(data), "\n") {
		switch {
		case strings.HasPrefix(line, "CPU SAMPLES BEGIN"):
			in = true
		case line == "CPU SAMPLES END":
			in = false
		case in:
			f := strings.Fields(line)
			if len(f) == 6 && f[0] != "rank" {
				n, _ := strconv.ParseInt(f[3], 10, 64)
				per[f[5]] += n
				total += n
			}
		}
	}
	return per, total
}

// TestTextReportTop converts a text report with the CLI and reads it back
// with the real `go tool pprof -top`: each function's flat sample count
// equals the sum of the file's own CPU SAMPLES rows for that method.
func TestTextReportTop(t *testing.T) {
	in := filepath.Join("..", "..", "testdata", "cpu-samples.cpuwork.jdk17.txt")
	out := filepath.Join(t.TempDir(), "cpu.pb.gz")
	if code, stderr := runCLI(t, "convert", "--view", "cpu", "-o", out, in); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	cmd := exec.Command("go", "tool", "pprof", "-top", "-nodecount=100000", "-nodefraction=0", "-edgefraction=0", "-sample_index=samples", out)
	top, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go tool pprof: %v\n%s", err, top)
	}
	want, total := fileCPUTable(t, in)
	got := map[string]int64{}
	rows := false
	for _, line := range strings.Split(string(top), "\n") {
		f := strings.Fields(line)
		if len(f) == 5 && f[0] == "flat" {
			rows = true
			continue
		}
		if rows && len(f) == 6 {
			n, err := strconv.ParseInt(f[0], 10, 64)
			if err != nil {
				t.Fatalf("pprof row %q", line)
			}
			if n > 0 {
				got[f[5]] = n
			}
		}
	}
	if len(got) != len(want) {
		t.Errorf("pprof lists %d functions with flat samples, the file %d\n%s", len(got), len(want), top)
	}
	for fn, n := range want {
		if got[fn] != n {
			t.Errorf("%s: pprof flat %d, file rows %d", fn, got[fn], n)
		}
	}
	if !strings.Contains(string(top), "CPU SAMPLES total = "+strconv.FormatInt(total, 10)) {
		t.Errorf("pprof output lacks the file's total %d:\n%s", total, top)
	}
}

// TestTextReportPartial: a report cut inside its last dump converts what
// is complete and exits 3.
func TestTextReportPartial(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "sigquit-cpu-samples.cpuwork.jdk17.txt"))
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(data, []byte("CPU SAMPLES BEGIN (total = 265)"))
	if i < 0 {
		t.Fatal("marker not found")
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "cut.txt")
	if err := os.WriteFile(in, data[:i+300], 0o644); err != nil {
		t.Fatal(err)
	}
	code, stderr := runCLI(t, "convert", "--view", "cpu", "-o", filepath.Join(dir, "cpu.pb.gz"), in)
	if code != exitPartial || !strings.Contains(stderr, "CPU SAMPLES section of dump 3") {
		t.Errorf("exit %d, stderr %q; want 3 and the lost section named", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "cpu.pb.gz")); err != nil {
		t.Errorf("no output for the complete dumps: %v", err)
	}
}
