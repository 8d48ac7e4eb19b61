package convert

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/retained"
	"github.com/hprof2pprof/hprof2pprof/internal/sysmem"
	"github.com/hprof2pprof/hprof2pprof/pprofout"
)

// cgroupChildEnv makes the test binary a child that writes one dump's
// retained view and exits: "INPUT|OUTPUT|SPILLDIR|BUDGET" (BUDGET:
// Options.RetainedMemory).
const cgroupChildEnv = "HPROF2PPROF_TEST_CGROUP_CHILD"

// TestMain runs the child when asked to, else the tests.
func TestMain(m *testing.M) {
	if arg := os.Getenv(cgroupChildEnv); arg != "" {
		os.Exit(cgroupChild(arg))
	}
	os.Exit(m.Run())
}

func cgroupChild(arg string) int {
	a := strings.Split(arg, "|")
	budget, err := strconv.ParseInt(a[len(a)-1], 10, 64)
	if len(a) != 4 || err != nil {
		fmt.Fprintln(os.Stderr, "bad child arguments")
		return 2
	}
	// The small fixture's graph fits a quarter of any limit a Go program
	// runs in, so spilling is forced here (budget -1) or a budget below
	// the graph is given (the limit then decides what stays in memory);
	// the limit the view would take its budget from is reported.
	fmt.Fprintf(os.Stderr, "cgroup limit %d\n", sysmem.CgroupLimit())
	g, err := ConvertFile(context.Background(), a[0], Options{Views: []string{graph.ViewRetained}, SpillDir: a[2], RetainedMemory: budget})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Fprintln(os.Stderr, strings.Join(g.Source.Notes, "\n"))
	f, err := os.Create(a[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := pprofout.Write(f, g, graph.ViewRetained); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := f.Close(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// memoryCgroup makes a child memory cgroup limited to limit bytes (no
// swap) and returns its directory, or "" and why it cannot.
func memoryCgroup(t *testing.T, limit int64) (string, string) {
	if runtime.GOOS != "linux" {
		return "", "memory cgroups are linux only"
	}
	if os.Geteuid() != 0 {
		return "", "making a cgroup needs root"
	}
	name := fmt.Sprintf("hprof2pprof-test-%d", os.Getpid())
	var dir, file, swap string
	switch {
	case exists("/sys/fs/cgroup/memory/memory.limit_in_bytes"): // v1
		dir, file, swap = filepath.Join("/sys/fs/cgroup/memory", name), "memory.limit_in_bytes", "memory.memsw.limit_in_bytes"
	case exists("/sys/fs/cgroup/cgroup.controllers"): // v2
		if b, _ := os.ReadFile("/sys/fs/cgroup/cgroup.subtree_control"); !strings.Contains(string(b), "memory") {
			return "", "the cgroup v2 root does not delegate the memory controller"
		}
		dir, file, swap = filepath.Join("/sys/fs/cgroup", name), "memory.max", "memory.swap.max"
	default:
		return "", "no writable memory cgroup"
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		return "", "cannot make a cgroup: " + err.Error()
	}
	t.Cleanup(func() { os.Remove(dir) })
	if err := os.WriteFile(filepath.Join(dir, file), []byte(strconv.FormatInt(limit, 10)), 0o644); err != nil {
		return "", "cannot set the memory limit: " + err.Error()
	}
	v := strconv.FormatInt(limit, 10)
	if strings.HasSuffix(swap, "swap.max") {
		v = "0"
	}
	_ = os.WriteFile(filepath.Join(dir, swap), []byte(v), 0o644) // absent without swap accounting
	return dir, ""
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

// TestRetainedUnderMemoryCgroup runs the retained view in a child process
// held by the kernel to a tight memory limit, with the graph in mapped
// files (dirty pages the kernel must be able to write back and reclaim
// within the limit), all of it or all but the arrays used at random that
// the limit leaves room for; the child must find its cgroup's limit, and
// its profile must equal the unconstrained one byte for byte. The big-dump
// figures (bench-1g in 512 MiB) are in docs/benchmarks.md.
func TestRetainedUnderMemoryCgroup(t *testing.T) {
	if !retained.CanSpill {
		t.Skip("this platform keeps the graph on the heap")
	}
	if raceEnabled {
		t.Skip("the race detector's memory does not fit the tight limit")
	}
	const limit = 32 << 20
	cg, why := memoryCgroup(t, limit)
	if cg == "" {
		t.Skip("no memory cgroup for the test: " + why)
	}
	path := filepath.Join("..", "testdata", "jdk17-zoo-live.hprof")
	g, err := ConvertFile(context.Background(), path, Options{Views: []string{graph.ViewRetained}})
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := pprofout.Write(&want, g, graph.ViewRetained); err != nil {
		t.Fatal(err)
	}

	// Forced, every array is a file; over a budget of 1 MiB, the arrays
	// used at random stay in memory, as the limit leaves room for them.
	for _, budget := range []int64{-1, 1 << 20} {
		dir := t.TempDir()
		out := filepath.Join(dir, "retained.pb.gz")
		cmd := exec.Command("/bin/sh", "-c", `echo $$ > "$1/cgroup.procs" && shift && exec "$@"`, "sh", cg, os.Args[0])
		cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s|%s|%s|%d", cgroupChildEnv, path, out, dir, budget), "GOMAXPROCS=2")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("child in a %d MiB cgroup, budget %d: %v (exit 137 is the OOM killer)\n%s", limit>>20, budget, err, stderr.String())
		}
		if !strings.Contains(stderr.String(), fmt.Sprintf("cgroup limit %d\n", limit)) {
			t.Errorf("the child did not find its cgroup's limit of %d bytes:\n%s", limit, stderr.String())
		}
		if !strings.Contains(stderr.String(), "spilled to ") {
			t.Errorf("budget %d: the graph did not spill under the cgroup's limit; notes:\n%s", budget, stderr.String())
		}
		if hot := strings.Contains(stderr.String(), "used at random in memory"); hot != (budget > 0) {
			t.Errorf("budget %d: arrays used at random in memory: %v; notes:\n%s", budget, hot, stderr.String())
		}
		got, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want.Bytes()) {
			t.Errorf("budget %d: the retained view made under the memory limit differs from the unconstrained one", budget)
		}
	}
}
