// Package s3test runs a real S3-compatible server for tests: SeaweedFS
// (scripts/setup-seaweedfs.sh builds it into .cache/seaweedfs/weed) on
// loopback ports of its own, in a temporary folder, stopped when the test
// ends. A test without the binary is skipped, or fails under CI=true.
package s3test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// The credentials the server accepts.
const (
	AccessKey = "hprof2pprof-test"
	SecretKey = "hprof2pprof-test-secret"
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

// Start runs a server in a new folder and waits until its gateway
// answers (a minute at most, for a loaded machine).
func Start(t testing.TB) *Server {
	t.Helper()
	return StartIn(t, t.TempDir())
}

// StartIn runs a server on the data in dir (a server stopped earlier
// left its buckets there), on new ports.
func StartIn(t testing.TB, dir string) *Server {
	t.Helper()
	bin := Binary(t)
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
	// One identity, so that requests are signed and checked: wrong
	// credentials are refused as a real store refuses them.
	conf := filepath.Join(dir, "s3.json")
	if err := os.WriteFile(conf, []byte(`{"identities": [{"name": "test", "credentials": [{"accessKey": "`+AccessKey+`", "secretKey": "`+SecretKey+`"}],
		"actions": ["Admin", "Read", "Write", "List", "Tagging"]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "server", "-dir="+dir, "-ip=127.0.0.1", "-ip.bind=127.0.0.1", "-s3.config="+conf,
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
		Env: []string{"AWS_ACCESS_KEY_ID=" + AccessKey, "AWS_SECRET_ACCESS_KEY=" + SecretKey, "AWS_REGION=us-east-1"}}
	t.Cleanup(func() {
		s.Stop()
		log.Close()
		if t.Failed() {
			b, _ := os.ReadFile(log.Name())
			t.Logf("SeaweedFS log (%s), the end:\n%s", s.Endpoint, tail(b, 4000))
		}
	})
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

// Bucket creates a bucket, with a signed request.
func (s *Server) Bucket(t testing.TB, name string) {
	t.Helper()
	client := s3.New(s3.Options{
		Region: "us-east-1", BaseEndpoint: aws.String(s.Endpoint), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider(AccessKey, SecretKey, ""),
	})
	deadline := time.Now().Add(time.Minute)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, err := client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(name)})
		cancel()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("creating bucket %s: %v", name, err)
		}
		time.Sleep(300 * time.Millisecond)
	}
}

// SetEnv sets the client environment for this test (t.Setenv).
func (s *Server) SetEnv(t *testing.T) {
	for _, kv := range s.Env {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
}

// tail is the last n bytes of b.
func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}
