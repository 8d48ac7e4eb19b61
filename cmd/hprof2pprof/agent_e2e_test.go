package main

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"testing"
	"time"
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

// hprof2pprof agent receives a recorded plain net= session (the JVM
// sends its exit dump and closes) and writes its window's views; SIGTERM
// (a cancelled context) stops it with exit status 0.
func TestAgentCommand(t *testing.T) {
	data, err := os.ReadFile("../../testdata/net-heap-sites-cpu-samples.allocwork.jdk17.hprof.raw")
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	stderr := &lockedBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	code := make(chan int, 1)
	go func() {
		code <- run(ctx, []string{"agent", "--listen", "127.0.0.1:0", "--out", out, "--label", "env=test", "--interval", "50ms"},
			&env{stdout: &bytes.Buffer{}, stderr: stderr})
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
	for _, view := range []string{"cpu", "alloc", "threads"} {
		files, _ := filepath.Glob(filepath.Join(out, "*", view+"-*.pb.gz"))
		if len(files) != 1 {
			t.Errorf("%d %s files, want 1:\n%s", len(files), view, stderr.String())
		}
	}
}
