package objstore_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hprof2pprof/hprof2pprof/internal/objstore"
	"github.com/hprof2pprof/hprof2pprof/internal/s3test"
)

func TestParse(t *testing.T) {
	l, err := objstore.Parse("s3://bucket/a/b.hprof?endpoint=http://h:1&use_path_style=true")
	if err != nil {
		t.Fatal(err)
	}
	if l.Key != "a/b.hprof" || l.String() != "s3://bucket/a/b.hprof" || l.BucketURL() != "s3://bucket?endpoint=http://h:1&use_path_style=true" {
		t.Errorf("%q %q %q", l.Key, l.String(), l.BucketURL())
	}
	if c := l.Parent().Child("c.pb.gz"); c.URL() != "s3://bucket/a/c.pb.gz?endpoint=http://h:1&use_path_style=true" {
		t.Errorf("child %q", c.URL())
	}
	for _, bad := range []string{"s3:///nobucket", "s3://%zz/x"} {
		if _, err := objstore.Parse(bad); err == nil {
			t.Errorf("Parse(%q): no error", bad)
		}
	}
	if !objstore.IsURL("gs://b/k") || objstore.IsURL("/tmp/s3://x") || objstore.IsURL("dump.hprof") {
		t.Error("IsURL")
	}
}

// open opens a location on server s with the given credentials.
func open(t *testing.T, s *s3test.Server, key, secret, bucket, k string) (*objstore.Store, objstore.Location) {
	t.Helper()
	t.Setenv("AWS_ACCESS_KEY_ID", key)
	t.Setenv("AWS_SECRET_ACCESS_KEY", secret)
	t.Setenv("AWS_REGION", "us-east-1")
	l, err := objstore.Parse(s.URL(bucket, k))
	if err != nil {
		t.Fatal(err)
	}
	st, err := objstore.Open(context.Background(), l)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, l
}

// TestWrongCredentials: refused credentials are an error naming the URL
// and the operation, not retried for long.
func TestWrongCredentials(t *testing.T) {
	s := s3test.Start(t)
	s.Bucket(t, "creds")
	st, l := open(t, s, "nobody", "wrong", "creds", "x/")
	err := st.Check(context.Background())
	var e *objstore.Error
	if !errors.As(err, &e) || e.Op != "open" || !strings.Contains(err.Error(), "s3://creds/x/") {
		t.Errorf("wrong credentials: %v", err)
	}
	if _, err := st.List(context.Background(), l); err == nil || !strings.Contains(err.Error(), "s3://creds/x") {
		t.Errorf("listing with wrong credentials: %v", err)
	}
}

// dying reads n bytes, then stops the server before giving more.
type dying struct {
	r    io.Reader
	n    int64
	stop func()
}

func (d *dying) Read(p []byte) (int, error) {
	if d.n <= 0 && d.stop != nil {
		d.stop()
		d.stop = nil
	}
	n, err := d.r.Read(p[:min(int64(len(p)), max(d.n, 1))])
	d.n -= int64(n)
	return n, err
}

// TestServerDiesMidUpload: the upload fails with an error naming the
// URL, and once the server is back nothing is under the key.
func TestServerDiesMidUpload(t *testing.T) {
	dir := t.TempDir()
	s := s3test.StartIn(t, dir)
	s.Bucket(t, "mid")
	big := filepath.Join(t.TempDir(), "big")
	if err := os.WriteFile(big, make([]byte, 24<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	st, l := open(t, s, s3test.AccessKey, s3test.SecretKey, "mid", "dumps/big.hprof")
	// A first object, whole: the bucket then has storage of its own
	// when the server comes back.
	if err := st.WriteAll(context.Background(), l.Parent().Child("whole.hprof"), []byte("x")); err != nil {
		t.Fatal(err)
	}
	f, _ := os.Open(big)
	defer f.Close()
	err := st.UploadReader(context.Background(), &dying{r: f, n: 9 << 20, stop: s.Stop}, l)
	if err == nil || !strings.Contains(err.Error(), "upload s3://mid/dumps/big.hprof") {
		t.Fatalf("upload through a dying server: %v", err)
	}
	s = s3test.StartIn(t, dir)
	st, l = open(t, s, s3test.AccessKey, s3test.SecretKey, "mid", "dumps/")
	if objs, err := st.List(context.Background(), l); err != nil || len(objs) != 1 || objs[0].Loc.Key != "dumps/whole.hprof" {
		t.Errorf("after the failed upload the bucket holds %v (%v)", objs, err)
	}
}
