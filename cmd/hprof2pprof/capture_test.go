package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hprof2pprof/hprof2pprof/internal/jvmtest"
)

func runCapture3(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr})
	return code, stdout.String(), stderr.String()
}

// pprofTopObjects runs go tool pprof -top on the object counts and
// returns the flat count of every class.
func pprofTopObjects(t *testing.T, file string) map[string]int64 {
	return pprofTop(t, file, "inuse_objects")
}

// pprofTop runs go tool pprof -top on a sample type (bytes as plain
// numbers) and returns the flat value of every class.
func pprofTop(t *testing.T, file, sampleType string) map[string]int64 {
	t.Helper()
	out, err := exec.Command("go", "tool", "pprof", "-top", "-nodecount=100000", "-nodefraction=0", "-edgefraction=0", "-unit=B", "-sample_index="+sampleType, file).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool pprof: %v\n%s", err, out)
	}
	m := map[string]int64{}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) != 6 || !strings.HasSuffix(f[1], "%") {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSuffix(f[0], "B"), 10, 64)
		if err != nil || n == 0 {
			continue
		}
		m[f[5]] += n
	}
	return m
}

// TestCaptureCLIMatchesJcmd: capture of a running JDK 17 and JDK 25 JVM
// gives go tool pprof -top the JVM's own class histogram (jcmd
// GC.class_histogram, run by the JDK's jcmd).
func TestCaptureCLIMatchesJcmd(t *testing.T) {
	for _, major := range []int{17, 25} {
		t.Run(fmt.Sprintf("jdk%d", major), func(t *testing.T) {
			home := jvmtest.Home(t, major)
			const n = 12000
			j := jvmtest.Start(t, jvmtest.Spec{Home: home, JVMArgs: []string{"-Xmx96m"}, Args: []string{"park", fmt.Sprint(n)}})
			out := filepath.Join(t.TempDir(), "heap.pb.gz")
			code, _, stderr := runCapture3("capture", "-o", out, strconv.Itoa(j.PID))
			if code != exitOK {
				t.Fatalf("capture: exit %d\n%s", code, stderr)
			}
			if !strings.Contains(stderr, "stopped") {
				t.Errorf("no pause reported:\n%s", stderr)
			}
			got := pprofTopObjects(t, out)
			h, err := exec.Command(filepath.Join(home, "bin", "jcmd"), strconv.Itoa(j.PID), "GC.class_histogram").CombinedOutput()
			if err != nil {
				t.Fatalf("jcmd: %v\n%s", err, h)
			}
			want := jvmtest.Histogram(string(h))
			if got["LiveHeap$Item"] != n || want["LiveHeap$Item"] != n || got["LiveHeap$Item[]"] != n/2 {
				t.Errorf("Item: pprof %d, jcmd %d; Item[]: pprof %d; want %d and %d", got["LiveHeap$Item"], want["LiveHeap$Item"], got["LiveHeap$Item[]"], n, n/2)
			}
			var diff []string
			for c, w := range want {
				// java.lang.Class: classes are CLASS DUMPs in a dump, not
				// instances; lambdas: hidden classes have no CLASS DUMP.
				if c != "java.lang.Class" && !strings.Contains(c, "$$Lambda") && got[c] != w {
					diff = append(diff, fmt.Sprintf("%s: pprof %d, jcmd %d", c, got[c], w))
				}
			}
			if len(diff) > len(want)/100+2 {
				t.Errorf("%d of %d classes differ:\n%s", len(diff), len(want), strings.Join(diff, "\n"))
			}
		})
	}
}

