package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// runSuspects runs the binary's suspects command: its exit status,
// standard output and standard error.
func runSuspectsBin(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(binPath, append([]string{"suspects", "-q"}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), stdout.String(), stderr.String()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, stdout.String(), stderr.String()
}

// TestSuspectsCLI: the report in its three formats on the workloads'
// OOM leak dump (a lambda of main adds byte[] chunks to the static list
// corpus.Oom.LEAK), the exit statuses, and a dump without a dominant
// retainer.
func TestSuspectsCLI(t *testing.T) {
	dump := testdata("jdk17-oom-leak.hprof.gz")
	code, out, stderr := runSuspectsBin(t, dump)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"Suspect 1: one java.util.ArrayList", "Accumulation point: java.lang.Object[]", "× byte[] retaining",
		`Java frame: thread "main" at corpus.Oom.lambda$main$0 (Oom.java:`, "↳ corpus.Oom.LEAK → java.util.ArrayList"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = runSuspectsBin(t, "--json", dump)
	var rep struct {
		File     string
		Suspects []struct {
			Share  float64
			Object struct{ Class string }
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != exitOK {
		t.Fatalf("--json: exit %d, %v\n%s", code, err, out)
	}
	if len(rep.Suspects) == 0 || rep.Suspects[0].Object.Class != "java.util.ArrayList" || rep.Suspects[0].Share < 0.8 {
		t.Errorf("--json: %+v", rep)
	}
	if code, out, _ = runSuspectsBin(t, "--format", "md", dump); code != exitOK || !strings.Contains(out, "## Suspect 1: one `java.util.ArrayList`") {
		t.Errorf("--format md: exit %d\n%s", code, out)
	}
	if code, _, _ = runSuspectsBin(t, "--fail-on-suspect", dump); code != exitFailure {
		t.Errorf("--fail-on-suspect with a suspect: exit %d, want %d", code, exitFailure)
	}
	// A 95% threshold: nothing retains that much.
	code, out, _ = runSuspectsBin(t, "--threshold", "95%", "--fail-on-suspect", dump)
	if code != exitOK || !strings.Contains(out, "No suspect") {
		t.Errorf("--threshold 95%%: exit %d\n%s", code, out)
	}
	if code, _, stderr := runSuspectsBin(t, testdata("cpu-samples.cpuwork.jdk17.hprof")); code != exitFailure || !strings.Contains(stderr, "holds no heap dump") {
		t.Errorf("no heap dump: exit %d\n%s", code, stderr)
	}
	for _, args := range [][]string{{"--threshold", "abc", dump}, {"--class", "(", dump}, {"--format", "xml", dump}, {}, {"-"}} {
		if code, _, stderr := runSuspectsBin(t, args...); code != exitUsage || !strings.Contains(stderr, "usage") {
			t.Errorf("%q: exit %d, want %d with usage\n%s", args, code, exitUsage, stderr)
		}
	}
}

// TestSuspectsDamaged: a dump cut short reports what was read before the
// damage and exits 3.
func TestSuspectsDamaged(t *testing.T) {
	b, err := os.ReadFile(testdata("jdk17-zoo-live.hprof"))
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "cut.hprof")
	if err := os.WriteFile(cut, b[:len(b)*3/4], 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runSuspectsBin(t, cut)
	if code != exitPartial || !strings.Contains(out, "Leak suspects:") || !strings.Contains(stderr, "partial") {
		t.Errorf("exit %d, want %d\n%s\n%s", code, exitPartial, out, stderr)
	}
}
