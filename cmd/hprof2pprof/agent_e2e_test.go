package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	collectorpb "go.opentelemetry.io/proto/otlp/collector/profiles/v1development"
	"google.golang.org/protobuf/proto"
)

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// agentSession runs hprof2pprof agent with args (plus a loopback
// --listen), plays one recorded plain net= session to it (the JVM sends
// its exit dump and closes), then stops it like SIGTERM (a cancelled
// context) and expects exit status 0. It returns the agent's stderr.
func agentSession(t *testing.T, args ...string) string {
	t.Helper()
	data, err := os.ReadFile("../../testdata/net-heap-sites-cpu-samples.allocwork.jdk17.hprof.raw")
	if err != nil {
		t.Fatal(err)
	}
	stderr := &lockedBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	code := make(chan int, 1)
	go func() {
		code <- run(ctx, append([]string{"agent", "--listen", "127.0.0.1:0"}, args...), &env{stdout: &bytes.Buffer{}, stderr: stderr})
	}()
	addrRE := regexp.MustCompile(`msg=listening addr=(\S+)`)
	var addr string
	for i := 0; i < 1000 && addr == ""; i++ {
		if m := addrRE.FindStringSubmatch(stderr.String()); m != nil {
			addr = m[1]
		}
		time.Sleep(5 * time.Millisecond)
	}
	if addr == "" {
		t.Fatalf("agent did not report its address:\n%s", stderr.String())
	}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	c.Write(data)
	c.(*net.TCPConn).CloseWrite()
	c.SetReadDeadline(time.Now().Add(20 * time.Second))
	var sink bytes.Buffer
	sink.ReadFrom(c) // until the agent closes its side
	c.Close()
	cancel()
	select {
	case got := <-code:
		if got != exitOK {
			t.Fatalf("exit %d:\n%s", got, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("agent did not stop")
	}
	return stderr.String()
}

func TestAgentCommand(t *testing.T) {
	out := t.TempDir()
	stderr := agentSession(t, "--out", out, "--label", "env=test", "--window", "50ms")
	for _, view := range []string{"cpu", "alloc", "threads"} {
		files, _ := filepath.Glob(filepath.Join(out, "*", view+"-*.pb.gz"))
		if len(files) != 1 {
			t.Errorf("%d %s files, want 1:\n%s", len(files), view, stderr)
		}
	}
}

// --out and --otlp-endpoint together: the window goes to both, and the
// OTLP request (here to a loopback OTLP/HTTP receiver that only records)
// names the JVM on its resource and carries the header.
func TestAgentCommandOTLP(t *testing.T) {
	var mu sync.Mutex
	var reqs []*collectorpb.ExportProfilesServiceRequest
	var auth []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body io.Reader = r.Body
		if r.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			body = zr
		}
		data, _ := io.ReadAll(body)
		req := &collectorpb.ExportProfilesServiceRequest{}
		if err := proto.Unmarshal(data, req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mu.Lock()
		reqs, auth = append(reqs, req), append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer srv.Close()
	out := t.TempDir()
	stderr := agentSession(t, "--out", out, "--otlp-endpoint", srv.URL, "--header", "Authorization=Bearer t0ken",
		"--service-name", "shop", "--label", "env=test", "--interval", "50ms", "--stats-interval", "10ms")
	files, _ := filepath.Glob(filepath.Join(out, "*", "*.pb.gz"))
	if len(files) != 3 {
		t.Errorf("%d pprof files, want 3", len(files))
	}
	mu.Lock()
	defer mu.Unlock()
	if len(reqs) != 1 || auth[0] != "Bearer t0ken" {
		t.Fatalf("%d OTLP requests (auth %q), want 1 with the header:\n%s", len(reqs), auth, stderr)
	}
	res := map[string]string{}
	for _, kv := range reqs[0].ResourceProfiles[0].Resource.Attributes {
		res[kv.Key] = kv.Value.String()
	}
	jvm := filepath.Base(filepath.Dir(files[0]))
	for k, want := range map[string]string{"service.name": "shop", "env": "test", "network.peer.address": "127.0.0.1", "service.instance.id": jvm} {
		if !strings.Contains(res[k], `"`+want+`"`) {
			t.Errorf("resource %s = %s, want %q", k, res[k], want)
		}
	}
	for _, k := range []string{"network.peer.port", "process.creation.time", "hprof.agent.window"} {
		if res[k] == "" {
			t.Errorf("resource lacks %s: %v", k, res)
		}
	}
	if !strings.Contains(stderr, "msg=stats") || !strings.Contains(stderr, "exported=2") {
		t.Errorf("no stats line, or the exit counters do not show 2 exports:\n%s", stderr)
	}
}

func TestAgentUsage(t *testing.T) {
	for _, args := range [][]string{
		{"agent"},
		{"agent", "--otlp-endpoint", "ftp://127.0.0.1:1"},
		{"agent", "--otlp-endpoint", "https://127.0.0.1:1", "--insecure"},
		{"agent", "--out", "x", "--timeout", "0s"},
	} {
		var stderr bytes.Buffer
		if code := run(context.Background(), args, &env{stdout: &bytes.Buffer{}, stderr: &stderr}); code != exitUsage {
			t.Errorf("%q: exit %d, want %d (usage):\n%s", args, code, exitUsage, stderr.String())
		}
	}
}
