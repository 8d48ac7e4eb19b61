package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	profilespb "go.opentelemetry.io/proto/otlp/profiles/v1development"

	"github.com/hprof2pprof/hprof2pprof/internal/jvmtest"
	"github.com/hprof2pprof/hprof2pprof/internal/otelcoltest"
	"github.com/hprof2pprof/hprof2pprof/otlp"
)

// collector is a real OpenTelemetry Collector writing what it receives
// to a JSON lines file.
type collector struct {
	grpc, out string
}

// startCollector runs the Collector on loopback ports through the shared
// starter, which starts it again when a picked port was taken.
func startCollector(t *testing.T) *collector {
	t.Helper()
	bin, err := otelcoltest.Binary(repoRoot(t))
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	out := filepath.Join(t.TempDir(), "profiles.jsonl")
	oc, err := otelcoltest.Start(otelcoltest.Config{Bin: bin, Config: filepath.Join(repoRoot(t), "agent", "testdata", "otelcol-agent.yaml"), Out: out})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(oc.Stop)
	return &collector{grpc: oc.GRPC, out: out}
}

// resources returns the attributes of every resource the Collector
// received, strings and numbers as text.
func (c *collector) resources(t *testing.T) []map[string]string {
	t.Helper()
	data, _ := os.ReadFile(c.out)
	var out []map[string]string
	for _, line := range bytes.Split(data, []byte("\n")) {
		pd := &profilespb.ProfilesData{}
		if len(line) == 0 || otlp.UnmarshalJSON(line, pd) != nil {
			continue
		}
		strs := pd.GetDictionary().GetStringTable()
		for _, rp := range pd.ResourceProfiles {
			m := map[string]string{}
			for _, kv := range rp.GetResource().GetAttributes() {
				k := kv.Key
				if k == "" && int(kv.KeyStrindex) < len(strs) {
					k = strs[kv.KeyStrindex]
				}
				m[k] = attrText(kv, strs)
			}
			out = append(out, m)
		}
	}
	return out
}

func attrText(kv *commonpb.KeyValue, strs []string) string {
	switch v := kv.GetValue().GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return v.StringValue
	case *commonpb.AnyValue_StringValueStrindex:
		if int(v.StringValueStrindex) < len(strs) {
			return strs[v.StringValueStrindex]
		}
	case *commonpb.AnyValue_IntValue:
		return fmt.Sprint(v.IntValue)
	}
	return ""
}

// waitResources polls the Collector's output until want says enough
// arrived (a bounded wait: 90 s).
func (c *collector) waitResources(t *testing.T, want func([]map[string]string) bool) []map[string]string {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		rs := c.resources(t)
		if want(rs) {
			return rs
		}
		if time.Now().After(deadline) {
			t.Fatalf("the Collector did not receive what was expected within 90s; it has %d resources: %v", len(rs), rs)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// startAgent runs the agent command in-process until the test ends.
func startAgent(t *testing.T, args ...string) *lockedBuffer {
	t.Helper()
	stderr := &lockedBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	code := make(chan int, 1)
	go func() {
		code <- run(ctx, append([]string{"agent"}, args...), &env{stdout: &bytes.Buffer{}, stderr: stderr})
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case c := <-code:
			if c != exitOK {
				t.Errorf("agent exit %d:\n%s", c, stderr.String())
			}
		case <-time.After(60 * time.Second):
			t.Error("the agent did not stop")
		}
	})
	return stderr
}

