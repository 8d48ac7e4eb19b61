// Package attach speaks HotSpot's attach protocol on Linux, natively: no
// JDK tools are needed beside the target JVM, whose image is often a
// bare JRE.
//
// The JVM starts its attach listener on demand. Like the JDK's own
// tools, Start creates the trigger file .attach_pid<nspid> in the JVM's
// working directory (or its /tmp), sends SIGQUIT, and waits for the
// listener's socket .java_pid<nspid> in the JVM's /tmp. The JVM's files
// are reached through /proc/PID/cwd and /proc/PID/root, so a JVM in a
// container (its own PID and mount namespaces, a private /tmp) is
// reached from the host; <nspid> is the JVM's PID inside its namespace
// (the last NSpid of /proc/PID/status).
//
// A request is "1\0<command>\0<arg0>\0<arg1>\0<arg2>\0"; the reply is
// the result code in ASCII on the first line, then the command's output,
// then the JVM closes the connection.
//
// Who may attach: the JVM accepts a connection only from its own
// effective user and group or from root (it checks the peer's
// credentials), and starts its listener only for a trigger file owned by
// its user or root. As the JDK's tools do, we trust a socket only when
// it is owned by us or (when we are root) by the JVM's user, and no
// other user can read or write it.
package attach

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Errors, to be tested with errors.Is. Each is wrapped with the PID and
// what was seen.
var (
	ErrNoProcess  = errors.New("attach: no such process")
	ErrNotJVM     = errors.New("attach: not a HotSpot JVM")
	ErrDisabled   = errors.New("attach: the JVM's attach mechanism is disabled")
	ErrPermission = errors.New("attach: permission denied")
	ErrTimeout    = errors.New("attach: timed out")
	ErrJVMGone    = errors.New("attach: the JVM exited")
	ErrProtocol   = errors.New("attach: bad reply")
)

// Target is one process as seen from here.
type Target struct {
	PID   int    // in our PID namespace
	NSPID int    // in the process's own PID namespace
	UID   int    // effective user
	GID   int    // effective group
	Root  string // the process's root directory, /proc/PID/root
	Cwd   string // its working directory, /proc/PID/cwd
	Comm  string // its command name
}

// Resolve reads /proc/PID/status.
func Resolve(pid int) (*Target, error) {
	return resolveIn("/proc", pid)
}

func resolveIn(proc string, pid int) (*Target, error) {
	if pid <= 0 {
		return nil, fmt.Errorf("%w: pid %d", ErrNoProcess, pid)
	}
	dir := filepath.Join(proc, strconv.Itoa(pid))
	b, err := os.ReadFile(filepath.Join(dir, "status"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: pid %d", ErrNoProcess, pid)
	}
	if err != nil {
		return nil, fmt.Errorf("pid %d: %w", pid, err)
	}
	t := &Target{PID: pid, NSPID: pid, UID: -1, GID: -1, Root: filepath.Join(dir, "root"), Cwd: filepath.Join(dir, "cwd")}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, _ := strings.Cut(line, ":")
		f := strings.Fields(v)
		switch {
		case k == "Name" && len(f) > 0:
			t.Comm = f[0]
		case k == "NSpid" && len(f) > 0:
			if n, err := strconv.Atoi(f[len(f)-1]); err == nil && n > 0 {
				t.NSPID = n
			}
		case k == "Uid" && len(f) > 1:
			t.UID, _ = strconv.Atoi(f[1])
		case k == "Gid" && len(f) > 1:
			t.GID, _ = strconv.Atoi(f[1])
		}
	}
	if t.UID < 0 || t.GID < 0 {
		return nil, fmt.Errorf("%w: pid %d: no Uid/Gid in its status", ErrProtocol, pid)
	}
	return t, nil
}

// Path is p (a path as the process sees it) as seen from here.
func (t *Target) Path(p string) string { return filepath.Join(t.Root, p) }

// socketPath is where the listener's socket is: HotSpot on Linux always
// uses /tmp, whatever java.io.tmpdir says.
func (t *Target) socketPath() string { return t.Path(fmt.Sprintf("/tmp/.java_pid%d", t.NSPID)) }

// Alive reports whether the process still exists (and is not a zombie).
func (t *Target) Alive() bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", t.PID))
	if err != nil {
		return false
	}
	// "pid (comm) S ...": the state follows the last ')'.
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z' && s[i+2] != 'X'
	}
	return true
}

// IsHotSpot reports whether the process has HotSpot's libjvm mapped.
// It is checked before anything is sent: SIGQUIT kills most programs
// that are not JVMs.
func (t *Target) IsHotSpot() (bool, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/maps", t.PID))
	if err != nil {
		if errors.Is(err, fs.ErrPermission) {
			return false, fmt.Errorf("%w: pid %d: cannot read its memory map (run as its user or root)", ErrPermission, t.PID)
		}
		if errors.Is(err, fs.ErrNotExist) {
			return false, fmt.Errorf("%w: pid %d", ErrNoProcess, t.PID)
		}
		return false, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if strings.HasSuffix(sc.Text(), "/libjvm.so") {
			return true, nil
		}
	}
	return false, sc.Err()
}

