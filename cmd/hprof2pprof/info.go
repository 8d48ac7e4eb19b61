package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/hprof2pprof/hprof2pprof/internal/batch"
	"github.com/hprof2pprof/hprof2pprof/internal/report"
)

func init() {
	registerCommand(command{name: "info", summary: "describe an input: writer, version, records, views, threads, soft failures", run: runInfo})
}

func runInfo(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet("info", "INPUT", e.stderr)
	var df decodeFlags
	df.add(fs)
	fs.Lookup("view").Usage = "views to describe, comma-separated (default: every view the input holds; retained only when named: its totals and where its graph spilled)"
	asJSON := fs.Bool("json", false, "print JSON")
	inputs, code := df.parse(e, fs, args)
	if code >= 0 {
		return code
	}
	if len(inputs) != 1 {
		usageError(e.stderr, "info", fmt.Sprintf("takes one input, not %d", len(inputs)))
		return exitUsage
	}
	in := inputs[0]
	g, err := decode(ctx, e, in, &df)
	if err != nil {
		errorf(e, in, err)
		return exitFailure
	}
	rep := report.MakeInfo(g)
	if fi, err := os.Stat(in); err == nil && rep.Compression != "" {
		rep.FileBytes = fi.Size()
	}
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			errorf(e, in, err)
			return exitFailure
		}
	} else {
		rep.WriteText(e.stdout)
	}
	if g.Damage != nil {
		errorf(e, in, fmt.Errorf("partial, %s", batch.Lost(g.Lost)))
		return exitPartial
	}
	return exitOK
}
