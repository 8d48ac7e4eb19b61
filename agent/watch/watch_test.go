package watch

import (
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/internal/jvmtest"
)

// biggestClass is the class with the most bytes in the heap view.
func biggestClass(t *testing.T, g *graph.Graph) string {
	t.Helper()
	for _, v := range g.Views {
		if v.Name != "heap" {
			continue
		}
		idx := len(v.SampleTypes) - 1
		for i, st := range v.SampleTypes {
			if st.Type == "inuse_space" {
				idx = i
			}
		}
		by := map[string]int64{}
		for _, s := range v.Samples {
			for _, l := range s.Labels {
				if l.Key == "class" {
					by[l.Str] += s.Values[idx]
				}
			}
		}
		best, max := "", int64(0)
		for c, n := range by {
			if n > max {
				best, max = c, n
			}
		}
		return best
	}
	t.Fatal("no heap view")
	return ""
}

type handled struct {
	mu    sync.Mutex
	dumps []Dump
	top   []string
}

// TestWatchOOMDump: a JVM that runs out of memory writes its dump
// (-XX:+HeapDumpOnOutOfMemoryError) into the watched directory; the
// watcher converts it once, after the JVM has finished writing, and its
// biggest class is the byte[] the workload leaked. A second watcher (a
// restart) does not convert it again; with Delete the file goes.
func TestWatchOOMDump(t *testing.T) {
	for _, major := range []int{17, 25} {
		t.Run("jdk"+strconv.Itoa(major), func(t *testing.T) { testWatchOOM(t, jvmtest.Home(t, major), "") })
	}
	// The JVM compresses its OOM dump: java_pid<PID>.hprof.gz.
	t.Run("jdk17-gzip", func(t *testing.T) { testWatchOOM(t, jvmtest.Home(t, 17), "-XX:HeapDumpGzipLevel=1") })
}

