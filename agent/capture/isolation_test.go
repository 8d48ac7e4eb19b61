package capture

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/hprof2pprof/hprof2pprof/agent/attach"
	"github.com/hprof2pprof/hprof2pprof/agent/jvm"
	"github.com/hprof2pprof/hprof2pprof/internal/jvmtest"
)

func needRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (CI runs as root): starts a JVM in new namespaces or as another user")
	}
}

// TestCaptureContainer: a JVM in its own PID and mount namespaces with a
// private /tmp (a container) is found through /proc/PID/root under its
// own PID there, and its capture matches its histogram.
func TestCaptureContainer(t *testing.T) {
	needRoot(t)
	for _, major := range []int{17, 25} {
		t.Run(fmt.Sprintf("jdk%d", major), func(t *testing.T) { testCaptureContainer(t, jvmtest.Home(t, major)) })
	}
}

func testCaptureContainer(t *testing.T, home string) {
	const n = 3000
	wrap := []string{"unshare", "--pid", "--mount", "--fork", "--mount-proc", "sh", "-c", `mount -t tmpfs tmpfs /tmp && exec "$0" "$@"`}
	j := jvmtest.Start(t, jvmtest.Spec{Home: home, Wrap: wrap, JVMArgs: []string{"-Xmx64m"}, Args: []string{"park", fmt.Sprint(n)}})
	tg, err := attach.Resolve(j.PID)
	if err != nil {
		t.Fatal(err)
	}
	if tg.NSPID == j.PID || tg.NSPID != j.NSPID {
		t.Fatalf("pid %d: NSpid %d, the JVM says it is %d: not in its own namespace", j.PID, tg.NSPID, j.NSPID)
	}
	if fi, err := os.Stat(fmt.Sprintf("/proc/%d/root/tmp", j.PID)); err != nil || sameFile(fi, "/tmp") {
		t.Fatalf("the JVM's /tmp is the host's (%v)", err)
	}
	list, err := jvm.List()
	if err != nil {
		t.Fatal(err)
	}
	listed := false
	for _, info := range list {
		if info.PID == j.PID {
			listed = info.NSPID == j.NSPID && info.MainClass == "LiveHeap" && info.HeapMax == 64<<20
			if !listed {
				t.Errorf("listed as %+v", info)
			}
		}
	}
	if !listed {
		t.Errorf("the container's JVM (pid %d) is not listed", j.PID)
	}
	res, err := Capture(context.Background(), j.PID, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := heapCounts(t, res.Graph)["LiveHeap$Item"]; got != n {
		t.Errorf("Item: %d, want %d", got, n)
	}
	if res.JVM.MainClass != "LiveHeap" || res.JVM.NSPID != j.NSPID {
		t.Errorf("described as %q nspid %d", res.JVM.MainClass, res.JVM.NSPID)
	}
}

func sameFile(fi os.FileInfo, p string) bool {
	fj, err := os.Stat(p)
	return err == nil && os.SameFile(fi, fj)
}

// TestCaptureOtherUser: root captures a JVM running as nobody (a
// sidecar's usual case); the JVM accepts root's connection.
func TestCaptureOtherUser(t *testing.T) {
	needRoot(t)
	home := jvmtest.Home(t, 17)
	const n = 2000
	wrap := []string{"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"}
	j := jvmtest.Start(t, jvmtest.Spec{Home: home, Wrap: wrap, Dir: "/", JVMArgs: []string{"-Xmx64m"}, Args: []string{"park", fmt.Sprint(n)}})
	tg, err := attach.Resolve(j.PID)
	if err != nil {
		t.Fatal(err)
	}
	if tg.UID != 65534 {
		t.Fatalf("the JVM runs as uid %d, want nobody", tg.UID)
	}
	res, err := Capture(context.Background(), j.PID, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := heapCounts(t, res.Graph)["LiveHeap$Item"]; got != n {
		t.Errorf("Item: %d, want %d", got, n)
	}
	if res.JVM.User != "nobody" {
		t.Errorf("user %q, want nobody", res.JVM.User)
	}
}

// TestCaptureJVMKilledMidDump: the JVM dies while it writes the dump;
// what was written is converted (a partial graph) and the error says the
// JVM exited.
func TestCaptureJVMKilledMidDump(t *testing.T) {
	home := jvmtest.Home(t, 17)
	began := time.Now()
	j := jvmtest.Start(t, jvmtest.Spec{Home: home, JVMArgs: []string{"-Xmx600m"}, Args: []string{"park", "2000000"}})
	o := Options{}
	killed := make(chan struct{})
	o.started = func(path string) {
		go func() {
			defer close(killed)
			deadline := time.Now().Add(time.Minute)
			for time.Now().Before(deadline) {
				if fi, err := os.Stat(path); err == nil && fi.Size() > 4<<20 {
					syscall.Kill(j.PID, syscall.SIGKILL)
					return
				}
				time.Sleep(5 * time.Millisecond)
			}
		}()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := Capture(ctx, j.PID, o)
	<-killed
	if !errors.Is(err, attach.ErrJVMGone) {
		t.Fatalf("err = %v, want ErrJVMGone", err)
	}
	if res == nil || res.Graph == nil {
		t.Fatal("no partial graph")
	}
	if res.Graph.Damage == nil {
		t.Fatal("the partial graph does not say it is damaged")
	}
	if left := dumpsLeft("/tmp", j.NSPID, began); len(left) > 0 {
		t.Errorf("the dead JVM's dump was not removed: %v", left)
	}
	if res.Graph.Source.Bytes < 4<<20 {
		t.Errorf("read %d bytes of the dump (lost: %s)", res.Graph.Source.Bytes, res.Graph.Lost)
	}
}
