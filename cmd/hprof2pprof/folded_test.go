package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestFoldedMatchesReportTable converts a text report to folded stacks
// valued by sample count: the count of each leaf method, summed over the
// lines, equals the sum of the report's own CPU SAMPLES rows for it.
func TestFoldedMatchesReportTable(t *testing.T) {
	in := testdata("cpu-samples.cpuwork.jdk17.txt")
	out := filepath.Join(t.TempDir(), "cpu.folded")
	if code, stderr := runCLI(t, "convert", "--format", "folded", "--folded-type", "samples", "--view", "cpu", "-o", out, in); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want, total := fileCPUTable(t, in)
	got := map[string]int64{}
	var sum int64
	for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		i := strings.LastIndexByte(line, ' ')
		n, err := strconv.ParseInt(line[i+1:], 10, 64)
		if i < 0 || err != nil {
			t.Fatalf("bad line %q", line)
		}
		frames := strings.Split(line[:i], ";")
		got[frames[len(frames)-1]] += n
		sum += n
	}
	if sum != total {
		t.Errorf("folded total %d, the report's %d", sum, total)
	}
	for fn, n := range want {
		if got[fn] != n {
			t.Errorf("%s: folded %d, report rows %d", fn, got[fn], n)
		}
	}
	if len(got) != len(want) {
		t.Errorf("folded has %d leaf methods, the report %d", len(got), len(want))
	}
}
