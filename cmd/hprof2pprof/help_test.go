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
