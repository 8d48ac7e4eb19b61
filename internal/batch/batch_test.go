package batch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// copyInto copies testdata files into dir under the names given (rel →
// testdata name).
func copyInto(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for rel, src := range files {
		data, err := os.ReadFile(testdata(src))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, rel), data)
	}
}

// recorder keeps a job's events, per input, in the order they came.
type recorder struct {
	mu      sync.Mutex
	planned []Input
	closed  []string        // Wrote with Index -1
	byInput map[int][]Event // every other event, per input
}

func (r *recorder) event(ev Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case ev.Kind == Planned:
		if r.planned != nil || len(r.byInput) > 0 {
			panic("Planned not first, or twice")
		}
		r.planned = ev.Inputs
		r.byInput = map[int][]Event{}
	case ev.Kind == Wrote && ev.Index < 0:
		r.closed = append(r.closed, ev.Path)
	default:
		r.byInput[ev.Index] = append(r.byInput[ev.Index], ev)
	}
}

// steps lists the kinds of an input's events, Read and Phase left out
// (how many come depends on the decoder).
func (r *recorder) steps(i int) []EventKind {
	var out []EventKind
	for _, ev := range r.byInput[i] {
		if ev.Kind != Read && ev.Kind != Phase {
			out = append(out, ev.Kind)
		}
	}
	return out
}

func (r *recorder) wrote(i int) []string {
	var out []string
	for _, ev := range r.byInput[i] {
		if ev.Kind == Wrote {
			out = append(out, ev.Path)
		}
	}
	return out
}

// TestRunEvents: a job over a directory reports each input as Started,
// Wrote (its outputs, as the summary lists them), then Finished with its
// result; a damaged input adds a Problem; a rerun into the same Dir
// skips every input it completed, and Force converts them again.
func TestRunEvents(t *testing.T) {
	in, out := t.TempDir(), t.TempDir()
	copyInto(t, in, map[string]string{
		"a/cpu.hprof":    "cpu-samples.cpuwork.jdk17.hprof",
		"a/cpu.txt":      "cpu-samples.cpuwork.jdk17.txt",
		"b/killed.hprof": "killed-cpu-samples.cpuwork.jdk17.hprof",
		"b/cpu.hprof.gz": "cpu-samples.cpuwork.jdk17.hprof.bz2", // named gzip, read as the bzip2 it is
	})
	all, err := Expand([]string{in}, Selection{})
	if err != nil {
		t.Fatal(err)
	}
	job := func(rec *recorder, force bool) Job {
		return Job{Inputs: all, Dir: out, Format: "pprof", Workers: 2, Force: force, Shape: "format=pprof", Events: rec.event}
	}

	rec := &recorder{}
	s, err := Run(context.Background(), job(rec, false))
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.planned) != len(all) || s.Inputs != len(all) || s.OK != 3 || s.Partial != 1 || s.Exit != ExitPartial {
		t.Fatalf("planned %d, summary %+v", len(rec.planned), s)
	}
	for i, res := range s.Files {
		want := []EventKind{Started, Wrote, Finished}
		if res.Status == StatusPartial {
			want = []EventKind{Started, Wrote, Problem, Finished}
		}
		for range len(res.Outputs) - 1 {
			want = slices.Insert(want, 1, Wrote)
		}
		if got := rec.steps(i); !slices.Equal(got, want) {
			t.Errorf("%s: events %v, want %v", res.Input, got, want)
		}
		if got := rec.wrote(i); !slices.Equal(got, res.Outputs) || len(got) == 0 {
			t.Errorf("%s: Wrote %q, summary outputs %q", res.Input, got, res.Outputs)
		}
		last := rec.byInput[i][len(rec.byInput[i])-1]
		if last.Result == nil || last.Result.Status != res.Status {
			t.Errorf("%s: Finished with %+v, summary %+v", res.Input, last.Result, res)
		}
		for _, p := range res.Outputs {
			if !strings.HasPrefix(p, out) {
				t.Errorf("%s: output %s not under %s", res.Input, p, out)
			}
		}
	}

	rec = &recorder{}
	s, err = Run(context.Background(), job(rec, false))
	if err != nil {
		t.Fatal(err)
	}
	if s.Skipped != len(all) || s.Exit != ExitPartial {
		t.Errorf("rerun: %+v, want every input skipped, exit still partial", s)
	}
	for i := range all {
		if got := rec.steps(i); !slices.Equal(got, []EventKind{Skipped}) {
			t.Errorf("rerun, input %d: events %v, want [Skipped]", i, got)
		}
	}

	rec = &recorder{}
	if s, err = Run(context.Background(), job(rec, true)); err != nil || s.Skipped != 0 || s.OK != 3 {
		t.Errorf("forced rerun: %+v, %v", s, err)
	}
}

// TestRunGathered: a gathering format (Parquet) reports the files it
// wrote on closing as Wrote events with Index -1, as the summary's
// Outputs; a shard converts only its inputs and writes into its own
// directory.
func TestRunGathered(t *testing.T) {
	in, out := t.TempDir(), t.TempDir()
	copyInto(t, in, map[string]string{
		"x.hprof": "cpu-samples.cpuwork.jdk17.hprof",
		"y.hprof": "heap-sites.allocwork.jdk17.hprof",
		"z.txt":   "cpu-samples.cpuwork.jdk17.txt",
	})
	all, err := Expand([]string{in}, Selection{})
	if err != nil {
		t.Fatal(err)
	}
	sh := Shard{1, 2}
	rec := &recorder{}
	s, err := Run(context.Background(), Job{Inputs: all, Shard: sh, Dir: out, Format: "parquet", FormatOptions: FormatOptions{Single: true}, Workers: 2, Events: rec.event})
	if err != nil {
		t.Fatal(err)
	}
	mine := sh.Select(all)
	if len(rec.planned) != len(mine) || s.Inputs != len(mine) || s.Shard != "1/2" {
		t.Errorf("planned %d, summary %+v; want the %d inputs of shard 1/2", len(rec.planned), s, len(mine))
	}
	if len(s.Outputs) == 0 || !slices.Equal(rec.closed, s.Outputs) {
		t.Errorf("Wrote on close %q, summary outputs %q", rec.closed, s.Outputs)
	}
	for _, p := range s.Outputs {
		if filepath.Dir(p) != filepath.Join(out, "shard-1-of-2") {
			t.Errorf("table %s not in the shard's directory", p)
		}
	}
}

