package agent

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"github.com/hprof2pprof/hprof2pprof/convert"
	"github.com/hprof2pprof/hprof2pprof/internal/objstore"
	"github.com/hprof2pprof/hprof2pprof/internal/s3test"
)

// TestPprofBucket: a window's views land in a real S3-compatible
// server's bucket, each a profile go tool pprof's parser reads.
func TestPprofBucket(t *testing.T) {
	s := s3test.Start(t)
	s.Bucket(t, "agent-out")
	s.SetEnv(t)
	ctx := context.Background()
	g, err := convert.ConvertFile(ctx, "../testdata/cpu-samples.cpuwork.jdk17.hprof", convert.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewPprofBucket(ctx, s.URL("agent-out", "windows/"))
	if err != nil {
		t.Fatal(err)
	}
	w := &Window{JVM: "127.0.0.1_4000-1", Start: time.Unix(1800000000, 0), Graph: g, Seq: 3}
	if err := b.Export(ctx, w); err != nil {
		t.Fatal(err)
	}
	l, _ := objstore.Parse(s.URL("agent-out", "windows/"))
	st, _ := objstore.Open(ctx, l)
	defer st.Close()
	objs, err := st.List(ctx, l)
	if err != nil || len(objs) != len(g.Views) {
		t.Fatalf("%d objects for %d views: %v", len(objs), len(g.Views), err)
	}
	for _, o := range objs {
		if !strings.HasPrefix(o.Loc.Key, "windows/127.0.0.1_4000-1/") {
			t.Errorf("object %s", o.Loc.Key)
		}
		r, err := st.Reader(ctx, o.Loc)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := profile.Parse(r); err != nil {
			t.Errorf("%s: %v", o.Loc.Key, err)
		}
		r.Close()
	}
	if _, err := NewPprofBucket(ctx, s.URL("no-such-bucket", "x/")); err == nil || !strings.Contains(err.Error(), "s3://no-such-bucket/x/") {
		t.Errorf("a missing bucket: %v", err)
	}
}
