package capture

import (
	"context"
	"fmt"
	"net"
	"os"
	"testing"

	"github.com/hprof2pprof/hprof2pprof/internal/jvmtest"
)

// TestCaptureStaleSocket: a JVM killed with SIGKILL leaves its attach
// socket in /tmp, and a later JVM of the same PID finds it there. The
// capture must not trust it (connection refused) but start the new
// JVM's listener; and a second capture, through the live socket, works
// too. As root, the stale socket is root's and the JVM runs as nobody:
// the JVM could not rename its socket over root's file itself.
func TestCaptureStaleSocket(t *testing.T) {
	for _, major := range []int{17, 25} {
		t.Run(fmt.Sprintf("jdk%d", major), func(t *testing.T) { testCaptureStaleSocket(t, jvmtest.Home(t, major), nil, -1) })
	}
	t.Run("root and nobody", func(t *testing.T) {
		needRoot(t)
		testCaptureStaleSocket(t, jvmtest.Home(t, 17), []string{"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"}, 0)
	})
}

func testCaptureStaleSocket(t *testing.T, home string, wrap []string, owner int) {
	const n = 1500
	j := jvmtest.Start(t, jvmtest.Spec{Home: home, Wrap: wrap, Dir: "/", JVMArgs: []string{"-Xmx64m"}, Args: []string{"park", fmt.Sprint(n)}})
	sock := fmt.Sprintf("/tmp/.java_pid%d", j.PID)
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	l.SetUnlinkOnClose(false)
	l.Close()
	os.Chmod(sock, 0o600)
	if owner >= 0 {
		os.Chown(sock, owner, owner)
	}
	for round := 1; round <= 2; round++ {
		res, err := Capture(context.Background(), j.PID, Options{})
		if err != nil {
			t.Fatalf("capture %d: %v", round, err)
		}
		if got := heapCounts(t, res.Graph)["LiveHeap$Item"]; got != n {
			t.Errorf("capture %d: Item %d, want %d", round, got, n)
		}
	}
}
