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

func runConvert(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet("convert", "INPUT...", e.stderr)
	var df decodeFlags
	df.add(fs)
	var dst destination
	var bf batchFlags
	fs.StringVar(&dst.Out, "o", "", "output file for one view, or the name prefix for several ('-': standard output); one input only")
	fs.StringVar(&dst.Dir, "d", "", "output directory; directory inputs are mirrored under it, and a rerun skips inputs already converted")
	format := fs.String("format", "pprof", "output format: "+strings.Join(formatNames(), ", "))
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
	args, ok := df.parse(e, fs, args)
	if !ok {
		return exitUsage
	}
	if len(args) == 0 {
		fs.Usage()
		return exitUsage
	}
	f, ok := formats[*format]
	if !ok {
		errorf(e, "", fmt.Errorf("unknown --format %q (have %s)", *format, strings.Join(formatNames(), ", ")))
		return exitUsage
	}
	sh, err := parseShard(bf.shard)
	if err != nil {
		errorf(e, "", err)
		return exitUsage
	}
	switch bf.progress {
	case progressAuto, progressBars, progressPlain, progressNone:
	default:
		errorf(e, "", fmt.Errorf("%w: --progress must be auto, bars, plain or none", errUsage))
		return exitUsage
	}
	if bf.workers < 1 || bf.interval <= 0 {
		errorf(e, "", fmt.Errorf("%w: -j and --progress-interval must be positive", errUsage))
		return exitUsage
	}
	if df.quiet {
		bf.progress = progressNone
	}
	bf.sel.skipDir = dst.Dir
	all, err := expandInputs(args, bf.sel)
	if err != nil {
		errorf(e, "", err)
		if errors.Is(err, errUsage) {
			return exitUsage
		}
		return exitFailure
	}
	var mine []input
	for _, in := range all {
		if sh.has(in.Key) {
			mine = append(mine, in)
		}
	}
	batch := len(args) != len(all) || len(all) > 1 || sh.Count > 1
	for _, in := range all {
		if fi, err := os.Stat(in.Path); err == nil && fi.IsDir() {
			batch = true
		}
	}
	if dst.Dir != "" {
		if err := os.MkdirAll(dst.Dir, 0o755); err != nil {
			errorf(e, dst.Dir, err)
			return exitFailure
		}
	}
	dst.Views, dst.Stdout, dst.Shard = df.views, e.stdout, sh
	dst.Rel = map[string]string{}
	for _, in := range all {
		dst.Inputs = append(dst.Inputs, in.Path)
		dst.Rel[in.Path] = in.Rel
	}
	w, err := f.open(dst)
	if err != nil {
		errorf(e, "", err)
		if errors.Is(err, errUsage) {
			return exitUsage
		}
		return exitFailure
	}
	perInput := writesPerInput(w)
	if perInput && dst.Out != "" && len(all) > 1 {
		errorf(e, "", fmt.Errorf("%w: -o names the output of one input, but there are %d: use -d DIR", errUsage, len(all)))
		return exitUsage
	}

	start := time.Now()
	t := newTracker(e.stderr, bf.progress, bf.interval, mine)
	j := &job{
		e:        &env{stdin: e.stdin, stdout: e.stdout, stderr: t.log()},
		df:       &df,
		dst:      dst,
		perInput: perInput,
		w:        w,
		workers:  bf.workers,
		force:    bf.force,
		options:  shapingFlags(fs, *format),
		inputs:   mine,
		tracker:  t,
		resuming: dst.Dir != "" && perInput,
	}
	if j.resuming {
		cleanStale(dst, all, mine)
	}
	j.run(ctx)
	closed, cerr := w.Close()
	for _, p := range closed {
		j.say("wrote %s\n", p)
	}
	t.finish()

	s := newSummary(j.results, time.Since(start))
	s.Format, s.Outputs = *format, closed
	if sh.Count > 1 {
		s.Shard = sh.String()
	}
	if cerr != nil {
		errorf(e, "", cerr)
		s.Error, s.Exit = message(cerr), exitFailure
	}
	if batch && !df.quiet {
		s.print(e.stderr)
	}
	if bf.summaryPath != "" {
		if err := s.write(bf.summaryPath); err != nil {
			errorf(e, bf.summaryPath, err)
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
