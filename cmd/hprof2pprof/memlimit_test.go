package main

import (
	"math"
	"runtime/debug"
	"strings"
	"testing"
)

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "4096": 4096, "4GiB": 4 << 30, "4G": 4 << 30, "512MB": 512 << 20, "1.5g": 3 << 29, "100K": 100 << 10} {
		got, err := parseSize(in)
		if err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "x", "-1G", "4Q"} {
		if _, err := parseSize(bad); err == nil {
			t.Errorf("parseSize(%q) accepted", bad)
		}
	}
}

func TestMaxMemoryFlag(t *testing.T) {
	const in = "../../testdata/jdk17-zoo-live.hprof"
	// The flag also sets the process's GC limit; undo it for the tests
	// that follow.
	defer debug.SetMemoryLimit(math.MaxInt64)
	code, stderr := runCLI(t, "info", "-q", "--max-memory", "1K", in)
	if code != exitFailure || !strings.Contains(stderr, "memory limit") || !strings.Contains(stderr, "--max-memory") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if code, stderr := runCLI(t, "info", "-q", "--max-memory", "0", in); code != exitOK {
		t.Fatalf("no limit: exit %d, %s", code, stderr)
	}
	if code, _ := runCLI(t, "info", "--max-memory", "lots", in); code != exitUsage {
		t.Fatalf("bad size: exit %d, want usage", code)
	}
}
