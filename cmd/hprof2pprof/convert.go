package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/hprof2pprof/hprof2pprof/internal/batch"
)

func init() {
	registerCommand(command{name: "convert", summary: "convert inputs (files or directories) to pprof (or another --format)", run: runConvert})
}

// batchFlags are convert's flags for jobs over many inputs.
type batchFlags struct {
	sel         batch.Selection
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
	bf     batchFlags
	out    string
	dir    string
	format string
	fo     batch.FormatOptions
	folded listFlag
	sh     batch.Shard
}

func runConvert(ctx context.Context, e *env, args []string) int {
	c := &convertCmd{}
	args, code := c.parse(e, args)
	if code >= 0 {
		return code
	}
	all, isBatch, code := c.inputs(e, args)
	if code >= 0 {
		return code
	}
	opts := c.df.options()
	applyMemoryLimit(opts.MaxMemory)
	c.fo.FoldedTypes = c.folded

	v := &convertView{e: e, quiet: c.df.quiet, mode: c.bf.progress, interval: c.bf.interval, listed: isBatch && !c.df.quiet}
	s, err := batch.Run(ctx, batch.Job{
		Inputs: all, Shard: c.sh, Out: c.out, Dir: c.dir, Views: c.df.views,
		Format: c.format, FormatOptions: c.fo, Workers: c.bf.workers, Force: c.bf.force,
		Shape: shapingFlags(c.fs, c.format), Convert: opts,
		Stdin: e.stdin, Stdout: e.stdout, Events: v.event,
	})
	if s == nil {
		errorf(e, "", err)
		return exitCode(err)
	}
	v.t.finish()
	if err != nil {
		errorf(e, "", err)
	}
	return c.summarize(e, s, isBatch)
}

// convertView shows a job's events: progress on the tracker, status
// lines above it.
type convertView struct {
	e        *env
	quiet    bool
	mode     string
	interval time.Duration
	t        *tracker
	log      *env         // stderr is the tracker's log
	tracks   []*fileTrack // by input index
	// listed: the summary lists why each input failed, was partial or
	// skipped, so the problems that gave it its status are not also
	// printed as they come.
	listed bool
}

func (v *convertView) event(ev batch.Event) {
	switch ev.Kind {
	case batch.Planned:
		v.t = newTracker(v.e.stderr, v.mode, v.interval, ev.Inputs)
		v.log = &env{stderr: v.t.log()}
		v.tracks = make([]*fileTrack, len(ev.Inputs))
	case batch.Skipped:
		v.t.begin(ev.Input, false).end(false, 0)
		v.say("up to date: %s\n", ev.Input.Path)
	case batch.Started:
		v.tracks[ev.Index] = v.t.begin(ev.Input, ev.Compressed)
	case batch.Read:
		v.tracks[ev.Index].update(ev.Bytes)
	case batch.Phase:
		v.tracks[ev.Index].setPhase(ev.Phase)
	case batch.Wrote:
		v.say("wrote %s\n", ev.Path)
	case batch.Problem:
		if !v.listed || ev.Result == nil {
			errorf(v.log, ev.Input.Path, ev.Err)
		}
	case batch.Finished:
		v.tracks[ev.Index].end(ev.Result.Status == batch.StatusFailed, ev.Bytes)
	}
}

// say prints a status line unless -q.
func (v *convertView) say(format string, args ...any) {
	if !v.quiet {
		fmt.Fprintf(v.log.stderr, format, args...)
	}
}