// CheckAccess says whether we may attach at all: the JVM accepts only
// its own user or root.
func (t *Target) CheckAccess() error {
	if me := os.Geteuid(); me != 0 && me != t.UID {
		return fmt.Errorf("%w: pid %d runs as uid %d and we as uid %d: the JVM accepts only its own user or root", ErrPermission, t.PID, t.UID, me)
	}
	return nil
}

// Options tune Start.
type Options struct {
	// Timeout bounds the wait for the listener; default 10s.
	Timeout time.Duration
}

// Start makes sure the JVM's attach listener runs and returns its
// socket's path. The caller must have checked that the target is a
// HotSpot JVM with attach enabled (IsHotSpot, the performance data's
// capabilities): the trigger is SIGQUIT.
func Start(ctx context.Context, t *Target, o Options) (string, error) {
	if err := t.CheckAccess(); err != nil {
		return "", err
	}
	sock := t.socketPath()
	if err := t.RemoveStaleSocket(ctx); err != nil {
		return "", err
	}
	if ok, err := t.checkSocket(sock); ok || err != nil {
		return sock, err
	}
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	deadline := time.NewTimer(o.Timeout)
	defer deadline.Stop()
	if err := t.waitCatchesQuit(ctx, deadline.C); err != nil {
		return "", err
	}
	trigger, err := t.createTrigger()
	if err != nil {
		return "", err
	}
	defer os.Remove(trigger)
	if err := syscall.Kill(t.PID, syscall.SIGQUIT); err != nil {
		if errors.Is(err, syscall.ESRCH) {
			return "", fmt.Errorf("%w: pid %d", ErrJVMGone, t.PID)
		}
		return "", fmt.Errorf("%w: pid %d: signal: %v", ErrPermission, t.PID, err)
	}
	wait := 20 * time.Millisecond
	for {
		if ok, err := t.checkSocket(sock); ok || err != nil {
			return sock, err
		}
		if !t.Alive() {
			return "", fmt.Errorf("%w: pid %d, while starting its attach listener", ErrJVMGone, t.PID)
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-deadline.C:
			return "", fmt.Errorf("%w: pid %d did not open %s within %v after SIGQUIT (attach disabled with -XX:+DisableAttachMechanism, or the JVM is hung or still starting)",
				ErrTimeout, t.PID, sock, o.Timeout)
		case <-time.After(wait):
		}
		wait = min(2*wait, 250*time.Millisecond)
	}
}

