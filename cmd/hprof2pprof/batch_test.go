package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/hprof2pprof/hprof2pprof/internal/batch"
)

// binPath is the real hprof2pprof binary, built once by TestMain.
var binPath string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "hprof2pprof-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binPath = filepath.Join(dir, "hprof2pprof")
	if out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// runBin runs the built binary and returns its exit code and stderr.
func runBin(t *testing.T, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(binPath, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), stderr.String()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, stderr.String()
}

func testdata(name string) string { return filepath.Join("..", "..", "testdata", name) }

func copyFile(t *testing.T, src, dst string, limit int) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if limit > 0 && limit < len(data) {
		data = data[:limit]
	}
	writeFile(t, dst, data)
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// mixedDir builds a tree of good, gzip, truncated, empty and garbage
// inputs from the testdata files, and says how each should end.
func mixedDir(t *testing.T) (string, map[string]string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "dumps")
	want := map[string]string{}
	put := func(rel, src string, limit int, status string) {
		copyFile(t, testdata(src), filepath.Join(dir, rel), limit)
		want[filepath.Join(dir, rel)] = status
	}
	put("host1/cpu.hprof", "cpu-samples.cpuwork.jdk17.hprof", 0, batch.StatusOK)
	put("host1/sites.hprof", "heap-sites.allocwork.jdk17.hprof", 0, batch.StatusOK)
	put("host2/zoo.hprof.gz", "jdk25-zoo-live.hprof.gz", 0, batch.StatusOK)
	put("host2/deep/java.hprof.txt", "cpu-samples.cpuwork.jdk17.txt", 0, batch.StatusOK)
	put("host2/cut.hprof", "heap-dump.allocwork.jdk17.hprof", 100000, batch.StatusPartial)
	put("host3/killed.hprof", "killed-cpu-samples.cpuwork.jdk17.hprof", 0, batch.StatusPartial)

	// A text report compressed here, not in testdata.
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	text, err := os.ReadFile(testdata("cpu-samples.cpuwork.jdk25.txt"))
	if err != nil {
		t.Fatal(err)
	}
	zw.Write(text)
	zw.Close()
	writeFile(t, filepath.Join(dir, "host3/report.txt.gz"), gz.Bytes())
	want[filepath.Join(dir, "host3/report.txt.gz")] = batch.StatusOK

	garbage := make([]byte, 4096)
	rand.New(rand.NewSource(1)).Read(garbage)
	writeFile(t, filepath.Join(dir, "host3/garbage.hprof"), garbage)
	want[filepath.Join(dir, "host3/garbage.hprof")] = batch.StatusFailed
	writeFile(t, filepath.Join(dir, "host1/empty.hprof"), nil)
	want[filepath.Join(dir, "host1/empty.hprof")] = batch.StatusFailed

	// Never taken from a directory walk: hidden files and our outputs.
	writeFile(t, filepath.Join(dir, "host1/.hidden.hprof"), garbage)
	writeFile(t, filepath.Join(dir, "host1/old.heap.pb.gz"), garbage)
	return dir, want
}

func readSummary(t *testing.T, path string) batch.Summary {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var s batch.Summary
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return s
}

// listFiles returns the files under dir (relative, slash-separated);
// hidden ones only when hidden is set.
func listFiles(t *testing.T, dir string, hidden bool) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		if d.IsDir() || (!hidden && strings.HasPrefix(d.Name(), ".")) {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	sort.Strings(out)
	return out
}

