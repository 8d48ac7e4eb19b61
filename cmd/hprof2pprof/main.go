// Command hprof2pprof converts Java HPROF files — heap dumps and hprof
// agent output, binary or text — into pprof, OTLP profiles and Parquet.
//
//	hprof2pprof convert [flags] INPUT...   convert to files
//	hprof2pprof info [--json] INPUT        describe an input
//	hprof2pprof capture [flags] PID...     heap dumps of running JVMs
//
// Exit status: 0 ok, 1 failure, 2 usage, 3 partial (damaged or truncated
// input: everything before the damage was written; or a view asked for
// no input has, the others written); capture also 4-7.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"syscall"

	"github.com/hprof2pprof/hprof2pprof/internal/batch"
)

// Exit codes.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
	exitPartial = 3
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr})
	stop()
	os.Exit(code)
}

// env is what a command may touch besides its arguments.
type env struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
}

// command is one subcommand. Each lives in its own file and registers
// itself with registerCommand from an init function.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, e *env, args []string) int
}

var commands = map[string]command{}

func registerCommand(c command) { commands[c.name] = c }

func run(ctx context.Context, args []string, e *env) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(e.stderr)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	if args[0] == "--version" || args[0] == "version" {
		fmt.Fprintln(e.stdout, versionText())
		return exitOK
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(e.stderr, "hprof2pprof: unknown command %q\n", args[0])
		usage(e.stderr)
		return exitUsage
	}
	return c.run(ctx, e, args[1:])
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: hprof2pprof COMMAND [flags] INPUT...")
	fmt.Fprintln(w, "\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-8s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nexit status: 0 ok, 1 failure, 2 usage, 3 partial (damaged or truncated input, or a view asked for missing; push: some views stored, others not)")
	fmt.Fprintln(w, "run 'hprof2pprof COMMAND -h' for a command's flags and examples; 'hprof2pprof --version' for the build")
}

// errorf prints "hprof2pprof: FILE: message" on stderr.
func errorf(e *env, file string, err error) {
	msg := batch.Message(err)
	if file != "" {
		fmt.Fprintf(e.stderr, "hprof2pprof: %s: %s\n", file, msg)
	} else {
		fmt.Fprintf(e.stderr, "hprof2pprof: %s\n", msg)
	}
}

// errUsage marks an error that should exit with status 2; it is the
// batch engine's, so that the engine's usage errors exit 2 too.
var errUsage = batch.ErrUsage