func testWatchOOM(t *testing.T, home, extra string) {
	dir := t.TempDir()
	h := &handled{}
	w, err := New(Options{Dir: dir, Poll: 100 * time.Millisecond, Settle: 500 * time.Millisecond,
		Handle: func(ctx context.Context, d Dump, g *graph.Graph) error {
			h.mu.Lock()
			defer h.mu.Unlock()
			if g.Damage != nil {
				t.Errorf("%s converted while incomplete: %s", d.Path, g.Lost)
			}
			h.dumps = append(h.dumps, d)
			h.top = append(h.top, biggestClass(t, g))
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go w.Run(ctx)

	j := jvmtest.Start(t, jvmtest.Spec{Home: home, NoWait: true, Args: []string{"leak"},
		JVMArgs: append([]string{"-Xmx48m", "-XX:+HeapDumpOnOutOfMemoryError", "-XX:HeapDumpPath=" + dir}, strings.Fields(extra)...)})
	if _, err := j.WaitLine(2*time.Minute, "OOM-CAUGHT"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		h.mu.Lock()
		n := len(h.dumps)
		h.mu.Unlock()
		if n > 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(time.Second) // time for a wrong second conversion
	cancel()
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.dumps) != 1 {
		t.Fatalf("%d conversions, want 1: %+v", len(h.dumps), h.dumps)
	}
	if h.top[0] != "byte[]" {
		t.Errorf("biggest class %q, want byte[]", h.top[0])
	}
	name := "java_pid" + itoa(j.PID) + ".hprof"
	if extra != "" {
		name += ".gz"
	}
	if h.dumps[0].PID != j.PID || filepath.Base(h.dumps[0].Path) != name {
		t.Errorf("dump %+v, JVM pid %d", h.dumps[0], j.PID)
	}

	// A restart finds the done mark.
	again := 0
	w2, err := New(Options{Dir: dir, Poll: 50 * time.Millisecond, Settle: 100 * time.Millisecond, Delete: true,
		Handle: func(ctx context.Context, d Dump, g *graph.Graph) error { again++; return nil }})
	if err != nil {
		t.Fatal(err)
	}
	w2.Scan(context.Background())
	time.Sleep(150 * time.Millisecond)
	w2.Scan(context.Background())
	if again != 0 {
		t.Errorf("converted again after a restart")
	}
	if _, err := os.Stat(h.dumps[0].Path); err != nil {
		t.Errorf("the dump is gone though it was handled before Delete was set: %v", err)
	}
}

// TestWatchIgnoresOthersAndPartial: files that are not dumps are left
// alone; a file still open for writing is not taken, however long it
// stays unchanged.
func TestWatchIgnoresOthersAndPartial(t *testing.T) {
	dir := t.TempDir()
	calls := 0
	w, err := New(Options{Dir: dir, Poll: 10 * time.Millisecond, Settle: 20 * time.Millisecond,
		Handle: func(ctx context.Context, d Dump, g *graph.Graph) error { calls++; return nil }})
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("hello"), 0o644)
	// A gzip file that is not an HPROF (a profile the agent wrote below).
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	zw.Write([]byte("not a heap dump"))
	zw.Close()
	os.MkdirAll(filepath.Join(dir, "profiles"), 0o755)
	os.WriteFile(filepath.Join(dir, "profiles", "heap.pb.gz"), zb.Bytes(), 0o644)
	f, err := os.Create(filepath.Join(dir, "growing.hprof"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.WriteString("JAVA PROFILE 1.0.2\x00")
	for i := 0; i < 5; i++ {
		w.Scan(context.Background())
		time.Sleep(30 * time.Millisecond)
	}
	if calls != 0 {
		t.Errorf("%d files handled, want none (two are not dumps, one is open for writing)", calls)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestWatchCorpusOom: the corpus workload corpus.Oom mode=leak (the
// program that made the shared OOM fixtures), when ../shared is present,
// writes its OOM dump into the watched directory; its heap view's
// biggest class is byte[].
func TestWatchCorpusOom(t *testing.T) {
	wd, _ := os.Getwd()
	wl := filepath.Join(wd, "..", "..", "..", "shared", "corpus", "workloads")
	if _, err := os.Stat(filepath.Join(wl, "build.sh")); err != nil {
		t.Skip("../shared/corpus/workloads not present")
	}
	home := jvmtest.Home(t, 17)
	build := t.TempDir()
	cmd := exec.Command("bash", filepath.Join(wl, "build.sh"), build)
	cmd.Env = append(os.Environ(), "JAVA_HOME="+home)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build.sh: %v\n%s", err, out)
	}
	dir := t.TempDir()
	got := make(chan string, 4)
	w, err := New(Options{Dir: dir, Poll: 100 * time.Millisecond, Settle: 500 * time.Millisecond,
		Handle: func(ctx context.Context, d Dump, g *graph.Graph) error { got <- biggestClass(t, g); return nil }})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go w.Run(ctx)
	java := exec.Command(filepath.Join(home, "bin", "java"), "-Xmx64m", "-XX:+HeapDumpOnOutOfMemoryError",
		"-XX:HeapDumpPath="+dir, "-cp", filepath.Join(build, "workloads.jar"), "corpus.Oom", "mode=leak")
	out, err := java.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "OOM-CAUGHT") {
		t.Fatalf("corpus.Oom: %v\n%s", err, out)
	}
	select {
	case c := <-got:
		if c != "byte[]" {
			t.Errorf("biggest class %q, want byte[]", c)
		}
	case <-time.After(time.Minute):
		t.Fatal("the OOM dump was not converted within a minute")
	}
}

// TestWatchDeleteGzipCopy: a gzip dump copied into a subdirectory (by a
// tool, not a JVM) is converted whole — its instance total is the
// oracle's — and, with Delete, removed afterwards.
func TestWatchDeleteGzipCopy(t *testing.T) {
	src := filepath.Join("..", "..", "testdata", "jdk25-zoo-live.hprof.gz")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	// A node's per-pod directories: DIR/<pod>/<dump>.
	os.MkdirAll(filepath.Join(dir, "pod1"), 0o755)
	p := filepath.Join(dir, "pod1", "copied.hprof.gz")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var total, classDumps int64
	calls := 0
	w, err := New(Options{Dir: dir, Settle: 10 * time.Millisecond, Delete: true,
		Handle: func(ctx context.Context, d Dump, g *graph.Graph) error {
			calls++
			classDumps = g.Source.Records["CLASS DUMP"]
			for _, v := range g.Views {
				if v.Name == "heap" {
					for _, s := range v.Samples {
						total += s.Values[0]
					}
				}
			}
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	w.Scan(context.Background())
	time.Sleep(30 * time.Millisecond)
	w.Scan(context.Background())
	if calls != 1 {
		t.Fatalf("%d conversions, want 1", calls)
	}
	// summary.json of the oracle: instances_sum_of_histogram, which
	// leaves out class objects; the heap view counts them as the JVM
	// does (one java.lang.Class per CLASS DUMP, the file's own count).
	if total != 78754+classDumps {
		t.Errorf("%d instances, the oracle counts 78754 and the file has %d CLASS DUMPs", total, classDumps)
	}
	if _, err := os.Stat(p); err == nil {
		t.Error("the dump was not deleted")
	}
}