// TestCaptureCompactHeaders: capture of a JDK 25 JVM with
// -XX:+UseCompactObjectHeaders gives go tool pprof -top the JVM's own
// bytes per class (8-byte headers), not those of the usual 12-byte
// header: of the classes whose objects the two agree on, nearly all
// agree in bytes (the rest have fields the VM injects, as with any
// header). With 12-byte headers fewer than half did.
func TestCaptureCompactHeaders(t *testing.T) {
	home := jvmtest.Home(t, 25)
	j := jvmtest.Start(t, jvmtest.Spec{Home: home, JVMArgs: []string{"-Xmx96m", "-XX:+UseCompactObjectHeaders"}, Args: []string{"park", "5000"}})
	out := filepath.Join(t.TempDir(), "heap.pb.gz")
	if code, _, stderr := runCapture3("capture", "-q", "-o", out, strconv.Itoa(j.PID)); code != exitOK {
		t.Fatalf("capture: exit %d\n%s", code, stderr)
	}
	objects, bytes := pprofTop(t, out, "inuse_objects"), pprofTop(t, out, "inuse_space")
	h, err := exec.Command(filepath.Join(home, "bin", "jcmd"), strconv.Itoa(j.PID), "GC.class_histogram").CombinedOutput()
	if err != nil {
		t.Fatalf("jcmd: %v\n%s", err, h)
	}
	var same, compared int
	var diff []string
	for c, w := range jvmtest.HistogramSizes(string(h)) {
		if c == "java.lang.Class" || objects[c] != w[0] {
			continue
		}
		compared++
		if bytes[c] == w[1] {
			same++
		} else {
			diff = append(diff, fmt.Sprintf("%s: %d objects, pprof %d bytes, jcmd %d", c, w[0], bytes[c], w[1]))
		}
	}
	if compared < 200 || same < compared*9/10 {
		t.Errorf("%d of %d classes with the JVM's counts have its bytes:\n%s", same, compared, strings.Join(diff, "\n"))
	}
}

// TestCaptureCLIErrors: each failure has its own exit status and says
// what happened.
func TestCaptureCLIErrors(t *testing.T) {
	sleep := exec.Command("sleep", "60")
	if err := sleep.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sleep.Process.Kill(); sleep.Wait() })
	home := jvmtest.Home(t, 17)
	noAttach := jvmtest.Start(t, jvmtest.Spec{Home: home, JVMArgs: []string{"-Xmx32m", "-XX:+DisableAttachMechanism"}, Args: []string{"park", "10"}})
	stopped := jvmtest.Start(t, jvmtest.Spec{Home: home, JVMArgs: []string{"-Xmx32m"}, Args: []string{"park", "10"}})
	syscall.Kill(stopped.PID, syscall.SIGSTOP)
	t.Cleanup(func() { syscall.Kill(stopped.PID, syscall.SIGCONT) })
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"capture"}, exitUsage, "usage"},
		{[]string{"capture", "abc"}, exitUsage, "not a PID"},
		{[]string{"capture", "-o", "x", "1", "2"}, exitUsage, "use -d"},
		{[]string{"capture", strconv.Itoa(sleep.Process.Pid)}, exitNotJVM, "not a HotSpot JVM"},
		{[]string{"capture", "2147483647"}, exitNotJVM, "no such process"},
		{[]string{"capture", strconv.Itoa(noAttach.PID)}, exitRefused, "DisableAttachMechanism"},
		{[]string{"capture", "--attach-timeout", "1s", strconv.Itoa(stopped.PID)}, exitTimeout, "timed out"},
	} {
		code, _, stderr := runCapture3(tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.msg) {
			t.Errorf("%q: exit %d, want %d, and %q in:\n%s", tc.args, code, tc.code, tc.msg, stderr)
		}
	}
}

// TestCaptureCLIPermission: a user who is not the JVM's (nor root) is
// refused before anything is sent, with exit status 5.
func TestCaptureCLIPermission(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to run the command as nobody")
	}
	home := jvmtest.Home(t, 17)
	j := jvmtest.Start(t, jvmtest.Spec{Home: home, JVMArgs: []string{"-Xmx32m"}, Args: []string{"park", "10"}})
	dir := t.TempDir()
	os.Chmod(dir, 0o755)
	bin := filepath.Join(dir, "hprof2pprof")
	if out, err := exec.Command("cp", binPath, bin).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v\n%s", err, out)
	}
	cmd := exec.Command("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", bin, "capture", strconv.Itoa(j.PID))
	cmd.Dir = "/"
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	t.Logf("as nobody: exit %d: %s", code, out)
	if code != exitRefused || !strings.Contains(string(out), "permission denied") {
		t.Errorf("exit %d, want %d and 'permission denied':\n%s", code, exitRefused, out)
	}
}

