package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// lambdaSamples counts, from a text report's own TRACE records and CPU
// SAMPLES rows, the samples whose stack holds a lambda frame.
func lambdaSamples(t *testing.T, path string) int64 {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	withLambda := map[string]bool{}
	trace, inSamples := "", false
	var n int64
	for _, line := range strings.Split(string(data), "\n") {
		switch {
		case strings.HasPrefix(line, "TRACE "):
			trace = strings.TrimSuffix(strings.TrimPrefix(line, "TRACE "), ":")
		case strings.HasPrefix(line, "\t") && trace != "":
			if strings.Contains(line, "$$Lambda") {
				withLambda[trace] = true
			}
		case strings.HasPrefix(line, "CPU SAMPLES BEGIN"):
			trace, inSamples = "", true
		case line == "CPU SAMPLES END":
			inSamples = false
		case inSamples:
			f := strings.Fields(line)
			if len(f) == 6 && withLambda[f[4]] {
				c, _ := strconv.ParseInt(f[3], 10, 64)
				n += c
			}
		default:
			trace = ""
		}
	}
	return n
}

// pprofCum runs `go tool pprof -top -cum` with args and returns each
// function's cumulative value.
func pprofCum(t *testing.T, args ...string) map[string]int64 {
	t.Helper()
	cmd := exec.Command("go", append([]string{"tool", "pprof", "-top", "-cum", "-nodecount=100000", "-nodefraction=0", "-edgefraction=0", "-sample_index=samples"}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("go tool pprof %v: %v\n%s", args, err, stderr.String())
	}
	cum := map[string]int64{}
	sc := bufio.NewScanner(&stdout)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 6 || !strings.HasSuffix(f[4], "%") {
			continue
		}
		if n, err := strconv.ParseInt(f[3], 10, 64); err == nil {
			cum[f[5]] = n
		}
	}
	return cum
}

func lambdaKeys(m map[string]int64) []string {
	var out []string
	for k := range m {
		if strings.Contains(k, "$$Lambda") {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// TestDiffBaseMatchesLambdas compares two CPU runs of one program (JDK
// 17 and JDK 25, whose lambda classes have other indexes and addresses)
// with the real `go tool pprof -diff_base`: their lambda frames are one
// function, whose cumulative difference is what the two reports' own
// traces and counts give. With --raw-names each run keeps its exact
// names, which match nothing in the other run.
func TestDiffBaseMatchesLambdas(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join("..", "..", "testdata", "cpu-samples.cpuwork.jdk17.txt")
	b := filepath.Join("..", "..", "testdata", "cpu-samples.cpuwork.jdk25.txt")
	conv := func(in, name string, flags ...string) string {
		out := filepath.Join(dir, name)
		args := append([]string{"convert", "-q", "--view", "cpu", "-o", out}, flags...)
		if code, stderr := runCLI(t, append(args, in)...); code != exitOK {
			t.Fatalf("convert %s: exit %d: %s", in, code, stderr)
		}
		return out
	}
	pa, pb := conv(a, "a.pb.gz"), conv(b, "b.pb.gz")
	diff := pprofCum(t, "-diff_base="+pa, pb)
	if got, want := lambdaKeys(diff), []string{"CpuWork$$Lambda.run"}; !slices.Equal(got, want) {
		t.Errorf("lambda functions of the diff %q, want %q", got, want)
	}
	na, nb := lambdaSamples(t, a), lambdaSamples(t, b)
	if na == 0 || nb == 0 {
		t.Fatalf("the reports have %d and %d samples with a lambda frame", na, nb)
	}
	if got := diff["CpuWork$$Lambda.run"]; got != nb-na {
		t.Errorf("CpuWork$$Lambda.run: diff cum %d, want %d - %d = %d", got, nb, na, nb-na)
	}

	// The exact names are the functions' system names, and the profile
	// with functions alike in name is valid.
	p := readPprof(t, pa)
	if err := p.CheckValid(); err != nil {
		t.Fatal(err)
	}
	var systems []string
	for _, fn := range p.Function {
		if fn.Name == "CpuWork$$Lambda.run" {
			systems = append(systems, fn.SystemName)
		}
	}
	if len(systems) < 2 || !slices.ContainsFunc(systems, func(s string) bool { return strings.HasPrefix(s, "CpuWork$$Lambda$42.0x00000007c00c1670.run") }) {
		t.Errorf("system names of CpuWork$$Lambda.run %q: want the exact names, CpuWork$$Lambda$42.0x00000007c00c1670.run among them", systems)
	}

	ra, rb := conv(a, "ra.pb.gz", "--raw-names"), conv(b, "rb.pb.gz", "--raw-names")
	raw := lambdaKeys(pprofCum(t, "-diff_base="+ra, rb))
	if !slices.Contains(raw, "CpuWork$$Lambda$42.0x00000007c00c1670.run") || !slices.Contains(raw, "CpuWork$$Lambda.0x0000000088083230.run") {
		t.Errorf("--raw-names: lambda functions %q, want each run's exact names", raw)
	}
}
