package main

import (
	"context"
	"fmt"
	"regexp"

	"github.com/hprof2pprof/hprof2pprof/convert/retained"
	"github.com/hprof2pprof/hprof2pprof/internal/batch"
	"github.com/hprof2pprof/hprof2pprof/internal/report"
)

func init() {
	registerCommand(command{name: "suspects", summary: "leak suspects of a heap dump: what retains the most, and the paths from GC roots that hold it", run: runSuspects})
}

// suspectsFlags are the flags of `suspects` besides the decoding ones.
type suspectsFlags struct {
	threshold, class, format string
	limit, roots             int
	asJSON, failOn           bool
}

func runSuspects(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet("suspects", "DUMP", e.stderr)
	var df decodeFlags
	df.add(fs)
	fs.Lookup("view").Usage = "not used: the report builds no view (convert --view paths writes the paths as a profile)"
	var sf suspectsFlags
	fs.StringVar(&sf.threshold, "threshold", "10%", "a suspect retains at least this share of the reachable heap")
	fs.StringVar(&sf.class, "class", "", "instead of suspects, the paths from GC roots to the instances of the classes this `REGEX` matches (Java names)")
	fs.IntVar(&sf.limit, "limit", 20, "merged paths listed with --class")
	fs.IntVar(&sf.roots, "roots", 10, "paths from distinct GC roots listed per suspect (or for --class)")
	fs.BoolVar(&sf.asJSON, "json", false, "print JSON (as --format json)")
	fs.StringVar(&sf.format, "format", "text", "text, md (Markdown, for a ticket) or json")
	fs.BoolVar(&sf.failOn, "fail-on-suspect", false, "exit 1 when the report names a suspect (or --class finds an instance), for CI gates")
	inputs, code := df.parse(e, fs, args)
	if code >= 0 {
		return code
	}
	q, err := sf.query(inputs)
	if err != nil {
		usageError(e.stderr, "suspects", err.Error())
		return exitUsage
	}
	df.suspects, df.views = q, nil // the report alone
	in := inputs[0]
	g, err := decode(ctx, e, in, &df)
	if err == nil && g.Suspects == nil {
		err = report.Missing(g)
	}
	if err == nil {
		err = report.Suspects(e.stdout, in, g.Suspects, sf.format)
	}
	switch {
	case err != nil:
		errorf(e, in, err)
		return exitFailure
	case g.Damage != nil:
		errorf(e, in, fmt.Errorf("partial, %s", batch.Lost(g.Lost)))
		return exitPartial
	case sf.failOn && (len(g.Suspects.Suspects) > 0 || g.Suspects.Instances > 0):
		return exitFailure
	}
	return exitOK
}

// query checks the flags and the number of inputs and says what report
// they ask for.
func (sf *suspectsFlags) query(inputs []string) (*retained.SuspectQuery, error) {
	if sf.asJSON {
		sf.format = "json"
	}
	if sf.format != "text" && sf.format != "md" && sf.format != "json" {
		return nil, fmt.Errorf("--format %q: text, md or json", sf.format)
	}
	if len(inputs) != 1 {
		return nil, fmt.Errorf("takes one heap dump, not %d", len(inputs))
	}
	if inputs[0] == "-" {
		return nil, fmt.Errorf("reads the dump twice (the objects, then their references), and standard input cannot be read twice: name a file")
	}
	q, err := suspectQuery(sf.threshold, sf.class, sf.limit)
	if q != nil {
		q.Roots = sf.roots
	}
	return q, err
}

// suspectQuery is the report the flags ask for.
func suspectQuery(threshold, class string, limit int) (*retained.SuspectQuery, error) {
	share, err := retained.ParseShare(threshold)
	if err != nil {
		return nil, fmt.Errorf("--threshold: %w", err)
	}
	q := &retained.SuspectQuery{Share: share, Limit: limit, Pattern: class}
	if class != "" {
		re, err := regexp.Compile(class)
		if err != nil {
			return nil, fmt.Errorf("--class: %w", err)
		}
		q.Class = re.MatchString
	}
	return q, nil
}
