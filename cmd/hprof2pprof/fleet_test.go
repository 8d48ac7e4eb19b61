package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/hprof2pprof/hprof2pprof/convert"
	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/internal/batch"
	"github.com/hprof2pprof/hprof2pprof/internal/objstore"
	"github.com/hprof2pprof/hprof2pprof/internal/s3test"
	"github.com/hprof2pprof/hprof2pprof/parquet"
)

// fleetInputs are the objects of the fleet test's input bucket: heap
// dumps (plain and -gz), hprof agent files (binary, bzip2, text
// reports) and one file that is no input, twenty in all.
var fleetInputs = map[string]string{
	"dumps/host1/java_pid101.hprof":      "jdk17-zoo-live.hprof",
	"dumps/host1/java_pid102.hprof.gz":   "jdk25-zgc.hprof.gz",
	"dumps/host1/java_pid103.hprof.gz":   "jdk17-zgc.hprof.gz",
	"dumps/host1/compact.hprof.gz":       "jdk25-compact-headers.hprof.gz",
	"dumps/host2/agent-heap.hprof":       "heap-dump.allocwork.jdk17.hprof",
	"dumps/host2/agent-all.hprof":        "heap-all-cpu-samples.allocwork.jdk25.hprof",
	"dumps/host2/agent-cpu.hprof":        "cpu-samples.cpuwork.jdk17.hprof",
	"dumps/host2/agent-cpu.hprof.bz2":    "cpu-samples.cpuwork.jdk17.hprof.bz2",
	"dumps/host2/sites.hprof":            "heap-sites.allocwork.jdk17.hprof",
	"dumps/host3/java.hprof.txt":         "cpu-samples.cpuwork.jdk17.txt",
	"dumps/host3/times.hprof.txt":        "cpu-times.cpuwork.jdk17.txt",
	"dumps/host3/monitor.hprof.txt":      "cpu-times.monitorwork.jdk25.txt",
	"dumps/host3/jdk25.hprof.txt":        "cpu-samples.cpuwork.jdk25.txt",
	"dumps/host3/sites.hprof.txt.gz":     "heap-sites.allocwork.jdk17.txt.gz",
	"dumps/host3/old.hprof.txt.gz":       "cpu-old.cpuwork.jdk17.txt.gz",
	"dumps/host4/heap-dump.hprof.txt.gz": "heap-dump.allocwork.jdk17.txt.gz",
	"dumps/host4/basex.hprof.txt":        "basex-2009-01-cpu-samples.hprof.txt",
	"dumps/host4/jspark.hprof.txt":       "jspark-cpu-times.hprof.txt",
	"dumps/host4/javac.hprof.txt":        "javac-cpu-samples.jvmpi-spec.txt",
	"dumps/host4/README.md":              "README-heap-dumps.md",
}

// upload puts local files into a bucket.
func upload(t *testing.T, s *s3test.Server, bucket string, files map[string]string) {
	t.Helper()
	ctx := context.Background()
	for key, src := range files {
		l, err := objstore.Parse(s.URL(bucket, key))
		if err != nil {
			t.Fatal(err)
		}
		st, err := objstore.Open(ctx, l)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Upload(ctx, testdata(src), l); err != nil {
			t.Fatal(err)
		}
		st.Close()
	}
}

// listed opens a bucket and lists the objects under prefix.
func listed(t *testing.T, s *s3test.Server, bucket, prefix string) (*objstore.Store, []objstore.Object) {
	t.Helper()
	ctx := context.Background()
	l, _ := objstore.Parse(s.URL(bucket, prefix))
	st, err := objstore.Open(ctx, l)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	objs, err := st.List(ctx, l)
	if err != nil {
		t.Fatal(err)
	}
	return st, objs
}

// objects lists a bucket's keys under prefix with their identity (size
// and modification time), hidden names included.
func objects(t *testing.T, s *s3test.Server, bucket, prefix string) map[string]string {
	t.Helper()
	_, objs := listed(t, s, bucket, prefix)
	out := map[string]string{}
	for _, o := range objs {
		out[strings.TrimPrefix(o.Loc.Key, prefix)] = fmt.Sprint(o.Size, o.ModTime.UnixNano())
	}
	return out
}

// download copies every object under prefix into dir.
func download(t *testing.T, s *s3test.Server, bucket, prefix, dir string) {
	t.Helper()
	ctx := context.Background()
	st, objs := listed(t, s, bucket, prefix)
	for _, o := range objs {
		r, err := st.Reader(ctx, o.Loc)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(o.Loc.Key, prefix)))
		os.MkdirAll(filepath.Dir(p), 0o755)
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(f, r)
		f.Close()
		r.Close()
	}
}

// runEnv runs the binary with extra environment.
func runEnv(t *testing.T, env []string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(binPath, args...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), string(out)
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, string(out)
}

