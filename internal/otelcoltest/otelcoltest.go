// Package otelcoltest starts a real OpenTelemetry Collector (built by
// scripts/setup-otelcol.sh) on loopback for the tests of the packages
// that push OTLP, and starts it reliably on a busy machine.
//
// The Collector takes its listen addresses from its configuration and
// does not report the port it bound, so a test picks free ports first.
// Another process may take a picked port before the Collector binds it;
// the Collector then exits with "address already in use", and Start
// tries again (with new ports when it picked them, else with the same
// ones after a pause), a bounded number of times.
package otelcoltest

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// ErrNotBuilt means the Collector binary is missing.
var ErrNotBuilt = errors.New("OpenTelemetry Collector not built: run scripts/setup-otelcol.sh (or set OTELCOL_BIN)")

// Binary finds the Collector: $OTELCOL_BIN, else the setup script's
// cache under the module root.
func Binary(moduleRoot string) (string, error) {
	bin := os.Getenv("OTELCOL_BIN")
	if bin == "" {
		bin = filepath.Join(moduleRoot, ".cache", "otelcol", "dist", "otelcol-profiles")
	}
	if _, err := os.Stat(bin); err != nil {
		return "", fmt.Errorf("%w: %s", ErrNotBuilt, bin)
	}
	return bin, nil
}

// FreePort returns a loopback host:port nothing listens on right now.
func FreePort() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// Config says how to run the Collector. The configuration file reads
// OTLP_GRPC_PORT, OTLP_HTTP_PORT and OTELCOL_OUT from the environment.
type Config struct {
	Bin    string
	Config string // the Collector's configuration file
	Out    string // the file exporter's output (OTELCOL_OUT)
	// GRPC and HTTP are the loopback host:port to listen on; empty picks
	// free ports.
	GRPC, HTTP string
	// Ready bounds the wait for the "Everything is ready" line; zero
	// means a minute.
	Ready time.Duration
}

// Attempts bounds how often Start tries when a port is taken.
const Attempts = 5

// Collector is one running Collector.
type Collector struct {
	GRPC, HTTP string // host:port it listens on
	Out        string
	cmd        *exec.Cmd
	log        *syncBuffer
	exited     chan struct{}
}

// Start runs the Collector until it says it is ready.
func Start(cfg Config) (*Collector, error) {
	pick := cfg.GRPC == "" || cfg.HTTP == ""
	var err error
	for attempt := 1; attempt <= Attempts; attempt++ {
		if pick {
			if cfg.GRPC, err = FreePort(); err != nil {
				return nil, err
			}
			if cfg.HTTP, err = FreePort(); err != nil {
				return nil, err
			}
		}
		var c *Collector
		c, err = start(cfg)
		if err == nil {
			return c, nil
		}
		if !strings.Contains(err.Error(), "address already in use") {
			return nil, err
		}
		if !pick {
			time.Sleep(time.Duration(attempt) * 200 * time.Millisecond)
		}
	}
	return nil, fmt.Errorf("after %d attempts: %w", Attempts, err)
}

func start(cfg Config) (*Collector, error) {
	_, gport, _ := net.SplitHostPort(cfg.GRPC)
	_, hport, _ := net.SplitHostPort(cfg.HTTP)
	c := &Collector{GRPC: cfg.GRPC, HTTP: cfg.HTTP, Out: cfg.Out, log: &syncBuffer{}, exited: make(chan struct{})}
	c.cmd = exec.Command(cfg.Bin, "--config="+cfg.Config, "--feature-gates=service.profilesSupport")
	c.cmd.Env = append(os.Environ(), "OTLP_GRPC_PORT="+gport, "OTLP_HTTP_PORT="+hport, "OTELCOL_OUT="+cfg.Out)
	stderr, err := c.cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := c.cmd.Start(); err != nil {
		return nil, err
	}
	ready := make(chan bool, 1)
	go func() {
		defer close(c.exited)
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		signalled := false
		for sc.Scan() {
			line := sc.Text()
			c.log.add(line)
			if !signalled && strings.Contains(line, "Everything is ready") {
				ready <- true
				signalled = true
			}
		}
		if !signalled {
			ready <- false
		}
		c.cmd.Wait()
	}()
	wait := cfg.Ready
	if wait <= 0 {
		wait = time.Minute
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case ok := <-ready:
		if !ok {
			<-c.exited
			return nil, fmt.Errorf("collector exited before it was ready:\n%s", c.Log(4000))
		}
	case <-t.C:
		c.Stop()
		return nil, fmt.Errorf("collector not ready after %v:\n%s", wait, c.Log(4000))
	}
	return c, nil
}

// Stop ends the Collector (SIGTERM, a kill after 15 s) and waits for it.
// Stopping twice is harmless.
func (c *Collector) Stop() {
	if c == nil || c.cmd == nil {
		return
	}
	c.cmd.Process.Signal(syscall.SIGTERM)
	t := time.NewTimer(15 * time.Second)
	defer t.Stop()
	select {
	case <-c.exited:
	case <-t.C:
		c.cmd.Process.Kill()
		<-c.exited
	}
	c.cmd = nil
}

// Log is the end of what the Collector wrote to stderr, at most n bytes.
func (c *Collector) Log(n int) string {
	s := c.log.String()
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// syncBuffer keeps the first MiB of the log, safe for the reader
// goroutine and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) add(line string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.b.Len() < 1<<20 {
		s.b.WriteString(line)
		s.b.WriteByte('\n')
	}
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
