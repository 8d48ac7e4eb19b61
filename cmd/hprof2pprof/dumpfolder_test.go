package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// runUnprivileged runs the built binary as a user whom a folder's mode
// stops: the tests' own user, or, under root, nobody (setpriv). Without
// setpriv under root the test is skipped, saying so.
func runUnprivileged(t *testing.T, args ...string) (int, string) {
	t.Helper()
	if os.Geteuid() != 0 {
		return runBin(t, args...)
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Skip("running as root without setpriv: no user whom a folder's mode stops")
	}
	os.Chmod(filepath.Dir(binPath), 0o755)
	cmd := exec.Command(setpriv, append([]string{"--reuid=65534", "--regid=65534", "--clear-groups", binPath}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), stderr.String()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, stderr.String()
}

// openDir is a fresh directory every user may enter and write in.
func openDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "hprof2pprof-perm-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		filepath.WalkDir(dir, func(p string, _ os.DirEntry, _ error) error { os.Chmod(p, 0o755); return nil })
		os.RemoveAll(dir)
	})
	os.Chmod(dir, 0o777)
	return dir
}

// TestUnreadableSubdirectoryCLI: a lost+found that cannot be listed
// does not stop the job: the dump beside it is converted, the directory
// is named once and counted in the summary, and the job exits 0.
func TestUnreadableSubdirectoryCLI(t *testing.T) {
	top := openDir(t)
	in, out := filepath.Join(top, "dumps"), filepath.Join(top, "out")
	copyFile(t, testdata("cpu-samples.cpuwork.jdk17.hprof"), filepath.Join(in, "java_pid1.hprof"), 0)
	copyFile(t, testdata("cpu-samples.cpuwork.jdk17.hprof"), filepath.Join(in, "lost+found", "x.hprof"), 0)
	os.Chmod(in, 0o755)
	os.MkdirAll(out, 0o777)
	os.Chmod(out, 0o777)
	os.Chmod(filepath.Join(in, "lost+found"), 0)
	sum := filepath.Join(out, "summary.json")
	code, stderr := runUnprivileged(t, "convert", "-d", out, "--summary", sum, in)
	lost := filepath.Join(in, "lost+found")
	if code != exitOK || strings.Count(stderr, lost) != 1 || !strings.Contains(stderr, "1 unreadable directory skipped") {
		t.Errorf("exit %d, want 0, the directory named once and counted:\n%s", code, stderr)
	}
	if s := readSummary(t, sum); s.OK != 1 || s.Unreadable != 1 {
		t.Errorf("summary: %+v, want 1 ok, 1 unreadable", s)
	}
}

// TestReadOnlyFolderSuggestsDir: converting beside an input in a folder
// that cannot be written to names the folder and suggests -d.
func TestReadOnlyFolderSuggestsDir(t *testing.T) {
	dir := filepath.Join(openDir(t), "ro")
	in := filepath.Join(dir, "java_pid1.hprof")
	copyFile(t, testdata("cpu-samples.cpuwork.jdk17.hprof"), in, 0)
	os.Chmod(in, 0o644)
	os.Chmod(dir, 0o555)
	code, stderr := runUnprivileged(t, "convert", in)
	if code != exitFailure || !strings.Contains(stderr, "cannot write in "+dir+" (permission denied)") || !strings.Contains(stderr, "-d DIR") {
		t.Errorf("exit %d, stderr %q: want 1, the folder named and -d suggested", code, stderr)
	}
}

// TestDumpFolderWithOtherFiles: in a directory, files that are no input
// (a README, a CSV) are skipped and listed once in the summary; a file
// named as a dump that is not one fails; every path is printed once.
// Named on the command line, a README is an error.
func TestDumpFolderWithOtherFiles(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "dumps")
	copyFile(t, testdata("cpu-samples.cpuwork.jdk17.hprof"), filepath.Join(in, "java_pid1.hprof"), 0)
	writeFile(t, filepath.Join(in, "README.md"), []byte("# Dumps\n\nTaken on the night of the outage.\n"))
	writeFile(t, filepath.Join(in, "gc.csv"), []byte("time,heap\n1,200\n2,300\n"))
	writeFile(t, filepath.Join(in, "broken.hprof"), []byte("not a dump at all\n"))
	code, stderr := runBin(t, "convert", "-d", filepath.Join(dir, "out"), in)
	if code != exitFailure || !strings.Contains(stderr, "summary: 2 inputs: 1 ok, 0 partial, 1 failed, 0 up to date; ") || !strings.Contains(stderr, "; 2 files skipped: not HPROF\n") {
		t.Errorf("exit %d, want 1 (broken.hprof) and two files skipped:\n%s", code, stderr)
	}
	for _, f := range []string{"README.md", "gc.csv", "broken.hprof"} {
		if n := strings.Count(stderr, filepath.Join(in, f)); n != 1 {
			t.Errorf("%s printed %d times, want once:\n%s", f, n, stderr)
		}
	}
	if code, stderr := runBin(t, "convert", "-d", filepath.Join(dir, "out"), filepath.Join(in, "README.md")); code != exitFailure || !strings.Contains(stderr, "not an HPROF file") {
		t.Errorf("README.md named: exit %d, want 1, not an HPROF file:\n%s", code, stderr)
	}
}