// parse reads convert's flags and checks them; code is an exit status
// when the run ends here, else -1.
func (c *convertCmd) parse(e *env, args []string) (rest []string, code int) {
	fs := newFlagSet("convert", "INPUT...", e.stderr)
	c.fs = fs
	c.df.add(fs)
	c.df.addNames(fs)
	bf := &c.bf
	fs.StringVar(&c.out, "o", "", "output file for one view, or the name prefix for several ('-': standard output); one input only")
	fs.StringVar(&c.dir, "d", "", "output directory, or folder in object storage (s3://bucket/prefix, gs://, azblob://); directory inputs are mirrored under it, and a rerun skips inputs already converted")
	fs.StringVar(&c.format, "format", "pprof", "output format: "+strings.Join(batch.Formats(), ", "))
	fs.IntVar(&bf.workers, "j", runtime.NumCPU(), "inputs converted at once")
	fs.Var((*listFlag)(&bf.sel.Include), "include", "in directories, take only files matching these globs (base name, or relative path when the glob has a '/')")
	fs.Var((*listFlag)(&bf.sel.Exclude), "exclude", "in directories, skip files matching these globs")
	fs.BoolVar(&bf.force, "force", false, "convert inputs again even when their outputs are complete and newer")
	fs.StringVar(&bf.shard, "shard", "", "convert only shard i/n of the inputs (0 <= i < n), split by path")
	fs.StringVar(&bf.progress, "progress", progressAuto, "progress display: auto (bars on a terminal), bars, plain (lines for logs), none")
	fs.DurationVar(&bf.interval, "progress-interval", 10*time.Second, "time between --progress=plain lines")
	fs.StringVar(&bf.summaryPath, "summary", "", "write the job's summary as JSON to this file")
	fs.Var(&c.folded, "folded-type", "format folded: the sample types to value stacks by; each view takes the first it has, else its default (cpu: cpu, alloc: alloc_space, heap: inuse_space)")
	fs.StringVar(&c.fo.ServiceName, "service-name", "", "service.name of OTLP profiles (default: the input's base name)")
	fs.StringVar(&c.fo.Tables, "tables", "default",
		"with --format parquet or arrow: tables to write besides the default ones, comma-separated: objects, refs, strings, roots (the heap dump's objects, references, Strings and GC roots), heap (all four)")
	fs.Func("layout", "with --format parquet or arrow: partitioned (default: a dataset, DIR/<table>/input=<key>/part-0.parquet, one partition per input, which shards and reruns add to) or single (one file per table for every input of the run)",
		func(s string) (err error) { c.fo.Single, err = batch.ParseLayout(s); return err })
	args, code = c.df.parse(e, fs, args)
	if code >= 0 {
		return nil, code
	}
	if len(args) == 0 {
		usageError(e.stderr, "convert", "no input: name files or directories to convert, or - for standard input")
		return nil, exitUsage
	}
	if !slices.Contains(batch.Formats(), c.format) {
		errorf(e, "", fmt.Errorf("unknown --format %q (have %s)", c.format, strings.Join(batch.Formats(), ", ")))
		return nil, exitUsage
	}
	var err error
	if c.sh, err = batch.ParseShard(bf.shard); err != nil {
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

// inputs expands the arguments into every input of the job, and says
// whether this is a batch (several inputs, a directory, or a shard).
func (c *convertCmd) inputs(e *env, args []string) (all []batch.Input, isBatch bool, code int) {
	c.bf.sel.SkipDir = c.dir
	all, err := batch.Expand(args, c.bf.sel)
	if err != nil {
		errorf(e, "", err)
		return nil, false, exitCode(err)
	}
	isBatch = len(args) != len(all) || len(all) > 1 || c.sh.Count > 1
	for _, in := range all {
		if fi, err := os.Stat(in.Path); err == nil && fi.IsDir() {
			isBatch = true
		}
	}
	return all, isBatch, -1
}

// exitCode is the exit status of an error that ends a command: usage
// errors are exitUsage.
func exitCode(err error) int {
	if errors.Is(err, errUsage) {
		return exitUsage
	}
	return exitFailure
}

// summarize prints and writes the job's summary and returns its exit
// status.
func (c *convertCmd) summarize(e *env, s *batch.Summary, isBatch bool) int {
	if isBatch && !c.df.quiet {
		s.WriteText(e.stderr)
	}
	if c.bf.summaryPath != "" {
		if err := s.Write(c.bf.summaryPath); err != nil {
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