// biggestPprofClass reads a heap profile and returns the class with the
// most bytes.
func biggestPprofClass(t *testing.T, path string) string {
	t.Helper()
	p := readPprof(t, path)
	idx := len(p.SampleType) - 1
	by := map[string]int64{}
	for _, s := range p.Sample {
		for _, c := range s.Label["class"] {
			by[c] += s.Value[idx]
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

// TestAgentWatchOOM: a JVM runs out of memory and writes its dump into
// the watched directory; the dump reaches the Collector, and the pprof
// file's biggest class is the leaked byte[].
func TestAgentWatchOOM(t *testing.T) {
	home := jvmtest.Home(t, 17)
	col := startCollector(t)
	dir, out := t.TempDir(), t.TempDir()
	stderr := startAgent(t, "--watch", dir, "--watch-settle", "500ms", "--out", out, "--otlp-endpoint", col.grpc, "--insecure", "--label", "env=test")
	// The JVM lives on after its OutOfMemoryError, so the dump is
	// described by the JVM that wrote it.
	j := jvmtest.Start(t, jvmtest.Spec{Home: home, NoWait: true, Args: []string{"leak-stay"},
		JVMArgs: []string{"-Xmx48m", "-XX:+HeapDumpOnOutOfMemoryError", "-XX:HeapDumpPath=" + dir, "-Dotel.service.name=shop"}})
	if _, err := j.WaitLine(2*time.Minute, "OOM-CAUGHT"); err != nil {
		t.Fatal(err)
	}
	oom := time.Now()
	dump := filepath.Join(dir, fmt.Sprintf("java_pid%d.hprof", j.PID))
	rs := col.waitResources(t, func(rs []map[string]string) bool {
		for _, r := range rs {
			if r["hprof.watch.file"] == dump {
				return true
			}
		}
		return false
	})
	t.Logf("the OOM dump reached the Collector %v after the JVM caught the error", time.Since(oom).Round(time.Millisecond))
	for _, r := range rs {
		if r["hprof.watch.file"] == dump && (r[attrReason] != "watch" || r["env"] != "test" ||
			r["process.pid"] != fmt.Sprint(j.PID) || r["service.name"] != "shop" || r["process.runtime.version"] == "") {
			t.Errorf("resource %v: want reason watch, env test, the JVM's pid, service.name shop, its runtime", r)
		}
	}
	files, _ := filepath.Glob(filepath.Join(out, "*", "heap-*.pb.gz"))
	if len(files) != 1 {
		t.Fatalf("%d heap profiles in --out, want 1:\n%s", len(files), stderr.String())
	}
	if c := biggestPprofClass(t, files[0]); c != "byte[]" {
		t.Errorf("biggest class %q, want byte[]", c)
	}
}

const attrReason = "hprof.capture.reason"

// TestAgentCaptureTriggers: the agent captures a JVM whose old
// generation crosses the threshold after a GC (once, with the cooldown),
// and captures on a timer; each capture reaches the Collector with the
// JVM's resource attributes and the pause it caused.
func TestAgentCaptureTriggers(t *testing.T) {
	home := jvmtest.Home(t, 17)
	col := startCollector(t)
	token := fmt.Sprintf("token-%d", time.Now().UnixNano())
	// About 30 MB live in a 64 MB heap: the old generation is over 20%
	// after each of the workload's System.gc() calls.
	a := jvmtest.Start(t, jvmtest.Spec{Home: home, JVMArgs: []string{"-Xmx64m", "-Dotel.service.name=shop"}, Args: []string{"gc", "300000", token + "-a"}})
	b := jvmtest.Start(t, jvmtest.Spec{Home: home, JVMArgs: []string{"-Xmx64m"}, Args: []string{"park", "1000", token + "-b"}, Env: []string{"OTEL_SERVICE_NAME=cart"}})

	t.Run("old-gen", func(t *testing.T) {
		out := t.TempDir()
		stderr := startAgent(t, "--capture-old-gen", "20", "--capture-cooldown", "1h", "--capture-match", token+"-a",
			"--out", out, "--otlp-endpoint", col.grpc, "--insecure")
		col.waitResources(t, func(rs []map[string]string) bool { return countPID(rs, a.PID) >= 1 })
		time.Sleep(2 * time.Second) // a second capture would come now without the cooldown
		rs := col.resources(t)
		if n := countPID(rs, a.PID); n != 1 {
			t.Errorf("%d captures of pid %d, want 1 (cooldown):\n%s", n, a.PID, stderr.String())
		}
		for _, r := range rs {
			if r["process.pid"] != fmt.Sprint(a.PID) {
				continue
			}
			checkJVMResource(t, r, "shop", reasonOldGen)
		}
		if !strings.Contains(stderr.String(), "heap dump pause") {
			t.Errorf("the pause was not logged:\n%s", stderr.String())
		}
		files, _ := filepath.Glob(filepath.Join(out, "*", "heap-*.pb.gz"))
		if len(files) != 1 {
			t.Errorf("%d heap profiles in --out, want 1", len(files))
		}
	})
	t.Run("every", func(t *testing.T) {
		startAgent(t, "--capture-every", "1s", "--capture-match", token+"-b", "--otlp-endpoint", col.grpc, "--insecure")
		rs := col.waitResources(t, func(rs []map[string]string) bool { return countPID(rs, b.PID) >= 2 })
		for _, r := range rs {
			if r["process.pid"] == fmt.Sprint(b.PID) {
				checkJVMResource(t, r, "cart", "every")
			}
		}
		if countPID(rs, a.PID) != 1 {
			t.Errorf("--capture-match %s-b captured the other JVM", token)
		}
	})
}

const reasonOldGen = "old-gen"

func countPID(rs []map[string]string, pid int) int {
	n := 0
	for _, r := range rs {
		if r["process.pid"] == fmt.Sprint(pid) {
			n++
		}
	}
	return n
}

func checkJVMResource(t *testing.T, r map[string]string, service, reason string) {
	t.Helper()
	host, _ := os.Hostname()
	for k, want := range map[string]string{"service.name": service, attrReason: reason, "host.name": host} {
		if r[k] != want {
			t.Errorf("%s = %q, want %q (resource %v)", k, r[k], want, r)
		}
	}
	for _, k := range []string{"process.runtime.name", "process.runtime.version", "process.command", "hprof.capture.pause_ms", "hprof.capture.dump_bytes"} {
		if r[k] == "" {
			t.Errorf("resource lacks %s: %v", k, r)
		}
	}
	if !strings.HasPrefix(r["process.runtime.version"], "17") {
		t.Errorf("process.runtime.version %q", r["process.runtime.version"])
	}
}

// TestCapturePushCollector: capture --endpoint ships the heap view to a
// real Collector with the JVM's resource attributes, and writes no file.
func TestCapturePushCollector(t *testing.T) {
	home := jvmtest.Home(t, 17)
	col := startCollector(t)
	j := jvmtest.Start(t, jvmtest.Spec{Home: home, JVMArgs: []string{"-Xmx64m", "-Dotel.service.name=shop"}, Args: []string{"park", "1000"}})
	dir := t.TempDir()
	cmd := exec.Command(binPath, "capture", "--endpoint", col.grpc, "--insecure", fmt.Sprint(j.PID))
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "pushed ") {
		t.Fatalf("capture --endpoint: %v\n%s", err, out)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("files written with only --endpoint: %v", ents)
	}
	rs := col.waitResources(t, func(rs []map[string]string) bool { return countPID(rs, j.PID) >= 1 })
	for _, r := range rs {
		if r["process.pid"] != fmt.Sprint(j.PID) {
			continue
		}
		host, _ := os.Hostname()
		for k, want := range map[string]string{"service.name": "shop", "host.name": host, "process.owner": "root"} {
			if k == "process.owner" && os.Geteuid() != 0 {
				continue
			}
			if r[k] != want {
				t.Errorf("%s = %q, want %q (%v)", k, r[k], want, r)
			}
		}
		for _, k := range []string{"process.runtime.name", "process.runtime.version", "hprof.capture.pause_ms"} {
			if r[k] == "" {
				t.Errorf("no %s: %v", k, r)
			}
		}
	}
}
