package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strings"
	"time"
)

func init() {
	registerCommand(command{name: "convert", summary: "convert inputs (files or directories) to pprof (or another --format)", run: runConvert})
}

// batchFlags are convert's flags for jobs over many inputs.
type batchFlags struct {
	sel         selection
	workers     int
	force       bool
	shard       string
	progress    string
	interval    time.Duration
	summaryPath string
}

// jobOnlyFlags do not change what is written for an input, so a rerun
// that differs only in them still skips inputs already done.
var jobOnlyFlags = map[string]bool{
	"o": true, "d": true, "q": true, "j": true, "force": true, "shard": true, "include": true, "exclude": true,
	"progress": true, "progress-interval": true, "summary": true,
}

// convertCmd is one run of convert: its flags, then the inputs it takes.
type convertCmd struct {
	fs     *flag.FlagSet
	df     decodeFlags
	dst    destination
	bf     batchFlags
	format string
	sh     shard
	f      outputFormat
}

func runConvert(ctx context.Context, e *env, args []string) int {
	c := &convertCmd{}
	args, code := c.parse(e, args)
	if code >= 0 {
		return code
	}
	all, mine, batch, code := c.inputs(e, args)
	if code >= 0 {
		return code
	}
	w, perInput, code := c.open(e, all)
	if code >= 0 {
		return code
	}
	start := time.Now()
	t := newTracker(e.stderr, c.bf.progress, c.bf.interval, mine)
	j := &job{
		e:        &env{stdin: e.stdin, stdout: e.stdout, stderr: t.log()},
		df:       &c.df,
		dst:      c.dst,
		perInput: perInput,
		w:        w,
		workers:  c.bf.workers,
		force:    c.bf.force,
		options:  shapingFlags(c.fs, c.format),
		inputs:   mine,
		tracker:  t,
		resuming: c.dst.Dir != "" && perInput,
	}
	if j.resuming {
		cleanStale(c.dst, all, mine)
	}
	j.run(ctx)
	closed, cerr := w.Close()
	for _, p := range closed {
		j.say("wrote %s\n", p)
	}
	t.finish()
	return c.summarize(e, j, closed, cerr, batch, time.Since(start))
}

// parse reads convert's flags and checks them; code is an exit status
// when the run ends here, else -1.
func (c *convertCmd) parse(e *env, args []string) (rest []string, code int) {
	fs := newFlagSet("convert", "INPUT...", e.stderr)
	c.fs = fs
	c.df.add(fs)
	bf, dst := &c.bf, &c.dst
	fs.StringVar(&dst.Out, "o", "", "output file for one view, or the name prefix for several ('-': standard output); one input only")
	fs.StringVar(&dst.Dir, "d", "", "output directory; directory inputs are mirrored under it, and a rerun skips inputs already converted")
	fs.StringVar(&c.format, "format", "pprof", "output format: "+strings.Join(formatNames(), ", "))
	fs.IntVar(&bf.workers, "j", runtime.NumCPU(), "inputs converted at once")
	fs.Var(&bf.sel.include, "include", "in directories, take only files matching these globs (base name, or relative path when the glob has a '/')")
	fs.Var(&bf.sel.exclude, "exclude", "in directories, skip files matching these globs")
	fs.BoolVar(&bf.force, "force", false, "convert inputs again even when their outputs are complete and newer")
	fs.StringVar(&bf.shard, "shard", "", "convert only shard i/n of the inputs (0 <= i < n), split by path")
	fs.StringVar(&bf.progress, "progress", progressAuto, "progress display: auto (bars on a terminal), bars, plain (lines for logs), none")
	fs.DurationVar(&bf.interval, "progress-interval", 10*time.Second, "time between --progress=plain lines")
	fs.StringVar(&bf.summaryPath, "summary", "", "write the job's summary as JSON to this file")
	for _, name := range formatNames() {
		if f := formats[name]; f.flags != nil {
			f.flags(fs)
		}
	}
	args, ok := c.df.parse(e, fs, args)
	if !ok {
		return nil, exitUsage
	}
	if len(args) == 0 {
		fs.Usage()
		return nil, exitUsage
	}
	if c.f, ok = formats[c.format]; !ok {
		errorf(e, "", fmt.Errorf("unknown --format %q (have %s)", c.format, strings.Join(formatNames(), ", ")))
		return nil, exitUsage
	}
	var err error
	if c.sh, err = parseShard(bf.shard); err != nil {
		errorf(e, "", err)
		return nil, exitUsage
	}
	if err := bf.check(); err != nil {
		errorf(e, "", err)
		return nil, exitUsage
	}
	if c.df.quiet {
		bf.progress = progressNone
	}
	return args, -1
}

