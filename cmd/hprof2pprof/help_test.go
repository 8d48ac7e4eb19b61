package main

import (
	"bytes"
	"context"
	"runtime"
	"strings"
	"testing"
)

func TestVersion(t *testing.T) {
	for _, arg := range []string{"--version", "version"} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), []string{arg}, &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr})
		// The toolchain's own record of the build, not a string of ours.
		if code != exitOK || !strings.HasPrefix(stdout.String(), "hprof2pprof ") || !strings.Contains(stdout.String(), runtime.Version()) {
			t.Errorf("%s: exit %d, stdout %q; want 0 and the build's version", arg, code, stdout.String())
		}
	}
}

func TestHelpShowsExamples(t *testing.T) {
	for _, cmd := range []string{"convert", "info", "push", "agent"} {
		code, stderr := runCLI(t, cmd, "--help")
		if code != exitUsage && code != exitOK {
			t.Errorf("%s --help: exit %d", cmd, code)
		}
		if !strings.Contains(stderr, "examples:\n  hprof2pprof "+cmd) {
			t.Errorf("%s --help shows no example of the command:\n%s", cmd, stderr)
		}
	}
}

// --raw-names is on every command that writes names, and not on info,
// which writes none; info keeps the flags it uses (--view retained and
// the spill flags describe the retained view).
func TestRawNamesFlag(t *testing.T) {
	for _, cmd := range []string{"convert", "push", "capture", "agent", "info"} {
		_, stderr := runCLI(t, cmd, "-h")
		if has := strings.Contains(stderr, "-raw-names"); has != (cmd != "info") {
			t.Errorf("%s -h lists --raw-names: %v", cmd, has)
		}
		if cmd == "info" {
			for _, f := range []string{"-view", "-spill-dir", "-retained-memory", "-interval", "-mapping"} {
				if !strings.Contains(stderr, "\n  "+f+" ") {
					t.Errorf("info -h does not list %s, which info uses", f)
				}
			}
		}
	}
}
