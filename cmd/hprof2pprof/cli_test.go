package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hprof2pprof/hprof2pprof/convert/javaname"
)

func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.hprof")
	os.WriteFile(garbage, []byte("this is not a heap dump\n"), 0o644)
	for _, c := range []struct {
		args []string
		code int
		says string
	}{
		{nil, exitUsage, "usage"},
		{[]string{"frobnicate"}, exitUsage, "unknown command"},
		{[]string{"convert"}, exitUsage, "usage"},
		{[]string{"convert", "--ref-size", "5", "x"}, exitUsage, "--ref-size"},
		{[]string{"convert", "--format", "nope", "x"}, exitUsage, "unknown --format"},
		{[]string{"convert", "-d", dir, garbage}, exitFailure, "not an HPROF file (looks like a text file"},
		{[]string{"convert", "-d", dir, filepath.Join(dir, "missing.hprof")}, exitFailure, "no such file"},
		{[]string{"convert", "-d", dir, "--view", "cpu", "../../testdata/jdk17-zoo-live.hprof"}, exitFailure, "no cpu view"},
		{[]string{"convert", "-d", dir, "../../testdata/killed-cpu-samples.cpuwork.jdk17.hprof"}, exitPartial, "STRING IN UTF8 record at byte 65523"},
		{[]string{"info", "../../testdata/killed-cpu-samples.cpuwork.jdk17.hprof"}, exitPartial, "partial"},
		{[]string{"convert", "-d", dir, "../../testdata/cpu-samples.cpuwork.jdk17.hprof"}, exitOK, "wrote"},
	} {
		code, stderr := runCLI(t, c.args...)
		if code != c.code || !strings.Contains(stderr, c.says) {
			t.Errorf("%v: exit %d, want %d; stderr %q should say %q", c.args, code, c.code, stderr, c.says)
		}
	}
}

func TestOutputNames(t *testing.T) {
	dir := t.TempDir()
	in := "../../testdata/heap-all-cpu-samples.allocwork.jdk25.hprof"
	if code, stderr := runCLI(t, "convert", "-q", "-d", dir, in); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, v := range []string{"cpu", "alloc", "heap", "threads"} {
		if _, err := os.Stat(filepath.Join(dir, "heap-all-cpu-samples.allocwork.jdk25.hprof."+v+".pb.gz")); err != nil {
			t.Error(err)
		}
	}
	// One view and -o: exactly that file. Flags after the input work too.
	out := filepath.Join(dir, "exact.pb.gz")
	if code, stderr := runCLI(t, "convert", in, "--view", "heap", "-o", out); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(out); err != nil {
		t.Error(err)
	}
	// Several views and -o: a prefix.
	if code, stderr := runCLI(t, "convert", "-o", filepath.Join(dir, "p"), "--view", "cpu,heap", in); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, v := range []string{"cpu", "heap"} {
		if _, err := os.Stat(filepath.Join(dir, "p."+v+".pb.gz")); err != nil {
			t.Error(err)
		}
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".*tmp*"))
	if len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// TestPprofTopHeapIsClassHistogram converts the heap view with the CLI
// and reads it with the real `go tool pprof -top`: every class's flat
// object count equals the oracle's histogram, summed over the classes
// whose names normalise alike (javaname.Normalize), or per exact name
// with --raw-names.
func TestPprofTopHeapIsClassHistogram(t *testing.T) {
	in := "../../testdata/jdk17-zoo-live.hprof"
	for _, raw := range []bool{false, true} {
		out := filepath.Join(t.TempDir(), "heap.pb.gz")
		// The oracle's size model, to compare with it.
		args := []string{"convert", "--view", "heap", "--size-model", "visualvm", "-o", out, in}
		if raw {
			args = append(args, "--raw-names")
		}
		if code, stderr := runCLI(t, args...); code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		flat := pprofTopFlat(t, out)
		want := map[string]int64{}
		for _, r := range readCSV(t, in+".oracle/histogram-by-name.csv")[1:] {
			n, _ := strconv.ParseInt(r[1], 10, 64)
			if !raw {
				r[0] = javaname.Normalize(r[0])
			}
			want[r[0]] += n
		}
		checked := 0
		for c, n := range want {
			if n == 0 {
				continue
			}
			if flat[c] != n {
				t.Errorf("raw names %v: %s: pprof -top flat %d, oracle %d", raw, c, flat[c], n)
			}
			checked++
		}
		if checked < 500 {
			t.Errorf("only %d classes checked", checked)
		}
	}
}

// pprofTopFlat runs `go tool pprof -top` on a heap profile and returns
// each function's flat object count.
func pprofTopFlat(t *testing.T, path string) map[string]int64 {
	t.Helper()
	cmd := exec.Command("go", "tool", "pprof", "-top", "-nodecount=100000", "-nodefraction=0", "-sample_index=inuse_objects", path)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("go tool pprof: %v\n%s", err, stderr.String())
	}
	flat := map[string]int64{}
	sc := bufio.NewScanner(&stdout)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 6 || !strings.HasSuffix(f[1], "%") {
			continue
		}
		n, err := strconv.ParseInt(f[0], 10, 64)
		if err == nil && n > 0 {
			flat[f[5]] = n
		}
	}
	return flat
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func TestInfoJSON(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), []string{"info", "--json", "../../testdata/cpu-samples.cpuwork.jdk17.hprof"}, &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr})
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	for _, want := range []string{`"version": "JAVA PROFILE 1.0.2"`, `"id_size": 4`, `"CPU SAMPLES": 1`, `"samples/count": 932`} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("info --json lacks %s", want)
		}
	}
}

