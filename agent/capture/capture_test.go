package capture

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hprof2pprof/hprof2pprof/agent/attach"
	"github.com/hprof2pprof/hprof2pprof/convert"
	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/internal/jvmtest"
)

// heapCounts sums the heap view's inuse_objects by class.
func heapCounts(t *testing.T, g *graph.Graph) map[string]int64 {
	t.Helper()
	for _, v := range g.Views {
		if v.Name != "heap" {
			continue
		}
		idx := -1
		for i, st := range v.SampleTypes {
			if st.Type == "inuse_objects" {
				idx = i
			}
		}
		if idx < 0 {
			t.Fatal("heap view without inuse_objects")
		}
		m := map[string]int64{}
		for _, s := range v.Samples {
			for _, l := range s.Labels {
				if l.Key == "class" {
					m[l.Str] += s.Values[idx]
				}
			}
		}
		return m
	}
	t.Fatal("no heap view")
	return nil
}

// histogram asks the JVM for its own class histogram with the JDK's jcmd
// (an independent program), or through attach when jcmd cannot reach it.
func histogram(t *testing.T, home string, pid int) map[string]int64 {
	t.Helper()
	out, err := exec.Command(filepath.Join(home, "bin", "jcmd"), fmt.Sprint(pid), "GC.class_histogram").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Total") {
		tg, err := attach.Resolve(pid)
		if err != nil {
			t.Fatal(err)
		}
		sock, err := attach.Start(context.Background(), tg, attach.Options{})
		if err != nil {
			t.Fatal(err)
		}
		r, err := attach.Jcmd(context.Background(), tg, sock, "GC.class_histogram")
		if err != nil {
			t.Fatal(err)
		}
		out = []byte(r.Output)
	}
	return jvmtest.Histogram(string(out))
}

// compare requires the workload's classes to match exactly and every
// other class of the JVM's histogram to match too, except java.lang.Class
// (a dump holds classes as CLASS DUMPs, not instances), lambdas, and the few
// objects JVM threads allocate between the two (at most 1% of classes).
func compare(t *testing.T, got, want map[string]int64, n int64) {
	t.Helper()
	for _, c := range []string{"LiveHeap$Item", "LiveHeap$Item[]"} {
		if got[c] != want[c] {
			t.Errorf("%s: capture %d, JVM histogram %d", c, got[c], want[c])
		}
	}
	if want["LiveHeap$Item"] != n || want["LiveHeap$Item[]"] != n/2 {
		t.Errorf("the JVM's histogram has %d Item and %d Item[], the workload made %d and %d", want["LiveHeap$Item"], want["LiveHeap$Item[]"], n, n/2)
	}
	var diff []string
	for c, w := range want {
		// Lambdas are hidden classes, which HotSpot's dumper writes no
		// CLASS DUMP for, so their instances are not counted (README).
		if c != "java.lang.Class" && !strings.Contains(c, "$$Lambda") && got[c] != w {
			diff = append(diff, fmt.Sprintf("%s: capture %d, JVM %d", c, got[c], w))
		}
	}
	sort.Strings(diff)
	if len(diff) > len(want)/100+2 {
		t.Errorf("%d of %d classes differ:\n%s", len(diff), len(want), strings.Join(diff, "\n"))
	} else if len(diff) > 0 {
		t.Logf("classes that changed between the dump and the histogram:\n%s", strings.Join(diff, "\n"))
	}
}