// check checks the batch flags' values.
func (bf *batchFlags) check() error {
	switch bf.progress {
	case progressAuto, progressBars, progressPlain, progressNone:
	default:
		return fmt.Errorf("%w: --progress must be auto, bars, plain or none", errUsage)
	}
	if bf.workers < 1 || bf.interval <= 0 {
		return fmt.Errorf("%w: -j and --progress-interval must be positive", errUsage)
	}
	return nil
}

// inputs expands the arguments into every input (all), the ones of this
// shard (mine), and whether this is a batch (several inputs, a
// directory, or a shard).
func (c *convertCmd) inputs(e *env, args []string) (all, mine []input, batch bool, code int) {
	c.bf.sel.skipDir = c.dst.Dir
	all, err := expandInputs(args, c.bf.sel)
	if err != nil {
		errorf(e, "", err)
		return nil, nil, false, exitCode(err)
	}
	for _, in := range all {
		if c.sh.has(in.Key) {
			mine = append(mine, in)
		}
	}
	batch = len(args) != len(all) || len(all) > 1 || c.sh.Count > 1
	for _, in := range all {
		if fi, err := os.Stat(in.Path); err == nil && fi.IsDir() {
			batch = true
		}
	}
	return all, mine, batch, -1
}

// exitCode is the exit status of an error that ends a command: usage
// errors are exitUsage.
func exitCode(err error) int {
	if errors.Is(err, errUsage) {
		return exitUsage
	}
	return exitFailure
}

// open prepares the destination for every input and opens the format's
// writer.
func (c *convertCmd) open(e *env, all []input) (w formatWriter, perInput bool, code int) {
	dst := &c.dst
	if dst.Dir != "" {
		if err := os.MkdirAll(dst.Dir, 0o755); err != nil {
			errorf(e, dst.Dir, err)
			return nil, false, exitFailure
		}
	}
	dst.Views, dst.Stdout, dst.Shard = c.df.views, e.stdout, c.sh
	dst.Rel = map[string]string{}
	for _, in := range all {
		dst.Inputs = append(dst.Inputs, in.Path)
		dst.Rel[in.Path] = in.Rel
	}
	w, err := c.f.open(*dst)
	if err != nil {
		errorf(e, "", err)
		return nil, false, exitCode(err)
	}
	perInput = writesPerInput(w)
	if perInput && dst.Out != "" && len(all) > 1 {
		errorf(e, "", fmt.Errorf("%w: -o names the output of one input, but there are %d: use -d DIR", errUsage, len(all)))
		return nil, false, exitUsage
	}
	return w, perInput, -1
}

// summarize prints and writes the job's summary and returns its exit
// status.
func (c *convertCmd) summarize(e *env, j *job, closed []string, cerr error, batch bool, took time.Duration) int {
	s := newSummary(j.results, took)
	s.Format, s.Outputs = c.format, closed
	if c.sh.Count > 1 {
		s.Shard = c.sh.String()
	}
	if cerr != nil {
		errorf(e, "", cerr)
		s.Error, s.Exit = message(cerr), exitFailure
	}
	if batch && !c.df.quiet {
		s.print(e.stderr)
	}
	if c.bf.summaryPath != "" {
		if err := s.write(c.bf.summaryPath); err != nil {
			errorf(e, c.bf.summaryPath, err)
			s.Exit = exitFailure
		}
	}
	return s.Exit
}

// shapingFlags names the format and every flag given that changes what
// is written for an input, in a stable order.
func shapingFlags(fs *flag.FlagSet, format string) string {
	parts := []string{"format=" + format}
	fs.Visit(func(f *flag.Flag) {
		if !jobOnlyFlags[f.Name] && f.Name != "format" {
			parts = append(parts, f.Name+"="+f.Value.String())
		}
	})
	sort.Strings(parts[1:])
	return strings.Join(parts, " ")
}
