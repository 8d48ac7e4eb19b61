package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
)

func init() {
	registerCommand(command{name: "convert", summary: "convert inputs to pprof (or another --format)", run: runConvert})
}

func runConvert(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet("convert", "INPUT...", e.stderr)
	var df decodeFlags
	df.add(fs)
	var dst destination
	fs.StringVar(&dst.Out, "o", "", "output file for one view, or the name prefix for several ('-': standard output)")
	fs.StringVar(&dst.Dir, "d", "", "output directory")
	format := fs.String("format", "pprof", "output format: "+strings.Join(formatNames(), ", "))
	for _, name := range formatNames() {
		if f := formats[name]; f.flags != nil {
			f.flags(fs)
		}
	}
	inputs, err := parseInterspersed(fs, args)
	if err != nil {
		return exitUsage
	}
	if err := df.check(); err != nil {
		errorf(e, "", err)
		return exitUsage
	}
	if len(inputs) == 0 {
		fs.Usage()
		return exitUsage
	}
	f, ok := formats[*format]
	if !ok {
		errorf(e, "", fmt.Errorf("unknown --format %q (have %s)", *format, strings.Join(formatNames(), ", ")))
		return exitUsage
	}
	if dst.Dir != "" {
		if err := os.MkdirAll(dst.Dir, 0o755); err != nil {
			errorf(e, dst.Dir, err)
			return exitFailure
		}
	}
	dst.Views, dst.Inputs, dst.Stdout = df.views, inputs, e.stdout
	w, err := f.open(dst)
	if err != nil {
		errorf(e, "", err)
		if errors.Is(err, errUsage) {
			return exitUsage
		}
		return exitFailure
	}
	code := exitOK
	worse := func(c int) {
		// failure beats partial beats ok
		if c == exitFailure || (c == exitPartial && code == exitOK) {
			code = c
		}
	}
	for _, in := range inputs {
		if ctx.Err() != nil {
			worse(exitFailure)
			break
		}
		g, err := decode(ctx, e, in, &df)
		if err != nil {
			errorf(e, in, err)
			worse(exitFailure)
			continue
		}
		views := selectViews(g, df.views)
		if len(views) == 0 && g.Damage != nil {
			// Damaged before any view was complete: nothing to write,
			// but the input was read as far as it goes.
			errorf(e, in, fmt.Errorf("partial: nothing complete to write; %s", g.Lost))
			worse(exitPartial)
			continue
		}
		if len(views) == 0 && len(df.views) == 0 {
			errorf(e, in, fmt.Errorf("no record in this input makes a view: nothing to write (hprof2pprof info lists its records)"))
			worse(exitFailure)
			continue
		}
		if len(views) == 0 {
			errorf(e, in, fmt.Errorf("no %s view in this input (it has: %s)", strings.Join(df.views, ", "), strings.Join(viewNames(g), ", ")))
			worse(exitFailure)
			continue
		}
		paths, err := w.Add(ctx, in, g, views)
		report(e, df.quiet, paths)
		if err != nil {
			errorf(e, in, err)
			worse(exitFailure)
			continue
		}
		if g.Damage != nil {
			errorf(e, in, fmt.Errorf("partial: %s", g.Lost))
			worse(exitPartial)
		}
	}
	paths, err := w.Close()
	report(e, df.quiet, paths)
	if err != nil {
		errorf(e, "", err)
		worse(exitFailure)
	}
	return code
}

func report(e *env, quiet bool, paths []string) {
	if quiet {
		return
	}
	for _, p := range paths {
		fmt.Fprintf(e.stderr, "wrote %s\n", p)
	}
}
