package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/hprof2pprof/hprof2pprof/convert"
	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/mapping"
	"github.com/hprof2pprof/hprof2pprof/convert/retained"
	"github.com/hprof2pprof/hprof2pprof/internal/batch"
)

// decodeFlags are the flags every command that reads inputs shares.
type decodeFlags struct {
	views      listFlag
	interval   time.Duration
	dump       int
	refSize    int
	headerSize int
	quiet      bool
	mapping    string
	// mappingMap is the parsed --mapping file (check loads it once).
	mappingMap *mapping.Map
	rawNames   bool
	maxMemory  sizeFlag
	// retainedMemory and spillDir: where the retained view's graph lives.
	sizeModel      string
	retainedMemory sizeFlag
	spillDir       string
	// suspects asks for the leak suspects report (`suspects`).
	suspects *retained.SuspectQuery
}

func (d *decodeFlags) add(fs *flag.FlagSet) {
	fs.Var(&d.views, "view", "views to write, comma-separated: cpu, alloc, heap, threads, cputime, monitor, cpuold, retained, paths (default: every view the input holds except retained and paths)")
	fs.DurationVar(&d.interval, "interval", graph.DefaultCPUInterval, "CPU sampling interval the hprof agent used (the file does not record it)")
	fs.IntVar(&d.dump, "dump", 0, "use dump N (1-based) of a file holding several (default: heap/alloc from the last complete dump, CPU summed)")
	fs.IntVar(&d.refSize, "ref-size", 0, "reference size in bytes for heap sizes: 4 or 8 (default: detected)")
	fs.IntVar(&d.headerSize, "header-size", 0, "object header size in bytes for heap sizes, a multiple of 4; arrays add 4 (default: detected)")
	fs.StringVar(&d.sizeModel, "size-model", "jvm", "heap sizes as the JVM counts them (jvm), or as VisualVM and Eclipse MAT do (visualvm), to compare with those tools")
	fs.BoolVar(&d.quiet, "q", false, "no progress output")
	fs.StringVar(&d.mapping, "mapping", "", "R8/ProGuard mapping `FILE` to deobfuscate class and method names")
	d.maxMemory.auto = true
	fs.Var(&d.maxMemory, "max-memory", "stop with an error when the heap grows past this size: 4GiB, 512MiB, 0 (no limit) or auto (3/4 of the memory available)")
	d.retainedMemory.auto = true
	fs.Var(&d.retainedMemory, "retained-memory", "the retained view's graph spills to disk when it would take more than this: 2GiB, 0 (always spill) or auto (half of --max-memory)")
	fs.StringVar(&d.spillDir, "spill-dir", "", "`DIR` the retained view spills to, and where a bzip2 or single-stream gzip input is kept decompressed for the passes that read it again; on a disk rather than tmpfs (default: $TMPDIR or /tmp)")
}

// addNames adds --raw-names, for the commands that write names (not
// info, which shows none).
func (d *decodeFlags) addNames(fs *flag.FlagSet) {
	fs.BoolVar(&d.rawNames, "raw-names", false, rawNamesUsage)
}

// rawNamesUsage is --raw-names' help, in every command that has it.
const rawNamesUsage = "keep hidden and lambda class names as the JVM wrote them (Foo$$Lambda$42.0x… rather than Foo$$Lambda, the function's system name either way), which change from run to run"

func (d *decodeFlags) check() error {
	for _, v := range d.views {
		if !slices.Contains(batch.Views(), v) {
			return fmt.Errorf("%w: unknown view %q (known: %s)", errUsage, v, strings.Join(batch.Views(), ", "))
		}
	}
	if err := d.checkSizes(); err != nil {
		return err
	}
	if d.dump < 0 {
		return fmt.Errorf("%w: --dump must be 1 or more", errUsage)
	}
	if d.interval <= 0 {
		return fmt.Errorf("%w: --interval must be positive", errUsage)
	}
	if d.mapping != "" && d.mappingMap == nil {
		m, err := mapping.ParseFile(d.mapping)
		if err != nil {
			return fmt.Errorf("%w: --mapping: %v", errUsage, err)
		}
		d.mappingMap = m
	}
	return nil
}

// checkSizes checks the size model flags.
func (d *decodeFlags) checkSizes() error {
	switch {
	case d.refSize != 0 && d.refSize != 4 && d.refSize != 8:
		return fmt.Errorf("%w: --ref-size must be 4 or 8", errUsage)
	case d.headerSize < 0 || d.headerSize > 64 || d.headerSize%4 != 0:
		return fmt.Errorf("%w: --header-size must be a multiple of 4 between 4 and 64", errUsage)
	case d.sizeModel != "jvm" && d.sizeModel != "visualvm":
		return fmt.Errorf("%w: --size-model must be jvm or visualvm", errUsage)
	}
	return nil
}

// parse parses a command's arguments (flags may stand among the inputs)
// and checks the shared flags. code is the command's exit status when
// it ends here (0 after -h, 2 on a usage error, whose reason has been
// printed), else -1.
func (d *decodeFlags) parse(e *env, fs *flag.FlagSet, args []string) (rest []string, code int) {
	rest, err := parseInterspersed(fs, args, e.stderr)
	if err != nil {
		return nil, parseExit(err)
	}
	if err := d.check(); err != nil {
		errorf(e, "", err)
		return nil, exitUsage
	}
	return rest, -1
}

func (d *decodeFlags) options() convert.Options {
	opts := convert.Options{
		Interval:   d.interval,
		Dump:       d.dump,
		Views:      d.views,
		RefSize:    d.refSize,
		HeaderSize: d.headerSize,
		Mapping:    d.mappingMap,
		RawNames:   d.rawNames,
		// VisualVM's and MAT's sizes, for a user comparing with them
		VisualVMSizes: d.sizeModel == "visualvm",
		MaxMemory:     d.maxMemory.limit(),
		SpillDir:      d.spillDir,
		Suspects:      d.suspects,
	}
	if !d.retainedMemory.auto {
		// 0 on the command line is "always": the option's negative.
		opts.RetainedMemory = d.retainedMemory.bytes
		if opts.RetainedMemory == 0 {
			opts.RetainedMemory = -1
		}
	}
	return opts
}

// decode reads one input, showing progress on a terminal for a large one.
func decode(ctx context.Context, e *env, in string, df *decodeFlags) (*graph.Graph, error) {
	ins := []batch.Input{{Path: in, Size: -1}}
	if in != "-" {
		if fi, err := os.Stat(in); err == nil {
			ins[0].Size = fi.Size()
		}
	}
	mode := progressAuto
	if df.quiet {
		mode = progressNone
	}
	t := newTracker(e.stderr, mode, 0, ins)
	f := t.begin(ins[0], false)
	opts := df.options()
	applyMemoryLimit(opts.MaxMemory)
	opts.Progress, opts.Phase = f.update, f.setPhase
	var g *graph.Graph
	var err error
	if in == "-" {
		g, err = convert.Convert(ctx, e.stdin, "-", opts)
	} else {
		g, err = batch.ConvertPath(ctx, in, opts)
	}
	f.end(err != nil, 0)
	t.finish()
	return g, err
}
