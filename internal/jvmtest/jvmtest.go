// Package jvmtest starts real JVMs for tests: it finds installed JDKs,
// compiles the test workload (testdata/LiveHeap.java) and runs it, killing
// it when the test ends.
package jvmtest

import (
	"bufio"
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hprof2pprof/hprof2pprof/agent/attach"
)

// RequiredInCI is the JDK that scripts/setup-jdk.sh installs: under CI
// its absence fails a test instead of skipping it.
const RequiredInCI = 17

// Home finds an installed JDK of this major version (with javac), or
// skips the test saying so (fails, for RequiredInCI under CI).
func Home(t testing.TB, major int) string {
	t.Helper()
	var cands []string
	if j, err := exec.LookPath("javac"); err == nil {
		if r, err := filepath.EvalSymlinks(j); err == nil {
			cands = append(cands, filepath.Dir(filepath.Dir(r)))
		}
	}
	if jh := os.Getenv("JAVA_HOME"); jh != "" {
		cands = append(cands, jh)
	}
	m, _ := filepath.Glob("/usr/lib/jvm/*")
	cands = append(cands, m...)
	for _, h := range cands {
		if _, err := os.Stat(filepath.Join(h, "bin", "javac")); err != nil {
			continue
		}
		if Major(h) == major {
			return h
		}
	}
	msg := fmt.Sprintf("no JDK %d installed (looked at javac on PATH, JAVA_HOME, /usr/lib/jvm)", major)
	if major == RequiredInCI && os.Getenv("CI") == "true" {
		t.Fatal(msg + ": scripts/setup-jdk.sh installs it")
	}
	t.Skip(msg)
	return ""
}

// Major reads JAVA_VERSION from the JDK's release file.
func Major(home string) int {
	b, err := os.ReadFile(filepath.Join(home, "release"))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "JAVA_VERSION="); ok {
			v = strings.Trim(v, `"`)
			v = strings.TrimPrefix(v, "1.")
			n, _ := strconv.Atoi(strings.FieldsFunc(v, func(r rune) bool { return r == '.' || r == '-' || r == '+' })[0])
			return n
		}
	}
	return 0
}

var (
	buildMu sync.Mutex
	built   = map[string]string{}
)

// Classes compiles LiveHeap.java with this JDK into a directory every
// user can read, not under /tmp (a JVM in its own mount namespace gets a
// private /tmp there). The directory is named by a hash of the source and
// the JDK, so test binaries share it and reuse it across runs.
func Classes(t testing.TB, home string) string {
	t.Helper()
	buildMu.Lock()
	defer buildMu.Unlock()
	if d, ok := built[home]; ok {
		return d
	}
	_, file, _, _ := runtime.Caller(0)
	src := filepath.Join(filepath.Dir(file), "testdata", "LiveHeap.java")
	code, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	base := "/var/tmp"
	if _, err := os.Stat(base); err != nil {
		base = os.TempDir()
	}
	sum := sha256.Sum256(append(append(code, 0), home...))
	dir := filepath.Join(base, fmt.Sprintf("hprof2pprof-jvmtest-%x", sum[:8]))
	if _, err := os.Stat(filepath.Join(dir, "LiveHeap.class")); err == nil {
		built[home] = dir
		return dir
	}
	tmp, err := os.MkdirTemp(base, "hprof2pprof-jvmtest-build-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	os.Chmod(tmp, 0o755)
	out, err := exec.Command(filepath.Join(home, "bin", "javac"), "--release", "17", "-d", tmp, src).CombinedOutput()
	if err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	// Another test binary may have won the race: then use its copy.
	if err := os.Rename(tmp, dir); err != nil {
		if _, serr := os.Stat(filepath.Join(dir, "LiveHeap.class")); serr != nil {
			t.Fatal(err)
		}
	}
	built[home] = dir
	return dir
}

// JVM is a running workload.
type JVM struct {
	PID   int // as seen from here
	NSPID int // as printed by the JVM (its own namespace)
	Cmd   *exec.Cmd
	Out   *bufio.Reader
}

// Spec says how to start a JVM.
type Spec struct {
	Home    string
	JVMArgs []string // before the class name
	Args    []string // the workload's
	// Wrap runs the JVM under another command (unshare, setpriv); the
	// JVM's PID is then found as the child of the wrapper or itself.
	Wrap []string
	Dir  string   // working directory
	Env  []string // added to the environment
	// NoWait: do not wait for READY.
	NoWait bool
}

// Start runs LiveHeap and waits for READY (60 s at most).
func Start(t testing.TB, s Spec) *JVM {
	t.Helper()
	classes := Classes(t, s.Home)
	args := append([]string{}, s.Wrap...)
	args = append(args, filepath.Join(s.Home, "bin", "java"), "-cp", classes)
	args = append(args, s.JVMArgs...)
	args = append(args, "LiveHeap")
	args = append(args, s.Args...)
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = s.Dir
	if len(s.Env) > 0 {
		cmd.Env = append(os.Environ(), s.Env...)
	}
	cmd.Stderr = os.Stderr
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	j := &JVM{Cmd: cmd, Out: bufio.NewReader(pipe), PID: cmd.Process.Pid}
	t.Cleanup(func() { j.Kill() })
	if s.NoWait {
		return j
	}
	line, err := j.WaitLine(60*time.Second, "READY ")
	if err != nil {
		t.Fatal(err)
	}
	j.NSPID, _ = strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "READY ")))
	if len(s.Wrap) > 0 {
		j.PID = findJVM(t, cmd.Process.Pid)
	}
	// An attach socket nothing listens on was left by a killed process
	// of this PID (an earlier run's); tests that look for the JVM's
	// socket must not see it. (A JVM run with -Xrs has a live one.)
	if tg, err := attach.Resolve(j.PID); err == nil {
		tg.RemoveStaleSocket(context.Background())
	}
	return j
}