func TestCaptureMatchesClassHistogram(t *testing.T) {
	for _, major := range []int{17, 25} {
		t.Run(fmt.Sprintf("jdk%d", major), func(t *testing.T) {
			home := jvmtest.Home(t, major)
			const n = 20000
			began := time.Now()
			j := jvmtest.Start(t, jvmtest.Spec{Home: home, JVMArgs: []string{"-Xmx128m"}, Args: []string{"park", fmt.Sprint(n)}})
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			res, err := Capture(ctx, j.PID, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Graph.Damage != nil {
				t.Fatalf("partial capture: %s", res.Graph.Lost)
			}
			compare(t, heapCounts(t, res.Graph), histogram(t, home, j.PID), n)
			if res.JVM.MainClass != "LiveHeap" || !strings.HasPrefix(res.JVM.JavaVersion, fmt.Sprint(major)) {
				t.Errorf("described as %q, Java %q", res.JVM.MainClass, res.JVM.JavaVersion)
			}
			if res.Pause <= 0 || res.DumpBytes <= 0 {
				t.Errorf("pause %v, dump %d bytes: want both positive", res.Pause, res.DumpBytes)
			}
			if left := dumpsLeft(fmt.Sprintf("/proc/%d/root/tmp", j.PID), j.NSPID, began); len(left) > 0 {
				t.Errorf("dump not deleted: %v", left)
			}
		})
	}
}

// TestCaptureGzipKeep: a dump the JVM compresses converts the same, and
// --keep keeps a readable gzip file.
func TestCaptureGzipKeep(t *testing.T) {
	home := jvmtest.Home(t, 17)
	const n = 5000
	j := jvmtest.Start(t, jvmtest.Spec{Home: home, JVMArgs: []string{"-Xmx64m"}, Args: []string{"park", fmt.Sprint(n)}})
	keep := filepath.Join(t.TempDir(), "kept.hprof.gz")
	res, err := Capture(context.Background(), j.PID, Options{Gzip: 1, Keep: keep, All: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := heapCounts(t, res.Graph)["LiveHeap$Item"]; got != n {
		t.Errorf("Item: %d, want %d", got, n)
	}
	b, err := os.ReadFile(keep)
	if err != nil || len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Fatalf("kept file: %v, %d bytes, want gzip", err, len(b))
	}
}

// TestCaptureNotJVM: a process that is not a JVM is refused before any
// signal is sent (SIGQUIT would kill it).
func TestCaptureNotJVM(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	_, err := Capture(context.Background(), cmd.Process.Pid, Options{})
	if !errors.Is(err, attach.ErrNotJVM) {
		t.Fatalf("err = %v, want ErrNotJVM", err)
	}
	if !strings.Contains(err.Error(), "sleep") {
		t.Errorf("message does not name the process: %v", err)
	}
	if _, err := os.Stat(fmt.Sprintf("/proc/%d", cmd.Process.Pid)); err != nil {
		t.Errorf("the process did not survive: %v", err)
	}
	if _, err := Capture(context.Background(), 1<<30, Options{}); !errors.Is(err, attach.ErrNoProcess) {
		t.Errorf("missing pid: err = %v, want ErrNoProcess", err)
	}
}

// TestCaptureAttachDisabled: -XX:+DisableAttachMechanism is read from the
// JVM's performance data and refused without a signal.
func TestCaptureAttachDisabled(t *testing.T) {
	home := jvmtest.Home(t, 17)
	j := jvmtest.Start(t, jvmtest.Spec{Home: home, JVMArgs: []string{"-Xmx32m", "-XX:+DisableAttachMechanism"}, Args: []string{"park", "10"}})
	_, err := Capture(context.Background(), j.PID, Options{AttachTimeout: 3 * time.Second})
	if !errors.Is(err, attach.ErrDisabled) {
		t.Fatalf("err = %v, want ErrDisabled", err)
	}
}

// TestCaptureDiskSpace: a dump that cannot fit is refused before it is
// asked for.
func TestCaptureDiskSpace(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount a small tmpfs")
	}
	home := jvmtest.Home(t, 17)
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", dir).Run() })
	j := jvmtest.Start(t, jvmtest.Spec{Home: home, JVMArgs: []string{"-Xmx64m"}, Args: []string{"park", "20000"}})
	_, err := Capture(context.Background(), j.PID, Options{Dir: dir})
	if !errors.Is(err, ErrDiskSpace) {
		t.Fatalf("err = %v, want ErrDiskSpace", err)
	}
	t.Log(err)
}

// TestCaptureThreadsView: views that read the dump twice (threads) wait
// for the finished file; the thread names are those jcmd Thread.print
// lists.
func TestCaptureThreadsView(t *testing.T) {
	home := jvmtest.Home(t, 17)
	j := jvmtest.Start(t, jvmtest.Spec{Home: home, JVMArgs: []string{"-Xmx64m"}, Args: []string{"park", "100"}})
	res, err := Capture(context.Background(), j.PID, Options{Convert: convert.Options{Views: []string{"heap", "threads"}}})
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, th := range res.Graph.Threads {
		names[th.Name] = true
	}
	out, err := exec.Command(filepath.Join(home, "bin", "jcmd"), fmt.Sprint(j.PID), "Thread.print").CombinedOutput()
	if err != nil {
		t.Fatalf("jcmd Thread.print: %v\n%s", err, out)
	}
	for _, want := range []string{"main", "Finalizer", "Reference Handler", "Signal Dispatcher", "Common-Cleaner"} {
		if !strings.Contains(string(out), `"`+want+`"`) {
			t.Fatalf("jcmd does not list %q:\n%s", want, out)
		}
		if !names[want] {
			t.Errorf("thread %q missing from the capture (it has %v)", want, names)
		}
	}
}

// TestCaptureReducedSignals: a JVM run with -Xrs does not catch SIGQUIT
// (the signal would kill it); HotSpot then starts its attach listener at
// startup, and the capture uses it without a signal.
func TestCaptureReducedSignals(t *testing.T) {
	home := jvmtest.Home(t, 17)
	j := jvmtest.Start(t, jvmtest.Spec{Home: home, JVMArgs: []string{"-Xmx32m", "-Xrs"}, Args: []string{"park", "10"}})
	res, err := Capture(context.Background(), j.PID, Options{AttachTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if got := heapCounts(t, res.Graph)["LiveHeap$Item"]; got != 10 {
		t.Errorf("Item: %d, want 10", got)
	}
	tg, err := attach.Resolve(j.PID)
	if err != nil || !tg.Alive() {
		t.Fatalf("the JVM did not survive: %v", err)
	}
}

// dumpsLeft lists the capture's dump files for JVM nspid in dir named
// (by their time) since began: a file of an earlier run's process of the
// same PID (one killed mid-test) is not this test's.
func dumpsLeft(dir string, nspid int, began time.Time) []string {
	m, _ := filepath.Glob(filepath.Join(dir, fmt.Sprintf("hprof2pprof-%d-*", nspid)))
	var left []string
	for _, p := range m {
		stamp, _, _ := strings.Cut(strings.TrimPrefix(filepath.Base(p), fmt.Sprintf("hprof2pprof-%d-", nspid)), ".")
		if ns, err := strconv.ParseInt(stamp, 10, 64); err != nil || ns >= began.UnixNano() {
			left = append(left, p)
		}
	}
	return left
}