// waitCatchesQuit waits until the process has a SIGQUIT handler (SigCgt
// in /proc/PID/status), as the JDK's own tools check: a JVM still
// starting, or run with -Xrs, would be killed by the signal.
func (t *Target) waitCatchesQuit(ctx context.Context, deadline <-chan time.Time) error {
	for {
		caught, err := t.catchesQuit()
		if err != nil || caught {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-deadline:
			return fmt.Errorf("%w: pid %d does not catch SIGQUIT (started with -Xrs, or still starting), so its attach listener cannot be started: the signal would kill it", ErrDisabled, t.PID)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func (t *Target) catchesQuit() (bool, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", t.PID))
	if err != nil {
		return false, fmt.Errorf("%w: pid %d", ErrJVMGone, t.PID)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "SigCgt:"); ok {
			mask, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			if err != nil {
				return false, fmt.Errorf("%w: pid %d: SigCgt %q", ErrProtocol, t.PID, v)
			}
			return mask&(1<<(uint(syscall.SIGQUIT)-1)) != 0, nil
		}
	}
	return false, fmt.Errorf("%w: pid %d: no SigCgt in its status", ErrProtocol, t.PID)
}

// createTrigger writes .attach_pid<nspid> in the JVM's working
// directory, else in its /tmp, as the JDK's tools do. Those directories
// belong to the JVM's user: a name planted there (a symbolic link to a
// file of root's) is never followed; a plain file already there will do.
func (t *Target) createTrigger() (string, error) {
	name := fmt.Sprintf(".attach_pid%d", t.NSPID)
	var firstErr error
	for _, dir := range []string{t.Cwd, t.Path("/tmp")} {
		p := filepath.Join(dir, name)
		f, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY|syscall.O_NOFOLLOW, 0o600)
		if err == nil {
			f.Close()
			return p, nil
		}
		if fi, lerr := os.Lstat(p); errors.Is(err, fs.ErrExist) && lerr == nil && fi.Mode().IsRegular() {
			return p, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	if errors.Is(firstErr, fs.ErrPermission) {
		return "", fmt.Errorf("%w: pid %d: cannot create the attach trigger file: %v", ErrPermission, t.PID, firstErr)
	}
	if errors.Is(firstErr, fs.ErrNotExist) && !t.Alive() {
		return "", fmt.Errorf("%w: pid %d", ErrJVMGone, t.PID)
	}
	return "", fmt.Errorf("pid %d: cannot create the attach trigger file: %w", t.PID, firstErr)
}

// RemoveStaleSocket removes the JVM's attach socket when nothing listens
// on it (see clearStale); Start does it first.
func (t *Target) RemoveStaleSocket(ctx context.Context) error {
	return t.clearStale(ctx, t.socketPath())
}

// clearStale removes a socket nothing listens on. A JVM killed
// (SIGKILL, a crash) cannot remove its socket, and a later process of
// the same PID finds it in /tmp: trusting it would fail with "connection
// refused", and when it belongs to another user the new JVM cannot even
// rename its own socket over it. A refused connection is exact: HotSpot
// gives the socket its name only once it listens. A socket with a
// listener is left to checkSocket, which decides whether to trust it;
// connecting sends nothing, and HotSpot drops a connection that closes
// before a request.
func (t *Target) clearStale(ctx context.Context, p string) error {
	fi, err := os.Lstat(p)
	if err != nil || fi.Mode()&fs.ModeSocket == 0 {
		return nil // missing, or checkSocket explains
	}
	d := net.Dialer{Timeout: 2 * time.Second}
	c, err := d.DialContext(ctx, "unix", p)
	if err == nil {
		c.Close()
		return nil
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		return nil // no access, say; checkSocket and Execute explain
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w: pid %d: %s was left by an earlier process of that PID (nothing listens on it) and cannot be removed: %v; remove it, then attach again",
			ErrPermission, t.PID, p, err)
	}
	return nil
}

// checkSocket reports whether the listener's socket exists and may be
// trusted: a socket, owned by us or by the JVM's user when we are root,
// with no access for group or others.
func (t *Target) checkSocket(p string) (bool, error) {
	fi, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		if errors.Is(err, fs.ErrPermission) {
			return false, fmt.Errorf("%w: pid %d: %v", ErrPermission, t.PID, err)
		}
		return false, err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || fi.Mode()&fs.ModeSocket == 0 {
		return false, fmt.Errorf("%w: %s is not a socket", ErrProtocol, p)
	}
	me := os.Geteuid()
	owner := int(st.Uid)
	if owner != me && !(me == 0 && owner == t.UID) {
		return false, fmt.Errorf("%w: %s is owned by uid %d, not by uid %d (us) or the JVM's uid %d: not trusted", ErrPermission, p, owner, me, t.UID)
	}
	if fi.Mode().Perm()&0o066 != 0 {
		return false, fmt.Errorf("%w: %s has mode %04o: others may use it, not trusted", ErrPermission, p, fi.Mode().Perm())
	}
	return true, nil
}

// Reply is a command's answer.
type Reply struct {
	Code   int    // the JVM's result code: 0 when the command ran
	Output string // what the command printed
}

// Execute sends one command ("jcmd", "properties", …) with up to three
// arguments and reads the whole reply; it returns when the JVM closes
// the connection, so a long command (a heap dump) holds it until done.
// Cancelling ctx closes the connection.
func Execute(ctx context.Context, t *Target, sock, cmd string, args ...string) (*Reply, error) {
	if len(args) > 3 {
		return nil, fmt.Errorf("attach: %d arguments, the protocol takes 3", len(args))
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", sock)
	if err != nil {
		if errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EPERM) {
			return nil, fmt.Errorf("%w: pid %d: %v", ErrPermission, t.PID, err)
		}
		if !t.Alive() {
			return nil, fmt.Errorf("%w: pid %d", ErrJVMGone, t.PID)
		}
		return nil, fmt.Errorf("pid %d: connect %s: %w", t.PID, sock, err)
	}
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	var req strings.Builder
	req.WriteString("1\x00" + cmd + "\x00")
	for i := 0; i < 3; i++ {
		if i < len(args) {
			req.WriteString(args[i])
		}
		req.WriteByte(0)
	}
	if _, err := io.WriteString(c, req.String()); err != nil {
		return nil, t.lost(ctx, err)
	}
	// The output of a jcmd is small; bound it anyway.
	b, err := io.ReadAll(io.LimitReader(c, 16<<20))
	if err != nil {
		return nil, t.lost(ctx, err)
	}
	line, rest, ok := strings.Cut(string(b), "\n")
	if !ok && len(b) == 0 {
		return nil, t.lost(ctx, io.ErrUnexpectedEOF)
	}
	code, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		return nil, fmt.Errorf("%w: pid %d: result code %q", ErrProtocol, t.PID, truncate(line, 40))
	}
	return &Reply{Code: code, Output: rest}, nil
}

// lost explains a connection that ended without a reply.
func (t *Target) lost(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return fmt.Errorf("%w: pid %d did not answer in time", ErrTimeout, t.PID)
		}
		return ctx.Err()
	}
	// The socket closes a moment before the process is gone.
	for i := 0; i < 20 && t.Alive(); i++ {
		time.Sleep(50 * time.Millisecond)
	}
	if !t.Alive() {
		return fmt.Errorf("%w: pid %d, before it answered", ErrJVMGone, t.PID)
	}
	return fmt.Errorf("%w: pid %d closed the connection without a result: %v", ErrProtocol, t.PID, err)
}

// Jcmd runs one diagnostic command line ("GC.class_histogram -all").
func Jcmd(ctx context.Context, t *Target, sock, line string) (*Reply, error) {
	return Execute(ctx, t, sock, "jcmd", line)
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
