package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// parseInterspersed parses flags that may come before, between or after
// the positional arguments ("convert dump.hprof --view heap"). On -h it
// prints the command's help and returns flag.ErrHelp; on a bad flag it
// prints one line on w saying what is wrong and where help is.
func parseInterspersed(fs *flag.FlagSet, args []string, w io.Writer) ([]string, error) {
	// The flag package calls Usage on -h and after a bad flag alike:
	// only -h shows the help.
	help := fs.Usage
	fs.Usage = func() {}
	defer func() { fs.Usage = help }()
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if err == flag.ErrHelp {
				help()
			} else {
				usageError(w, fs.Name(), err.Error())
			}
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if rest[0] == "--" {
			return append(pos, rest[1:]...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// usageError prints a usage error of command cmd on one line: what is
// wrong and how to get the help.
func usageError(w io.Writer, cmd, msg string) {
	fmt.Fprintf(w, "hprof2pprof %s: %s (run 'hprof2pprof %s -h' for usage and examples)\n", cmd, msg, cmd)
}

// listFlag collects a flag given several times or comma-separated.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(s string) error {
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			*l = append(*l, p)
		}
	}
	return nil
}

func newFlagSet(name, args string, w io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	// The flag package writes nothing itself: a bad flag is one line
	// (usageError), -h the help below.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {
		fmt.Fprintf(w, "usage: hprof2pprof %s [flags] %s\n\nflags:\n", name, args)
		fs.SetOutput(w)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
		printExamples(w, name)
	}
	return fs
}

// parseExit is the exit status of a command whose flags did not parse:
// 0 after -h, else 2.
func parseExit(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	return exitUsage
}
