//go:build linux

package parquet

import (
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestWriteErrorLater writes tables past the kernel's file size limit
// (RLIMIT_FSIZE, in a child process of this test binary): the first row
// groups fit, a later one fails with EFBIG on its table's writer
// goroutine, and the error must come back from the writer, naming the
// table, with no file left under a final name.
func TestWriteErrorLater(t *testing.T) {
	if dir := os.Getenv("PARQUET_FSIZE_DIR"); dir != "" {
		// The child: past the limit a write fails with EFBIG instead of
		// the process being killed by SIGXFSZ.
		signal.Ignore(syscall.SIGXFSZ)
		lim := &syscall.Rlimit{Cur: 64 << 10, Max: 64 << 10}
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, lim); err != nil {
			t.Skip(err)
		}
		err := WriteDir(dir, Options{RowGroupRows: 1000}, bigGraph(20_000))
		if err == nil {
			t.Fatal("no error")
		}
		t.Log("WRITE ERROR: " + err.Error())
		return
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestWriteErrorLater$", "-test.v")
	cmd.Env = append(os.Environ(), "PARQUET_FSIZE_DIR="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "SKIP") {
		t.Skipf("child skipped:\n%s", out)
	}
	_, msg, ok := strings.Cut(string(out), "WRITE ERROR: ")
	if !ok || !strings.Contains(msg, "file too large") || !strings.Contains(msg, "parquet: table ") {
		t.Fatalf("want an error naming a table and the file size limit, got:\n%s", out)
	}
	t.Log(strings.SplitN(msg, "\n", 2)[0])
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := e.Name()
		table := strings.TrimSuffix(name, ".parquet")
		if strings.Contains(msg, "table "+table+":") {
			t.Errorf("%s left under its final name", filepath.Join(dir, name))
		}
		if strings.HasSuffix(name, ".tmp") {
			t.Errorf("temporary file %s left behind", name)
		}
	}
}