// TestRunSetupErrors: a job that cannot start returns no summary, and a
// usage error (format and destination that do not fit) wraps ErrUsage.
func TestRunSetupErrors(t *testing.T) {
	two := []Input{{Path: "a.hprof", Key: "a.hprof", Rel: "a.hprof"}, {Path: "b.hprof", Key: "b.hprof", Rel: "b.hprof"}}
	file := filepath.Join(t.TempDir(), "file")
	writeFile(t, file, nil)
	for _, c := range []struct {
		name  string
		job   Job
		usage bool
	}{
		{"parquet without a directory", Job{Inputs: two[:1], Out: "x", Format: "parquet"}, true},
		{"one -o, two inputs", Job{Inputs: two, Out: "x.pb.gz", Format: "pprof", Views: []string{"cpu"}}, true},
		{"unknown format", Job{Inputs: two, Format: "bogus"}, true},
		{"directory under a file", Job{Inputs: two, Dir: filepath.Join(file, "out"), Format: "pprof"}, false},
	} {
		s, err := Run(context.Background(), c.job)
		if s != nil || err == nil || errors.Is(err, ErrUsage) != c.usage {
			t.Errorf("%s: summary %v, error %v (usage %v)", c.name, s, err, c.usage)
		}
	}
}

// TestExpand: a directory walk takes files in path order, skips hidden
// files and this tool's own outputs, applies the globs and names the
// outputs without a compression suffix unless two inputs would share
// them; a file reached twice is kept once, one that cannot be read is
// kept for the job to report, and a bad glob is a usage error.
func TestExpand(t *testing.T) {
	dir := t.TempDir()
	for _, rel := range []string{"b/2.hprof", "a/1.hprof.gz", "a/1.hprof", "c/3.hprof.bz2", ".hidden/x.hprof", "a/.y.hprof", "a/1.hprof.heap.pb.gz", "a/skip.txt"} {
		writeFile(t, filepath.Join(dir, rel), []byte("x"))
	}
	missing := filepath.Join(dir, "missing.hprof")
	ins, err := Expand([]string{dir, filepath.Join(dir, "b", "2.hprof"), missing}, Selection{Exclude: []string{"*.txt"}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, in := range ins {
		got = append(got, in.Key+"→"+in.Rel)
	}
	want := []string{"a/1.hprof→a/1.hprof", "a/1.hprof.gz→a/1.hprof.gz", "b/2.hprof→b/2.hprof", "c/3.hprof.bz2→c/3.hprof", filepath.ToSlash(missing) + "→missing.hprof"}
	if !slices.Equal(got, want) {
		t.Errorf("Expand: %q\nwant %q", got, want)
	}
	if last := ins[len(ins)-1]; last.Size != -1 {
		t.Errorf("a missing input has size %d, want -1", last.Size)
	}
	ins, err = Expand([]string{dir}, Selection{Include: []string{"a/*"}})
	if err != nil || len(ins) != 3 {
		t.Errorf("--include a/*: %d inputs, %v; want a/'s three", len(ins), err)
	}
	if _, err := Expand([]string{dir}, Selection{Include: []string{"["}}); !errors.Is(err, ErrUsage) {
		t.Errorf("bad glob: %v, want a usage error", err)
	}
}

// TestShards: the shards of a job split its inputs, each to exactly one
// shard; a bad shard is a usage error.
func TestShards(t *testing.T) {
	var all []Input
	for _, k := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
		all = append(all, Input{Path: k, Key: k})
	}
	seen := map[string]int{}
	for i := range 3 {
		s, err := ParseShard(Shard{i, 3}.String())
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range s.Select(all) {
			seen[in.Key]++
		}
	}
	for _, in := range all {
		if seen[in.Key] != 1 {
			t.Errorf("input %s in %d shards", in.Key, seen[in.Key])
		}
	}
	if s, err := ParseShard(""); err != nil || len(s.Select(all)) != len(all) {
		t.Errorf("the whole job: %v, %v", s, err)
	}
	for _, bad := range []string{"3/3", "-1/2", "x", "1/0"} {
		if _, err := ParseShard(bad); !errors.Is(err, ErrUsage) {
			t.Errorf("ParseShard(%q): %v, want a usage error", bad, err)
		}
	}
}

// TestMessage: the sentinel prefixes go where a part of the message
// begins, never from inside a path.
func TestMessage(t *testing.T) {
	for in, want := range map[string]string{
		"open /tmp/nope/java_pid123.hprof: no such file or directory": "open /tmp/nope/java_pid123.hprof: no such file or directory",
		"STRING IN UTF8 record at byte 65523: hprof: truncated":       "STRING IN UTF8 record at byte 65523: truncated",
		"hprof: not an HPROF file (looks like a text file)":           "not an HPROF file (looks like a text file)",
		"convert: memory limit reached":                               "memory limit reached",
		"a.hprof: hprof: corrupt":                                     "a.hprof: corrupt",
	} {
		if got := Message(errors.New(in)); got != want {
			t.Errorf("Message(%q) = %q, want %q", in, got, want)
		}
	}
}
