package main

import (
	"bufio"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/hprof2pprof/hprof2pprof/internal/batch"
)

// TestBatchInterrupted: SIGTERM (like Ctrl-C) stops a job cleanly: the
// unfinished inputs are reported failed ("interrupted") in the summary,
// the exit status is 1, no temporary file is left, and a rerun finishes
// the job.
func TestBatchInterrupted(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "dumps")
	const inputs = 8
	for i := range inputs {
		copyFile(t, testdata("jdk17-zoo-live.hprof"), filepath.Join(dir, fmt.Sprintf("zoo%02d.hprof", i)), 0)
	}
	out := filepath.Join(t.TempDir(), "out")
	sum := filepath.Join(t.TempDir(), "summary.json")
	cmd := exec.Command(binPath, "convert", "-j", "1", "--progress", "plain", "-d", out, "--summary", sum, dir)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "wrote ") {
			break // one input under way or done: interrupt now
		}
	}
	cmd.Process.Signal(syscall.SIGTERM)
	for sc.Scan() { // drain, so the process is never blocked on stderr
	}
	err = cmd.Wait()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != exitFailure {
		t.Fatalf("after SIGTERM: %v, want exit 1", err)
	}
	s := readSummary(t, sum)
	if s.OK+s.Partial+s.Failed != inputs {
		t.Errorf("summary accounts for %d of %d inputs", s.OK+s.Partial+s.Failed, inputs)
	}
	interrupted := 0
	for _, r := range s.Files {
		if r.Status == batch.StatusFailed && strings.Contains(r.Reason, "interrupted") {
			interrupted++
		}
	}
	if interrupted == 0 && s.OK != inputs {
		t.Errorf("no input reported as interrupted: %+v", s.Files)
	}
	for _, f := range listFiles(t, out, true) {
		if strings.Contains(f, ".tmp-") {
			t.Errorf("temporary file left after SIGTERM: %s", f)
		}
	}
	if code, log := runBin(t, "convert", "-q", "-d", out, dir); code != exitOK {
		t.Fatalf("rerun: exit %d\n%s", code, log)
	}
}