func TestStdin(t *testing.T) {
	f, err := os.Open("../../testdata/jdk25-zoo-live.hprof.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), []string{"convert", "--view", "heap", "-o", "-", "-"}, &env{stdin: f, stdout: &stdout, stderr: &stderr})
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if stdout.Len() < 1000 || stdout.Bytes()[0] != 0x1f {
		t.Errorf("stdout holds %d bytes, want a gzipped profile", stdout.Len())
	}
}

// TestFirstHourMessages: messages a person meets in the first hour say
// what happened, whole: paths are printed as given, the views listed are
// the input's own, usage errors are one line.
func TestFirstHourMessages(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "nope", "java_pid123.hprof")
	for _, c := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"convert", "-d", dir, missing}, exitFailure, "open " + missing + ": no such file or directory\n"},
		{[]string{"convert", "-d", dir, "--view", "cpu", "../../testdata/jdk17-zoo-live.hprof"}, exitFailure, "no cpu view in this input (it has: heap, threads)\n"},
		{[]string{"convert", "-d", dir, "--view", "bogus", "../../testdata/jdk17-zoo-live.hprof"}, exitUsage, `unknown view "bogus" (known: cpu, alloc, heap, threads, cputime, monitor, cpuold, retained, paths)`},
		{[]string{"convert", "-d", dir, "--view", "heap,cpu", "../../testdata/cpu-samples.cpuwork.jdk17.hprof"}, exitPartial, "no heap view in this input (it has: cpu, threads)\n"},
		{[]string{"convert", "-d", dir, "--view", "retained", "-"}, exitUsage, "standard input cannot be read twice"},
	} {
		code, stderr := runCLI(t, c.args...)
		if code != c.code || !strings.Contains(stderr, c.says) {
			t.Errorf("%v: exit %d, want %d; stderr %q should say %q", c.args, code, c.code, stderr, c.says)
		}
	}
}

// TestUsageErrorsAreOneLine: a usage error says what is wrong and where
// help is, on one line; COMMAND -h is the help, and exits 0.
func TestUsageErrorsAreOneLine(t *testing.T) {
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"convert"}, "no input"},
		{[]string{"convert", "--no-such-flag", "x"}, "-no-such-flag"},
		{[]string{"push", "x.hprof"}, "--endpoint"},
		{[]string{"info", "a", "b"}, "one input"},
		{[]string{"info"}, "one input"},
	} {
		code, stderr := runCLI(t, c.args...)
		cmd := c.args[0]
		if code != exitUsage || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, c.says) || !strings.Contains(stderr, "hprof2pprof "+cmd+" -h") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line saying %q and 'hprof2pprof %s -h'", c.args, code, stderr, c.says, cmd)
		}
	}
	for _, cmd := range []string{"convert", "info", "push", "agent", "capture"} {
		for _, h := range []string{"-h", "--help"} {
			if code, stderr := runCLI(t, cmd, h); code != exitOK || !strings.Contains(stderr, "usage: hprof2pprof "+cmd) {
				t.Errorf("%s %s: exit %d, want 0 and the help:\n%s", cmd, h, code, stderr)
			}
		}
	}
	// info writes no view: its -view says what it does there.
	if _, help := runCLI(t, "info", "-h"); !strings.Contains(help, "views to describe") || strings.Contains(help, "views to write") {
		t.Errorf("info -h does not say what -view does for info:\n%s", help)
	}
}

// TestDamageMessages: the exit status and the message of a damaged
// input agree, an offset is said once, and what was lost reads as lost.
func TestDamageMessages(t *testing.T) {
	dir := t.TempDir()
	cut := func(name string, n int) string {
		data, err := os.ReadFile(filepath.Join("../../testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, strconv.Itoa(n)+"-"+name)
		os.WriteFile(p, data[:n], 0o644)
		return p
	}
	// Cut before any view is complete: nothing is written, so the input
	// failed.
	code, stderr := runCLI(t, "convert", "-d", dir, cut("jdk17-zoo-live.hprof", 100000))
	if code != exitFailure || strings.Contains(stderr, "partial") || !strings.Contains(stderr, "nothing written") {
		t.Errorf("cut at 100 kB: exit %d, stderr %q; want 1 and nothing written, not partial", code, stderr)
	}
	var stdout bytes.Buffer
	var errs bytes.Buffer
	code = run(context.Background(), []string{"info", "-q", cut("jdk17-zoo-live.hprof", 3000000)}, &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &errs})
	if code != exitPartial || regexp.MustCompile(`at byte \d+ at byte`).MatchString(stdout.String()+errs.String()) {
		t.Errorf("info on a cut dump: exit %d, an offset said twice:\n%s%s", code, stdout.String(), errs.String())
	}
	// A report whose writer was killed after its header.
	killed := cut("cpu-samples.cpuwork.jdk17.txt", 36449) // before CPU SAMPLES BEGIN
	for _, args := range [][]string{{"info", "-q", killed}, {"convert", "-q", "-d", dir, killed}} {
		if _, stderr := runCLI(t, args...); !strings.Contains(stderr, "lost: everything the writer had not flushed") {
			t.Errorf("%v: %q does not say what was lost as lost", args, stderr)
		}
	}
	stdout.Reset()
	run(context.Background(), []string{"info", "-q", "../../testdata/heap-dump.allocwork.jdk17.txt.gz"}, &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &errs})
	if !strings.Contains(stdout.String(), "bytes:       2735925 inflated (the gzip file holds 290040)\n") {
		t.Errorf("info on a .gz does not say its bytes are inflated, and the file's size:\n%s", stdout.String())
	}
}
