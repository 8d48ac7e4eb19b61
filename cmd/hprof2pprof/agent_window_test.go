package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestAgentWindowFlag: agent's window length is --window, so that
// --interval means one thing across commands (convert's CPU sampling
// interval); --interval still sets the window for scripts that use it,
// giving both is a usage error, and the help says all of it.
func TestAgentWindowFlag(t *testing.T) {
	parse := func(args ...string) (time.Duration, int, string) {
		var stderr bytes.Buffer
		cfg, code := parseAgent(&env{stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: &stderr}, append([]string{"--out", t.TempDir()}, args...))
		if cfg.Listen == nil {
			return 0, code, stderr.String()
		}
		return cfg.Listen.Interval, code, stderr.String()
	}
	for _, c := range []struct {
		args []string
		want time.Duration
	}{
		{nil, 10 * time.Second},
		{[]string{"--window", "30s"}, 30 * time.Second},
		{[]string{"--interval", "20s"}, 20 * time.Second},
	} {
		if got, code, stderr := parse(c.args...); code != -1 || got != c.want {
			t.Errorf("agent %q: window %v, exit %d (%s); want %v", c.args, got, code, stderr, c.want)
		}
	}
	if _, code, stderr := parse("--window", "30s", "--interval", "20s"); code != exitUsage || !strings.Contains(stderr, "--window") {
		t.Errorf("agent --window and --interval: exit %d, %q; want a usage error naming --window", code, stderr)
	}
	_, stderr := runCLI(t, "agent", "--help")
	for _, want := range []string{"-window", "old spelling of --window", "hprof2pprof agent --out profiles/ --window 30s"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("agent --help does not say %q:\n%s", want, stderr)
		}
	}
}