// TestFleetObjectStorage: twenty inputs in a bucket of a real
// S3-compatible server convert with two concurrent shards into a
// Parquet dataset and pprof files in another bucket; every output exists
// once, a third run uploads nothing, the dataset's class histogram of each
// input equals that input's own heap view, and a shard killed mid-run and
// run again leaves no duplicate rows.
func TestFleetObjectStorage(t *testing.T) {
	s := s3test.Start(t)
	s.Bucket(t, "fleet-in")
	s.Bucket(t, "fleet-out")
	s.SetEnv(t)
	upload(t, s, "fleet-in", fleetInputs)
	in := s.URL("fleet-in", "dumps/")

	for _, out := range []struct{ prefix, format string }{{"tables/", "parquet"}, {"pprof/", "pprof"}} {
		var wg sync.WaitGroup
		for i := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				code, msg := runEnv(t, s.Env, "convert", "-q", "--format", out.format, "--shard", fmt.Sprintf("%d/2", i),
					"--summary", s.URL("fleet-out", fmt.Sprintf("summaries/%s%d.json", out.format, i)), "-d", s.URL("fleet-out", out.prefix), in)
				if code != exitOK {
					t.Errorf("%s shard %d/2: exit %d\n%s", out.format, i, code, msg)
				}
			}()
		}
		wg.Wait()
	}
	tables := objects(t, s, "fleet-out", "tables/")
	var want []string
	for key := range fleetInputs {
		if strings.HasSuffix(key, ".md") {
			continue
		}
		for _, table := range parquet.Tables {
			want = append(want, fmt.Sprintf("%s/input=%s/part-0.parquet", table, batch.PartitionKey(strings.TrimSuffix(s.URL("fleet-in", key), "?"+s.Query()))))
		}
	}
	sort.Strings(want)
	var got []string
	for k := range tables {
		if !strings.Contains(k, "/.") && !strings.HasPrefix(k, ".") {
			got = append(got, k)
		}
	}
	sort.Strings(got)
	if !slices.Equal(got, want) {
		t.Errorf("dataset holds %d files, want %d:\n%q\nwant %q", len(got), len(want), got, want)
	}
	pprofs := objects(t, s, "fleet-out", "pprof/")
	if n := len(pprofs); n < 40 {
		t.Errorf("%d pprof objects: %v", n, pprofs)
	}

	// A third run over both finds everything done and uploads nothing.
	for _, out := range []struct{ prefix, format string }{{"tables/", "parquet"}, {"pprof/", "pprof"}} {
		before := objects(t, s, "fleet-out", out.prefix)
		if code, msg := runEnv(t, s.Env, "convert", "-q", "--format", out.format, "-d", s.URL("fleet-out", out.prefix), in); code != exitOK {
			t.Fatalf("third run: exit %d\n%s", code, msg)
		}
		if after := objects(t, s, "fleet-out", out.prefix); !mapsEqual(before, after) {
			t.Errorf("%s: the third run changed the bucket", out.format)
		}
	}

	// The dataset read as one table gives each heap dump's histogram.
	dir := t.TempDir()
	download(t, s, "fleet-out", "tables/", dir)
	duck := duckdbModulesForCLI(t)
	req, _ := json.Marshal(map[string]any{
		"views":   map[string]string{"classes": filepath.Join(dir, "classes", "**", "*.parquet")},
		"queries": []map[string]string{{"name": "q", "sql": "SELECT source, class, sum(instances) AS n, sum(shallow_bytes) AS b FROM classes GROUP BY ALL"}},
	})
	byInput := map[string]map[string][2]string{}
	for _, r := range duckdbRun(t, duck, req) {
		src := fmt.Sprint(r["source"])
		if byInput[src] == nil {
			byInput[src] = map[string][2]string{}
		}
		byInput[src][fmt.Sprint(r["class"])] = [2]string{fmt.Sprint(r["n"]), fmt.Sprint(r["b"])}
	}
	for key, src := range fleetInputs {
		g, err := convert.ConvertFile(context.Background(), testdata(src), convert.Options{Views: []string{graph.ViewHeap}})
		if err != nil || g.View(graph.ViewHeap) == nil {
			continue
		}
		want := map[string][2]int64{}
		for _, smp := range g.View(graph.ViewHeap).Samples {
			for _, l := range smp.Labels {
				if l.Key == graph.LabelClass {
					w := want[l.Str]
					want[l.Str] = [2]int64{w[0] + smp.Values[0], w[1] + smp.Values[1]}
				}
			}
		}
		got := byInput[strings.TrimSuffix(s.URL("fleet-in", key), "?"+s.Query())]
		if len(got) == 0 {
			t.Errorf("%s: no classes in the dataset", key)
			continue
		}
		for c, w := range want {
			if got[c] != [2]string{fmt.Sprint(w[0]), fmt.Sprint(w[1])} {
				t.Errorf("%s: %s: dataset %v, heap view %v", key, c, got[c], w)
				break
			}
		}
	}

	// A shard killed as it writes, then run again: the same files, no
	// duplicates, no staging left in the bucket.
	cmd := exec.Command(binPath, "convert", "--format", "parquet", "--shard", "0/2", "-d", s.URL("fleet-out", "killed/"), in)
	cmd.Env = append(os.Environ(), s.Env...)
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4096)
	var seen strings.Builder
	for !strings.Contains(seen.String(), "wrote ") {
		n, err := stderr.Read(buf)
		seen.Write(buf[:n])
		if err != nil {
			break
		}
	}
	cmd.Process.Kill()
	cmd.Wait()
	if code, msg := runEnv(t, s.Env, "convert", "-q", "--format", "parquet", "--shard", "0/2", "-d", s.URL("fleet-out", "killed/"), in); code != exitOK {
		t.Fatalf("rerun of the killed shard: exit %d\n%s", code, msg)
	}
	for k := range objects(t, s, "fleet-out", "killed/") {
		if strings.Contains(k, ".staging") {
			t.Errorf("staging object %s in the bucket", k)
		}
		if !strings.Contains(k, "/.") && !strings.HasPrefix(k, ".") && !tableKey(k, want) {
			t.Errorf("%s: not an output of the job", k)
		}
	}
}

