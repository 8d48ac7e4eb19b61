package otelcoltest

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func binary(t *testing.T) string {
	t.Helper()
	bin, err := Binary(filepath.Join("..", ".."))
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	return bin
}

// TestStartWaitsForATakenPort: a port held by another listener when the
// Collector starts makes the first attempt fail with "address already in
// use"; Start tries again and succeeds once the port is free.
func TestStartWaitsForATakenPort(t *testing.T) {
	bin := binary(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	taken := l.Addr().String()
	free, err := FreePort()
	if err != nil {
		t.Fatal(err)
	}
	released := make(chan struct{})
	go func() {
		time.Sleep(100 * time.Millisecond)
		l.Close()
		close(released)
	}()
	c, err := Start(Config{Bin: bin, Config: filepath.Join("..", "..", "otlp", "testdata", "otelcol-profiles.yaml"),
		Out: filepath.Join(t.TempDir(), "out.jsonl"), GRPC: taken, HTTP: free})
	<-released
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stop()
	if c.GRPC != taken {
		t.Errorf("listening on %s, asked for %s", c.GRPC, taken)
	}
	conn, err := net.Dial("tcp", c.GRPC)
	if err != nil {
		t.Fatalf("nothing listens on %s: %v", c.GRPC, err)
	}
	conn.Close()
}

// TestStartGivesUp: a port that stays taken ends in an error naming the
// attempts and the cause, not a hang.
func TestStartGivesUp(t *testing.T) {
	bin := binary(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	free, err := FreePort()
	if err != nil {
		t.Fatal(err)
	}
	c, err := Start(Config{Bin: bin, Config: filepath.Join("..", "..", "otlp", "testdata", "otelcol-profiles.yaml"),
		Out: filepath.Join(t.TempDir(), "out.jsonl"), GRPC: l.Addr().String(), HTTP: free})
	if err == nil {
		c.Stop()
		t.Fatal("started on a taken port")
	}
	if !strings.Contains(err.Error(), "address already in use") || !strings.Contains(err.Error(), "attempts") {
		t.Errorf("error %v: want the attempts and the cause", err)
	}
}