// TestBatchMixedDirectory: one bad file never stops the job; each input
// gets the status its content calls for, the summary lists exactly the
// files written, every one of them a valid profile, and nothing is left
// under a temporary name.
func TestBatchMixedDirectory(t *testing.T) {
	dir, want := mixedDir(t)
	out := filepath.Join(t.TempDir(), "out")
	sum := filepath.Join(t.TempDir(), "summary.json")
	code, stderr := runBin(t, "convert", "-d", out, "-j", "3", "--summary", sum, dir)
	if code != exitFailure {
		t.Errorf("exit %d, want 1 (some failed)\n%s", code, stderr)
	}
	s := readSummary(t, sum)
	got := map[string]string{}
	var written []string
	for _, f := range s.Files {
		got[f.Input] = f.Status
		if f.Status == batch.StatusFailed && f.Reason == "" {
			t.Errorf("%s failed without a reason", f.Input)
		}
		if (f.Status == batch.StatusFailed || f.Status == batch.StatusPartial) && !strings.Contains(stderr, f.Input+": ") {
			t.Errorf("stderr does not name %s", f.Input)
		}
		for _, p := range f.Outputs {
			rel, _ := filepath.Rel(out, p)
			written = append(written, filepath.ToSlash(rel))
		}
	}
	if len(got) != len(want) {
		t.Errorf("summary has %d inputs, want %d: %v", len(got), len(want), got)
	}
	for in, st := range want {
		if got[in] != st {
			t.Errorf("%s: status %q, want %q", in, got[in], st)
		}
	}
	if s.OK != 5 || s.Partial != 2 || s.Failed != 2 || s.Exit != exitFailure {
		t.Errorf("counts ok %d partial %d failed %d exit %d; want 5 2 2 1", s.OK, s.Partial, s.Failed, s.Exit)
	}
	sort.Strings(written)
	if files := listFiles(t, out, false); !slices.Equal(files, written) {
		t.Errorf("files in -d:\n%v\nsummary outputs:\n%v", files, written)
	}
	for _, f := range written {
		if !strings.HasPrefix(f, "host") {
			t.Errorf("%s does not mirror the input tree", f)
		}
		data, err := os.ReadFile(filepath.Join(out, f))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := profile.ParseData(data); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	for _, f := range listFiles(t, out, true) {
		if strings.Contains(f, ".tmp-") {
			t.Errorf("temporary file left: %s", f)
		}
	}
	if !strings.Contains(stderr, "summary: 9 inputs: 5 ok, 2 partial, 2 failed, 0 up to date") {
		t.Errorf("no summary line in stderr:\n%s", stderr)
	}

	// Without the failing files the job is partial; without the damaged
	// ones too, it is all good.
	code, stderr = runBin(t, "convert", "-q", "-d", filepath.Join(t.TempDir(), "o2"), "--exclude", "garbage.hprof,empty.hprof", dir)
	if code != exitPartial {
		t.Errorf("exit %d without the failing files, want 3\n%s", code, stderr)
	}
	code, stderr = runBin(t, "convert", "-q", "-d", filepath.Join(t.TempDir(), "o3"), "--include", "host1/*", "--exclude", "empty.hprof", dir)
	if code != exitOK {
		t.Errorf("exit %d for the good files of host1, want 0\n%s", code, stderr)
	}
}

// TestBatchEqualsSingleFile: every file a batch writes, in each format
// that writes per input, is byte for byte what converting that input
// alone with `convert --view V -o FILE INPUT` writes.
func TestBatchEqualsSingleFile(t *testing.T) {
	dir, _ := mixedDir(t)
	for _, format := range []string{"pprof", "folded"} {
		t.Run(format, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			sum := filepath.Join(t.TempDir(), "summary.json")
			runBin(t, "convert", "-q", "--format", format, "-d", out, "-j", "4", "--summary", sum, dir)
			s := readSummary(t, sum)
			n := 0
			for _, f := range s.Files {
				for _, p := range f.Outputs {
					ext := ".pb.gz"
					if format == "folded" {
						ext = ".folded"
					}
					name := strings.TrimSuffix(filepath.Base(p), ext)
					view := name[strings.LastIndex(name, ".")+1:]
					single := filepath.Join(t.TempDir(), "single"+ext)
					if code, stderr := runBin(t, "convert", "-q", "--format", format, "--view", view, "-o", single, f.Input); code != exitOK && code != exitPartial {
						t.Fatalf("single %s: exit %d: %s", f.Input, code, stderr)
					}
					a, _ := os.ReadFile(p)
					b, _ := os.ReadFile(single)
					if len(a) == 0 || !bytes.Equal(a, b) {
						t.Errorf("%s differs from the single-file conversion of %s --view %s (%d vs %d bytes)", p, f.Input, view, len(a), len(b))
					}
					n++
				}
			}
			if n < 10 {
				t.Errorf("only %d outputs compared", n)
			}
		})
	}
}

