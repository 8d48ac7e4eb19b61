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

// TestExcerptTop converts the JVMPI specification's CPU SAMPLES example
// (an excerpt: no header, rows 1–10 of 252,378 samples, slash names)
// with the CLI and reads it back with the real `go tool pprof -top`: the
// profile's total is the header's, each method's flat count is the sum
// of its rows, and the rest sits on the frame that says it was not shown.
func TestExcerptTop(t *testing.T) {
	in := filepath.Join("..", "..", "testdata", "javac-cpu-samples.jvmpi-spec.txt")
	out := filepath.Join(t.TempDir(), "cpu.pb.gz")
	if code, stderr := runCLI(t, "convert", "--view", "cpu", "-o", out, in); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	top, err := exec.Command("go", "tool", "pprof", "-top", "-nodecount=100", "-sample_index=samples", out).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool pprof: %v\n%s", err, top)
	}
	rows, shown := fileCPUTable(t, in)
	const total = 252378 // the file's header: CPU SAMPLES BEGIN (total = 252378)
	if !strings.Contains(string(top), "of "+strconv.Itoa(total)+" total") {
		t.Errorf("pprof total is not %d:\n%s", total, top)
	}
	flat := map[string]int64{}
	for _, line := range strings.Split(string(top), "\n") {
		f := strings.Fields(line)
		if len(f) >= 6 {
			if n, err := strconv.ParseInt(f[0], 10, 64); err == nil {
				flat[strings.Join(f[5:], " ")] = n
			}
		}
	}
	for m, n := range rows {
		if fn := strings.ReplaceAll(m, "/", "."); flat[fn] != n {
			t.Errorf("%s: flat %d, rows %d", fn, flat[fn], n)
		}
	}
	if got := flat["(rows not shown: cutoff or excerpt)"]; got != total-shown {
		t.Errorf("not shown %d, header − rows = %d\n%s", got, total-shown, top)
	}
}

// TestExcerptInfo: info names an excerpt and what it lacks; an excerpt of
// traces only has nothing to convert and says so; text that is not hprof
// is still refused.
func TestExcerptInfo(t *testing.T) {
	var stdout, stderr bytes.Buffer
	in := filepath.Join("..", "..", "testdata", "javac-heap-sites.jvmpi-spec.txt")
	code := run(context.Background(), []string{"info", in}, &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr})
	if code != exitOK || !strings.Contains(stdout.String(), "excerpt: no `JAVA PROFILE` header and no prelude; 2 `...` lines") {
		t.Errorf("info exit %d:\n%s%s", code, stdout.String(), stderr.String())
	}
	traces := filepath.Join("..", "..", "convert", "text", "testdata", "javac-traces.jvmpi-spec.txt")
	if code, stderr := runCLI(t, "convert", "-d", t.TempDir(), traces); code != exitFailure || !strings.Contains(stderr, "no record in this input makes a view") {
		t.Errorf("traces only: exit %d, %s", code, stderr)
	}
	if code, stderr := runCLI(t, "info", traces); code != exitOK {
		t.Errorf("info on traces only: exit %d, %s", code, stderr)
	}
	// A note about hprof that names records in prose, as the agent's
	// own prelude does.
	note := filepath.Join(t.TempDir(), "notes.txt")
	text := "Profiling notes\n\nTHREAD START and THREAD END mark the lifetime of threads;\nHEAP DUMP, SITES, CPU SAMPLES|TIME records come at exit.\n"
	if err := os.WriteFile(note, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, stderr := runCLI(t, "info", note); code != exitFailure || !strings.Contains(stderr, "not an HPROF file (looks like a text file that is not an hprof report)") {
		t.Errorf("notes: exit %d, %s", code, stderr)
	}
}