// TestCaptureCLINoSpace: the dump is refused when the dump directory
// cannot hold it, with exit status 7.
func TestCaptureCLINoSpace(t *testing.T) {
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
	code, _, stderr := runCapture3("capture", "--dump-dir", dir, "-d", t.TempDir(), strconv.Itoa(j.PID))
	if code != exitNoSpace || !strings.Contains(stderr, "not enough disk space") {
		t.Errorf("exit %d, want %d:\n%s", code, exitNoSpace, stderr)
	}
}

// TestCaptureList: --list shows a running JVM, its main class, Java
// version and heap, without attaching (no attach socket appears).
func TestCaptureList(t *testing.T) {
	home := jvmtest.Home(t, 17)
	j := jvmtest.Start(t, jvmtest.Spec{Home: home, JVMArgs: []string{"-Xmx48m", "-Dotel.service.name=shop"}, Args: []string{"park", "10"}})
	code, stdout, stderr := runCapture3("capture", "--list", "--json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	found := false
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var info struct {
			PID         int    `json:"pid"`
			MainClass   string `json:"main_class"`
			JavaVersion string `json:"java_version"`
			HeapMax     int64  `json:"heap_max"`
			ServiceName string `json:"service_name"`
			Attachable  bool   `json:"attachable"`
		}
		if err := json.Unmarshal([]byte(line), &info); err != nil {
			t.Fatalf("%v: %q", err, line)
		}
		if info.PID != j.PID {
			continue
		}
		found = true
		if info.MainClass != "LiveHeap" || !strings.HasPrefix(info.JavaVersion, "17") || info.HeapMax != 48<<20 || info.ServiceName != "shop" || !info.Attachable {
			t.Errorf("listed as %+v", info)
		}
	}
	if !found {
		t.Fatalf("pid %d not listed:\n%s", j.PID, stdout)
	}
	if _, err := os.Stat(fmt.Sprintf("/tmp/.java_pid%d", j.PID)); err == nil {
		t.Error("--list attached to the JVM")
	}
	code, stdout, _ = runCapture3("capture", "--list")
	if code != exitOK || !strings.Contains(stdout, "LiveHeap") || !strings.Contains(stdout, "HEAP MAX") {
		t.Errorf("table: exit %d\n%s", code, stdout)
	}
}

// TestCaptureCLIJVMDies: the JVM is killed while it writes the dump; the
// command writes the partial heap view and exits 3, as for a truncated
// file.
func TestCaptureCLIJVMDies(t *testing.T) {
	home := jvmtest.Home(t, 17)
	j := jvmtest.Start(t, jvmtest.Spec{Home: home, JVMArgs: []string{"-Xmx600m"}, Args: []string{"park", "2000000"}})
	out := filepath.Join(t.TempDir(), "heap.pb.gz")
	cmd := exec.Command(binPath, "capture", "-o", out, strconv.Itoa(j.PID))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Kill the JVM once its dump has grown past 4 MB.
	deadline := time.Now().Add(time.Minute)
	for killed := false; !killed && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		m, _ := filepath.Glob(fmt.Sprintf("/proc/%d/root/tmp/hprof2pprof-%d-*.hprof", j.PID, j.NSPID))
		for _, f := range m {
			if fi, err := os.Stat(f); err == nil && fi.Size() > 4<<20 {
				syscall.Kill(j.PID, syscall.SIGKILL)
				killed = true
			}
		}
	}
	err := cmd.Wait()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	if code != exitPartial || !strings.Contains(stderr.String(), "exited") {
		t.Fatalf("exit %d, want %d and a message that the JVM exited:\n%s", code, exitPartial, stderr.String())
	}
	if fi, err := os.Stat(out); err != nil || fi.Size() == 0 {
		t.Errorf("no partial heap view written: %v", err)
	}
}