// TestBatchShards: the shards of a job are disjoint, their union is the
// whole job, and together they write exactly the files the whole job
// writes, byte for byte.
func TestBatchShards(t *testing.T) {
	dir, want := mixedDir(t)
	whole := filepath.Join(t.TempDir(), "whole")
	runBin(t, "convert", "-q", "-d", whole, dir)
	parts := filepath.Join(t.TempDir(), "parts")
	seen := map[string]int{}
	const n = 3
	for i := range n {
		sum := filepath.Join(t.TempDir(), "summary.json")
		runBin(t, "convert", "-q", "-d", parts, "--shard", fmt.Sprintf("%d/%d", i, n), "--summary", sum, dir)
		s := readSummary(t, sum)
		if s.Shard != fmt.Sprintf("%d/%d", i, n) {
			t.Errorf("summary shard %q", s.Shard)
		}
		for _, f := range s.Files {
			seen[f.Input]++
		}
	}
	for in := range want {
		if seen[in] != 1 {
			t.Errorf("%s is in %d shards, want 1", in, seen[in])
		}
	}
	if len(seen) != len(want) {
		t.Errorf("shards cover %d inputs, want %d", len(seen), len(want))
	}
	a, b := listFiles(t, whole, false), listFiles(t, parts, false)
	if !slices.Equal(a, b) {
		t.Fatalf("whole job wrote\n%v\nshards wrote\n%v", a, b)
	}
	for _, f := range a {
		x, _ := os.ReadFile(filepath.Join(whole, f))
		y, _ := os.ReadFile(filepath.Join(parts, f))
		if !bytes.Equal(x, y) {
			t.Errorf("%s differs between the whole job and its shards", f)
		}
	}
	if code, _ := runBin(t, "convert", "-d", parts, "--shard", "3/3", dir); code != exitUsage {
		t.Errorf("--shard 3/3: exit %d, want 2", code)
	}
}

