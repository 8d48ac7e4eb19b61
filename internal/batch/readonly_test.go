package batch

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestReadOnlyInputFolder: outputs written beside an input in a folder
// that cannot be written to fail with the folder named and -d suggested,
// not with the temporary file's name. The folder is made read-only
// through the file-creating hook, since the tests run as root, whom a
// directory's mode does not stop.
func TestReadOnlyInputFolder(t *testing.T) {
	in := t.TempDir()
	copyInto(t, in, map[string]string{"java_pid1.hprof": "cpu-samples.cpuwork.jdk17.hprof"})
	defer func(f func(string, string) (*os.File, error)) { createTemp = f }(createTemp)
	createTemp = func(dir, pattern string) (*os.File, error) {
		return nil, &fs.PathError{Op: "open", Path: filepath.Join(dir, strings.Replace(pattern, "*", "123", 1)), Err: syscall.EACCES}
	}
	p := filepath.Join(in, "java_pid1.hprof")
	s, err := Run(context.Background(), Job{Inputs: []Input{{Path: p, Key: p, Rel: "java_pid1.hprof", Size: -1}}, Format: "pprof", Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	r := s.Files[0]
	if r.Status != StatusFailed || !strings.Contains(r.Reason, "cannot write in "+in+" (permission denied)") || !strings.Contains(r.Reason, "-d DIR") || strings.Contains(r.Reason, ".tmp-") {
		t.Errorf("result %+v: want failed, naming the folder %s and suggesting -d DIR", r, in)
	}
}