// WaitLine reads stdout until a line starting with prefix.
func (j *JVM) WaitLine(d time.Duration, prefix string) (string, error) {
	type res struct {
		line string
		err  error
	}
	ch := make(chan res, 1)
	go func() {
		for {
			line, err := j.Out.ReadString('\n')
			if strings.HasPrefix(line, prefix) || err != nil {
				ch <- res{strings.TrimSpace(line), err}
				return
			}
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	select {
	case r := <-ch:
		if r.err != nil {
			return "", fmt.Errorf("JVM ended before %q: %v", prefix, r.err)
		}
		return r.line, nil
	case <-ctx.Done():
		return "", fmt.Errorf("no %q from the JVM within %v", prefix, d)
	}
}

// Kill ends the JVM (and its wrapper) and reaps it.
func (j *JVM) Kill() {
	// A killed JVM cannot remove its attach socket; a later process of
	// its PID would find it, so it is removed for it. A JVM in its own
	// namespaces had a private /tmp, gone with it.
	if j.NSPID == j.PID && j.PID > 0 {
		defer os.Remove(fmt.Sprintf("/tmp/.java_pid%d", j.PID))
	}
	if j.PID != j.Cmd.Process.Pid && j.PID > 0 {
		if p, err := os.FindProcess(j.PID); err == nil {
			p.Kill()
		}
	}
	j.Cmd.Process.Kill()
	j.Cmd.Wait()
}

// findJVM finds the java process at or under pid (a wrapper may fork).
func findJVM(t testing.TB, pid int) int {
	for depth := 0; depth < 4; depth++ {
		if comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid)); strings.TrimSpace(string(comm)) == "java" {
			return pid
		}
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
		f := strings.Fields(string(b))
		if err != nil || len(f) == 0 {
			break
		}
		pid, _ = strconv.Atoi(f[0])
	}
	t.Fatalf("no java process under pid %d", pid)
	return 0
}

// Histogram parses GC.class_histogram output into instance counts by
// Java name: array descriptors become Java names ([B → byte[],
// [Ljava.lang.String; → java.lang.String[]), module suffixes go, and
// classes of one name from several loaders are summed.
func Histogram(out string) map[string]int64 {
	h := map[string]int64{}
	for name, v := range HistogramSizes(out) {
		h[name] = v[0]
	}
	return h
}

// HistogramSizes is Histogram with the bytes: instances and bytes by
// Java name.
func HistogramSizes(out string) map[string][2]int64 {
	h := map[string][2]int64{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 4 || !strings.HasSuffix(f[0], ":") {
			continue
		}
		n, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			continue
		}
		bytes, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil {
			continue
		}
		name := JavaName(f[3])
		if name == "jdk.internal.vm.FillerElement[]" {
			// JDK 22+: dead space the GC filled with int arrays of
			// this class; a heap dump writes them as int arrays.
			name = "int[]"
		}
		v := h[name]
		h[name] = [2]int64{v[0] + n, v[1] + bytes}
	}
	return h
}

// JavaName turns a JVM class name into the Java one.
func JavaName(s string) string {
	dims := 0
	for strings.HasPrefix(s, "[") {
		dims++
		s = s[1:]
	}
	if dims == 0 {
		// Hidden classes: the JVM says Foo$$Lambda/0x…, HPROF names
		// use '/' only between packages, which become '.'.
		return strings.ReplaceAll(s, "/", ".")
	}
	prims := map[string]string{"Z": "boolean", "B": "byte", "C": "char", "S": "short", "I": "int", "J": "long", "F": "float", "D": "double"}
	if p, ok := prims[s]; ok {
		s = p
	} else {
		s = strings.ReplaceAll(strings.TrimSuffix(strings.TrimPrefix(s, "L"), ";"), "/", ".")
	}
	return s + strings.Repeat("[]", dims)
}
