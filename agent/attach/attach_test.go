package attach

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestResolveNSpid: the PID inside the process's namespace is the last
// NSpid field; the effective uid and gid are the second fields.
func TestResolveNSpid(t *testing.T) {
	proc := t.TempDir()
	os.MkdirAll(filepath.Join(proc, "4242"), 0o755)
	status := "Name:\tjava\nUid:\t1000\t1001\t1001\t1001\nGid:\t2000\t2001\t2001\t2001\nNSpid:\t4242\t17\t1\n"
	os.WriteFile(filepath.Join(proc, "4242", "status"), []byte(status), 0o644)
	tg, err := resolveIn(proc, 4242)
	if err != nil {
		t.Fatal(err)
	}
	if tg.NSPID != 1 || tg.UID != 1001 || tg.GID != 2001 || tg.Comm != "java" {
		t.Errorf("%+v", tg)
	}
	if tg.socketPath() != filepath.Join(proc, "4242", "root", "tmp", ".java_pid1") {
		t.Errorf("socket %s", tg.socketPath())
	}
	if _, err := resolveIn(proc, 4243); !errors.Is(err, ErrNoProcess) {
		t.Errorf("missing: %v", err)
	}
	os.MkdirAll(filepath.Join(proc, "5"), 0o755)
	os.WriteFile(filepath.Join(proc, "5", "status"), []byte("Name:\tx\n"), 0o644)
	if _, err := resolveIn(proc, 5); !errors.Is(err, ErrProtocol) {
		t.Errorf("no Uid: %v", err)
	}
}

// TestCheckSocket: a socket others may use, or one that is not a socket,
// is not trusted, as in the JDK's own check.
func TestCheckSocket(t *testing.T) {
	dir := t.TempDir()
	tg := &Target{PID: 1, UID: os.Geteuid()}
	p := filepath.Join(dir, "s")
	l, err := net.Listen("unix", p)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	os.Chmod(p, 0o600)
	if ok, err := tg.checkSocket(p); !ok || err != nil {
		t.Errorf("own 0600 socket: %v %v", ok, err)
	}
	os.Chmod(p, 0o666)
	if _, err := tg.checkSocket(p); !errors.Is(err, ErrPermission) {
		t.Errorf("0666 socket: %v, want ErrPermission", err)
	}
	f := filepath.Join(dir, "f")
	os.WriteFile(f, nil, 0o600)
	if _, err := tg.checkSocket(f); !errors.Is(err, ErrProtocol) {
		t.Errorf("plain file: %v, want ErrProtocol", err)
	}
	if ok, err := tg.checkSocket(filepath.Join(dir, "none")); ok || err != nil {
		t.Errorf("missing: %v %v", ok, err)
	}
	if os.Geteuid() == 0 {
		os.Chmod(p, 0o600)
		os.Chown(p, 65534, 65534)
		if _, err := tg.checkSocket(p); !errors.Is(err, ErrPermission) {
			t.Errorf("socket of another user (not the JVM's): %v, want ErrPermission", err)
		}
		tg.UID = 65534
		if ok, err := tg.checkSocket(p); !ok || err != nil {
			t.Errorf("root, socket of the JVM's user: %v %v", ok, err)
		}
	}
}

// TestTriggerNoFollow: a link planted where the trigger file goes is not
// followed (it would let the JVM's user make root create a file).
func TestTriggerNoFollow(t *testing.T) {
	root := t.TempDir()
	cwd := filepath.Join(root, "cwd")
	os.MkdirAll(cwd, 0o755)
	os.MkdirAll(filepath.Join(root, "root", "tmp"), 0o755)
	victim := filepath.Join(root, "victim")
	os.Symlink(victim, filepath.Join(cwd, ".attach_pid7"))
	tg := &Target{PID: 1, NSPID: 7, Cwd: cwd, Root: filepath.Join(root, "root")}
	p, err := tg.createTrigger()
	if err != nil {
		t.Fatal(err)
	}
	if p != filepath.Join(root, "root", "tmp", ".attach_pid7") {
		t.Errorf("trigger at %s, want the JVM's /tmp (the cwd holds a link)", p)
	}
	if _, err := os.Lstat(victim); err == nil {
		t.Error("the link was followed")
	}
}

// TestStartNeedsQuitHandler: a process that does not catch SIGQUIT (a
// JVM still starting, here a sleep) is not signalled: the signal would
// kill it.
func TestStartNeedsQuitHandler(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	tg, err := Resolve(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Start(context.Background(), tg, Options{Timeout: 300 * time.Millisecond})
	if !errors.Is(err, ErrDisabled) {
		t.Fatalf("err = %v, want ErrDisabled", err)
	}
	if !tg.Alive() {
		t.Fatal("the process was killed")
	}
}

// TestClearStale: a socket nothing listens on (its JVM was killed) is
// removed, whoever owns it; a socket with a listener, or a file that is
// not a socket, is left for checkSocket to judge.
func TestClearStale(t *testing.T) {
	dir := t.TempDir()
	tg := &Target{PID: 1, UID: os.Geteuid()}
	stale := filepath.Join(dir, "stale")
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: stale, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	l.SetUnlinkOnClose(false)
	l.Close()
	if os.Geteuid() == 0 {
		os.Chown(stale, 65534, 65534) // another user's: checkSocket would refuse it
	}
	if err := tg.clearStale(context.Background(), stale); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the stale socket is still there (%v)", err)
	}
	live := filepath.Join(dir, "live")
	ll, err := net.Listen("unix", live)
	if err != nil {
		t.Fatal(err)
	}
	defer ll.Close()
	if err := tg.clearStale(context.Background(), live); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(live); err != nil {
		t.Errorf("the live socket was removed: %v", err)
	}
	plain := filepath.Join(dir, "plain")
	os.WriteFile(plain, nil, 0o600)
	if err := tg.clearStale(context.Background(), plain); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(plain); err != nil {
		t.Errorf("a plain file was removed: %v", err)
	}
}