func tableKey(k string, want []string) bool { return slices.Contains(want, k) }

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestFleetStorageErrors: -o takes an object's URL; a missing bucket, a
// missing key and a server that is gone give a clear error naming the URL
// and what was done, with the exit status a local failure has.
func TestFleetStorageErrors(t *testing.T) {
	s := s3test.Start(t)
	s.Bucket(t, "fleet-in")
	s.SetEnv(t)
	upload(t, s, "fleet-in", map[string]string{"d/x.hprof": "cpu-samples.cpuwork.jdk17.hprof"})
	// -o names an object: one view there, several beside it.
	if code, msg := runEnv(t, s.Env, "convert", "-q", "--view", "cpu", "-o", s.URL("fleet-in", "one/cpu.pb.gz"), s.URL("fleet-in", "d/x.hprof")); code != exitOK {
		t.Errorf("-o URL: exit %d\n%s", code, msg)
	}
	if code, msg := runEnv(t, s.Env, "convert", "-q", "-o", s.URL("fleet-in", "one/x.pb.gz"), testdata("cpu-samples.cpuwork.jdk17.hprof")); code != exitOK {
		t.Errorf("-o URL, several views: exit %d\n%s", code, msg)
	}
	if got := objects(t, s, "fleet-in", "one/"); len(got) != 3 || got["cpu.pb.gz"] == "" || got["x.cpu.pb.gz"] == "" || got["x.threads.pb.gz"] == "" {
		t.Errorf("-o URL wrote %v", got)
	}
	code, msg := runEnv(t, s.Env, "convert", "-q", "-d", s.URL("no-such-bucket", "out/"), s.URL("fleet-in", "d/"))
	if code != exitFailure || !strings.Contains(msg, "s3://no-such-bucket/out/") {
		t.Errorf("missing bucket: exit %d\n%s", code, msg)
	}
	code, msg = runEnv(t, s.Env, "convert", "-q", "-d", t.TempDir(), s.URL("fleet-in", "d/nope.hprof"))
	if code != exitFailure || !strings.Contains(msg, "s3://fleet-in/d/nope.hprof") {
		t.Errorf("missing key: exit %d\n%s", code, msg)
	}
	s.Stop()
	code, msg = runEnv(t, s.Env, "convert", "-q", "-d", t.TempDir(), s.URL("fleet-in", "d/"))
	if code == exitOK || !strings.Contains(msg, "s3://fleet-in/d/") {
		t.Errorf("server gone: exit %d\n%s", code, msg)
	}
}

// TestFleetRemoteGzip: info and the retained view read a JDK -gz dump
// from a bucket, its members fetched in ranges and inflated in parallel
// as for a local file, and agree with the local file's conversion.
func TestFleetRemoteGzip(t *testing.T) {
	s := s3test.Start(t)
	s.Bucket(t, "fleet-gz")
	s.SetEnv(t)
	upload(t, s, "fleet-gz", map[string]string{"d/compact.hprof.gz": "jdk25-compact-headers.hprof.gz"})
	url := s.URL("fleet-gz", "d/compact.hprof.gz")
	code, msg := runEnv(t, s.Env, "info", url)
	if code != exitOK || !strings.Contains(msg, "members inflated in parallel") || !strings.Contains(msg, "s3://fleet-gz/d/compact.hprof.gz") {
		t.Errorf("info %s: exit %d\n%s", url, code, msg)
	}
	dir := t.TempDir()
	remote, local := filepath.Join(dir, "remote.pb.gz"), filepath.Join(dir, "local.pb.gz")
	if code, msg := runEnv(t, s.Env, "convert", "-q", "--view", "retained", "-o", remote, url); code != exitOK {
		t.Fatalf("retained view from the bucket: exit %d\n%s", code, msg)
	}
	if code, msg := runEnv(t, s.Env, "convert", "-q", "--view", "retained", "-o", local, testdata("jdk25-compact-headers.hprof.gz")); code != exitOK {
		t.Fatalf("retained view: exit %d\n%s", code, msg)
	}
	a, b := totals(t, remote), totals(t, local)
	if a != b || a[0] == 0 {
		t.Errorf("retained total from the bucket %d, from the file %d", a, b)
	}
}