// TestBatchKilledAndResumed kills the real binary with SIGKILL while it
// converts a directory, then reruns it: nothing under a final name is
// half written, the rerun skips exactly the inputs the killed run
// finished, converts the rest, and the result equals an uninterrupted
// run's byte for byte.
func TestBatchKilledAndResumed(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "dumps")
	const inputs = 10
	for i := range inputs {
		dst := filepath.Join(dir, fmt.Sprintf("d%02d", i%4), fmt.Sprintf("zoo%02d.hprof", i))
		copyFile(t, testdata("jdk17-zoo-live.hprof"), dst, 0)
	}
	out := filepath.Join(t.TempDir(), "out")
	cmd := exec.Command(binPath, "convert", "-j", "1", "--progress", "plain", "-d", out, dir)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// With -j 1 an input is marked done before the next one starts, so
	// once outputs of two inputs were written, at least one is marked.
	sc := bufio.NewScanner(stderr)
	wrote := map[string]bool{}
	for len(wrote) < 2 && sc.Scan() {
		if p, ok := strings.CutPrefix(sc.Text(), "wrote "); ok {
			wrote[strings.TrimSuffix(strings.TrimSuffix(p, ".heap.pb.gz"), ".threads.pb.gz")] = true
		}
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()

	// Whatever is under a final name is complete.
	for _, f := range listFiles(t, out, false) {
		data, err := os.ReadFile(filepath.Join(out, f))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := profile.ParseData(data); err != nil {
			t.Errorf("after the kill, %s is not a whole profile: %v", f, err)
		}
	}
	marks := 0
	for _, f := range listFiles(t, out, true) {
		if strings.HasSuffix(f, batch.MarkSuffix) {
			marks++
		}
	}
	if marks == 0 {
		t.Fatal("no input was recorded as done before the kill")
	}
	if marks == inputs {
		t.Log("the job finished before the kill; the rerun only skips")
	}

	sum := filepath.Join(t.TempDir(), "summary.json")
	code, log := runBin(t, "convert", "-d", out, "--summary", sum, dir)
	if code != exitOK {
		t.Fatalf("rerun: exit %d\n%s", code, log)
	}
	s := readSummary(t, sum)
	if s.Skipped != marks || s.OK != inputs-marks {
		t.Errorf("rerun skipped %d and converted %d; the killed run had finished %d of %d", s.Skipped, s.OK, marks, inputs)
	}
	for _, f := range listFiles(t, out, true) {
		if strings.Contains(f, ".tmp-") {
			t.Errorf("the rerun left temporary file %s", f)
		}
	}
	fresh := filepath.Join(t.TempDir(), "fresh")
	runBin(t, "convert", "-q", "-d", fresh, dir)
	a, b := listFiles(t, out, false), listFiles(t, fresh, false)
	if !slices.Equal(a, b) || len(a) != 2*inputs {
		t.Fatalf("resumed job wrote\n%v\nan uninterrupted one\n%v", a, b)
	}
	for _, f := range a {
		x, _ := os.ReadFile(filepath.Join(out, f))
		y, _ := os.ReadFile(filepath.Join(fresh, f))
		if !bytes.Equal(x, y) {
			t.Errorf("%s differs from an uninterrupted run", f)
		}
	}

	// A third run skips everything; --force redoes everything.
	runBin(t, "convert", "-q", "-d", out, "--summary", sum, dir)
	if s := readSummary(t, sum); s.Skipped != inputs {
		t.Errorf("third run skipped %d of %d", s.Skipped, inputs)
	}
	runBin(t, "convert", "-q", "--force", "-d", out, "--summary", sum, dir)
	if s := readSummary(t, sum); s.OK != inputs {
		t.Errorf("--force converted %d of %d", s.OK, inputs)
	}
	// Other output flags redo the inputs too.
	runBin(t, "convert", "-q", "--view", "heap", "-d", out, "--summary", sum, dir)
	if s := readSummary(t, sum); s.OK != inputs {
		t.Errorf("--view heap after a full run converted %d of %d", s.OK, inputs)
	}
}

// TestBatchPlainProgress: --progress=plain writes progress lines with
// the counts, also when stderr is not a terminal; bars finish; -q is
// silent.
func TestBatchPlainProgress(t *testing.T) {
	dir, _ := mixedDir(t)
	_, stderr := runBin(t, "convert", "--progress", "plain", "-d", filepath.Join(t.TempDir(), "out"), dir)
	if !strings.Contains(stderr, "progress: files 9/9 (2 failed)") {
		t.Errorf("no final progress line:\n%s", stderr)
	}
	// Bars (forced off a terminal) finish, show the final count and let
	// every status line through.
	_, stderr = runBin(t, "convert", "--progress", "bars", "-j", "2", "-d", filepath.Join(t.TempDir(), "out"), dir)
	if !strings.Contains(stderr, "files 9/9 (2 failed)") || strings.Count(stderr, "wrote ") < 10 {
		t.Errorf("bars: no final count or missing status lines:\n%s", stderr)
	}
	_, stderr = runBin(t, "convert", "-q", "--progress", "plain", "-d", filepath.Join(t.TempDir(), "out"), dir)
	if strings.Contains(stderr, "progress:") || strings.Contains(stderr, "wrote") || strings.Contains(stderr, "summary:") {
		t.Errorf("-q printed progress or status:\n%s", stderr)
	}
}
