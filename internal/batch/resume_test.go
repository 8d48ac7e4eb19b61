package batch

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCleanStaleMarkTemp: a run killed while writing an input's mark
// leaves "..<out>.hprof2pprof-done.tmp-*"; the next run removes it, as it
// removes the temporary files of outputs, and leaves other inputs' alone.
func TestCleanStaleMarkTemp(t *testing.T) {
	in, out := t.TempDir(), t.TempDir()
	a := Input{Path: filepath.Join(in, "a.hprof")}
	b := Input{Path: filepath.Join(in, "ab.hprof")}
	for _, in := range []Input{a, b} {
		writeFile(t, in.Path, []byte("x"))
	}
	dst := Destination{Dir: out, Inputs: []string{in}}
	base := filepath.Base(dst.OutBase(a.Path))
	stale := []string{
		"." + base + ".heap.pb.gz.tmp-1",
		"." + "." + base + MarkSuffix + ".tmp-2",
	}
	other := "." + "." + filepath.Base(dst.OutBase(b.Path)) + MarkSuffix + ".tmp-3"
	for _, n := range append(stale, other) {
		writeFile(t, filepath.Join(filepath.Dir(dst.OutBase(a.Path)), n), []byte("half"))
	}
	cleanStale(dst, []Input{a, b}, []Input{a})
	for _, n := range stale {
		if _, err := os.Stat(filepath.Join(filepath.Dir(dst.OutBase(a.Path)), n)); err == nil {
			t.Errorf("%s was not removed", n)
		}
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dst.OutBase(b.Path)), other)); err != nil {
		t.Errorf("another input's temporary file was removed: %v", err)
	}
}
