// Package s3test runs a real S3-compatible server for tests: SeaweedFS
// (scripts/setup-seaweedfs.sh builds it into .cache/seaweedfs/weed) on
// loopback ports of its own, in a temporary folder, stopped when the test
// ends. A test without the binary is skipped, or fails under CI=true.
package s3test

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"
)

// Server is one running SeaweedFS with its S3 gateway.
type Server struct {
	// Endpoint is the S3 gateway's URL (http://127.0.0.1:PORT).
	Endpoint string
	// Env are the environment variables an S3 client needs with it
	// (credentials the gateway does not check, a region).
	Env []string
	cmd *exec.Cmd
}

// Binary finds the weed binary: $HPROF2PPROF_WEED or the repository's
// .cache/seaweedfs/weed.
func Binary(t testing.TB) string {
	t.Helper()
	p := os.Getenv("HPROF2PPROF_WEED")
	if p == "" {
		_, file, _, _ := runtime.Caller(0)
		p = filepath.Join(filepath.Dir(file), "..", "..", ".cache", "seaweedfs", "weed")
	}
	if _, err := os.Stat(p); err != nil {
		msg := "SeaweedFS not built (" + p + "); run scripts/setup-seaweedfs.sh"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return p
}

// freePorts reserves n loopback ports (closed again for the server).
func freePorts(t testing.TB, n int) []int {
	t.Helper()
	var ports []int
	var ls []net.Listener
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range ls {
		l.Close()
	}
	return ports
}

// Start runs a server and waits until its gateway answers (a minute at
// most, for a loaded machine).
func Start(t testing.TB) *Server {
	t.Helper()
	bin := Binary(t)
	dir := t.TempDir()
	// The master's gRPC port is its port + 10000, and so on: keep every
	// port low enough and apart.
	var p []int
	for range 20 {
		p = freePorts(t, 4)
		ok := true
		for _, x := range p {
			ok = ok && x+10000 < 65536
		}
		if ok {
			break
		}
	}
	cmd := exec.Command(bin, "server", "-dir="+dir, "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
		"-master.port="+strconv.Itoa(p[0]), "-volume.port="+strconv.Itoa(p[1]), "-filer.port="+strconv.Itoa(p[2]),
		"-s3", "-s3.port="+strconv.Itoa(p[3]), "-master.volumeSizeLimitMB=64", "-volume.max=200")
	log, err := os.Create(filepath.Join(dir, "weed.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &Server{Endpoint: fmt.Sprintf("http://127.0.0.1:%d", p[3]), cmd: cmd,
		Env: []string{"AWS_ACCESS_KEY_ID=test", "AWS_SECRET_ACCESS_KEY=test", "AWS_REGION=us-east-1"}}
	t.Cleanup(func() { s.Stop(); log.Close() })
	deadline := time.Now().Add(time.Minute)
	for {
		if r, err := http.Get(s.Endpoint + "/"); err == nil {
			r.Body.Close()
			return s
		}
		if time.Now().After(deadline) || cmd.ProcessState != nil {
			b, _ := os.ReadFile(filepath.Join(dir, "weed.log"))
			t.Fatalf("SeaweedFS did not answer at %s:\n%.3000s", s.Endpoint, b)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// Stop ends the server (a test may stop it early, as a failure would).
func (s *Server) Stop() {
	if s.cmd.Process != nil && s.cmd.ProcessState == nil {
		s.cmd.Process.Kill()
		s.cmd.Wait()
	}
}

// Query is the URL query that points a s3:// URL at this server.
func (s *Server) Query() string {
	return "endpoint=" + s.Endpoint + "&use_path_style=true&disable_https=true&region=us-east-1"
}

// URL is s3://bucket/key with the query for this server.
func (s *Server) URL(bucket, key string) string {
	return "s3://" + bucket + "/" + key + "?" + s.Query()
}

// Bucket creates a bucket (the gateway takes an unsigned request).
func (s *Server) Bucket(t testing.TB, name string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		req, _ := http.NewRequest(http.MethodPut, s.Endpoint+"/"+name, nil)
		r, err := http.DefaultClient.Do(req)
		if err == nil {
			r.Body.Close()
			if r.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("creating bucket %s: %v %v", name, err, r)
		}
		time.Sleep(300 * time.Millisecond)
	}
}

// SetEnv sets the client environment for this test (t.Setenv).
func (s *Server) SetEnv(t *testing.T) {
	for _, kv := range s.Env {
		k, v, _ := cutEq(kv)
		t.Setenv(k, v)
	}
}

func cutEq(kv string) (string, string, bool) {
	for i := range kv {
		if kv[i] == '=' {
			return kv[:i], kv[i+1:], true
		}
	}
	return kv, "", false
}
