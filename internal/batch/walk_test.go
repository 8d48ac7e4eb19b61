package batch

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// denyFS is a directory in which one subdirectory cannot be listed, as a
// lost+found owned by root is for anyone else.
type denyFS struct {
	fs.FS
	deny string
}

func (d denyFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if name == d.deny {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrPermission}
	}
	return fs.ReadDir(d.FS, name)
}

// TestUnreadableSubdirectory: a subdirectory that cannot be listed does
// not stop the job: it is skipped, reported once, and counted in the
// summary; the dumps beside it are converted. The tests run as root,
// whom a directory's mode does not stop, so the walk's file system
// denies the listing.
func TestUnreadableSubdirectory(t *testing.T) {
	in, out := t.TempDir(), t.TempDir()
	copyInto(t, in, map[string]string{"java_pid1.hprof": "cpu-samples.cpuwork.jdk17.hprof", "lost+found/x.hprof": "cpu-samples.cpuwork.jdk17.hprof"})
	defer func(f func(string) fs.FS) { dirFS = f }(dirFS)
	dirFS = func(dir string) fs.FS { return denyFS{os.DirFS(dir), "lost+found"} }
	all, err := Expand([]string{in}, Selection{})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	s, err := Run(context.Background(), Job{Inputs: all, Dir: out, Format: "pprof", Workers: 2, Events: rec.event})
	if err != nil {
		t.Fatal(err)
	}
	if s.OK != 1 || s.Unreadable != 1 || s.Inputs != 1 || s.Exit != ExitOK {
		t.Errorf("summary %+v: want the dump ok, one unreadable directory, exit 0", s)
	}
	lost := filepath.Join(in, "lost+found")
	problems := 0
	for i, r := range s.Files {
		for _, ev := range rec.byInput[i] {
			if ev.Kind == Problem {
				problems++
				if r.Input != lost {
					t.Errorf("problem with %s: %v", r.Input, ev.Err)
				}
			}
		}
		if r.Input == lost && (r.Status != StatusUnreadable || !strings.Contains(r.Reason, "permission denied")) {
			t.Errorf("%+v: want unreadable, permission denied", r)
		}
	}
	if problems != 1 {
		t.Errorf("%d problems reported, want 1", problems)
	}
	var text strings.Builder
	s.WriteText(&text)
	if !strings.Contains(text.String(), "summary: 1 inputs: 1 ok, 0 partial, 0 failed, 0 up to date; ") ||
		!strings.Contains(text.String(), "; 1 unreadable directory skipped\n") || strings.Count(text.String(), lost) != 1 {
		t.Errorf("summary text does not count and name the unreadable directory once:\n%s", text.String())
	}
	data, _ := json.Marshal(s)
	if !strings.Contains(string(data), `"unreadable":1`) {
		t.Errorf("summary JSON does not count the unreadable directory: %s", data)
	}
}

// TestNotInputsInDirectory: files found in a directory whose content is
// no input this tool reads are skipped and counted, not failures, and
// reported nowhere but the summary; a file named as a dump that is not
// one still fails, and so does a file named on the command line.
func TestNotInputsInDirectory(t *testing.T) {
	in, out := t.TempDir(), t.TempDir()
	copyInto(t, in, map[string]string{"java_pid1.hprof": "cpu-samples.cpuwork.jdk17.hprof", "app.map": "mappings/" + firstMapping(t)})
	writeFile(t, filepath.Join(in, "README.md"), []byte("# Dumps\n\nTaken on the night of the outage.\n"))
	writeFile(t, filepath.Join(in, "gc.csv"), []byte("time,heap\n1,200\n2,300\n"))
	writeFile(t, filepath.Join(in, "broken.hprof"), []byte("not a dump at all\n"))
	all, err := Expand([]string{in}, Selection{})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	s, err := Run(context.Background(), Job{Inputs: all, Dir: out, Format: "pprof", Workers: 2, Events: rec.event})
	if err != nil {
		t.Fatal(err)
	}
	if s.OK != 1 || s.Failed != 1 || s.NotInputs != 3 || s.Inputs != 2 || s.Exit != ExitFailure {
		t.Errorf("summary %+v: want 1 ok, 1 failed (broken.hprof), 3 not inputs", s)
	}
	for i, r := range s.Files {
		problems := 0
		for _, ev := range rec.byInput[i] {
			if ev.Kind == Problem {
				problems++
			}
		}
		want := map[string]int{"broken.hprof": 1}[filepath.Base(r.Input)]
		if problems != want {
			t.Errorf("%s (%s): %d problems reported, want %d", r.Input, r.Status, problems, want)
		}
	}
	var text strings.Builder
	s.WriteText(&text)
	if strings.Count(text.String(), filepath.Join(in, "README.md")) != 1 || !strings.Contains(text.String(), "; 3 files skipped: not HPROF\n") {
		t.Errorf("summary text does not count and name the files skipped once:\n%s", text.String())
	}
	// Named on the command line, a file that is not HPROF fails.
	readme := filepath.Join(in, "README.md")
	s, _ = Run(context.Background(), Job{Inputs: []Input{{Path: readme, Key: readme, Rel: "README.md", Size: -1}}, Dir: out, Format: "pprof", Workers: 1})
	if s.Failed != 1 || s.Exit != ExitFailure {
		t.Errorf("README.md named on the command line: %+v, want failed", s)
	}
}

func firstMapping(t *testing.T) string {
	t.Helper()
	m, _ := filepath.Glob(testdata("mappings/*"))
	if len(m) == 0 {
		t.Fatal("no mapping file in testdata/mappings")
	}
	return filepath.Base(m[0])
}
