package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hprof2pprof/hprof2pprof/agent/attach"
	"github.com/hprof2pprof/hprof2pprof/agent/capture"
	"github.com/hprof2pprof/hprof2pprof/agent/jvm"
	"github.com/hprof2pprof/hprof2pprof/internal/batch"
	"github.com/hprof2pprof/hprof2pprof/otlp"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
)

func init() {
	examples["capture"] = []string{
		"hprof2pprof capture --list                          # local JVMs, containers included, without attaching",
		"hprof2pprof capture -o heap.pb.gz 4242              # dump pid 4242 (live objects), convert, delete the dump",
		"go tool pprof -top heap.pb.gz                       # the JVM's class histogram",
		"hprof2pprof capture --endpoint 127.0.0.1:4317 --insecure 4242   # to an OpenTelemetry Collector",
		"hprof2pprof capture --all --gzip 1 --keep dump.hprof.gz -d out/ 4242",
	}
	registerCommand(command{name: "capture", summary: "take a heap dump of running JVMs (PIDs) by attaching natively, convert it, push it; --list lists JVMs", run: runCapture})
}

// Exit codes of capture besides 0-3.
const (
	exitNotJVM  = 4 // no such process, or not a HotSpot JVM
	exitRefused = 5 // attach disabled, or permission denied
	exitTimeout = 6 // the JVM did not answer in time
	exitNoSpace = 7 // not enough disk for the dump
)

// captureFlags are capture's own.
type captureFlags struct {
	list bool
	json bool
	opts capture.Options
}

func runCapture(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet("capture", "PID... | --list", e.stderr)
	var df decodeFlags
	df.add(fs)
	df.addNames(fs)
	var cf captureFlags
	var dst batch.Destination
	pf := addPushFlags(fs)
	fs.Lookup("service-name").Usage = "service.name on the profiles (default: the JVM's otel.service.name or OTEL_SERVICE_NAME, else its main class)"
	fs.Lookup("view").Usage = "views to write, comma-separated: heap (the default; converted while the JVM writes), threads, retained (these wait for the finished dump)"
	fs.BoolVar(&cf.list, "list", false, "list the local JVMs (containers included) from their performance data, without attaching")
	fs.BoolVar(&cf.json, "json", false, "with --list: JSON lines")
	fs.BoolVar(&cf.opts.All, "all", false, "dump every object, unreachable ones too (default: live objects, after a full GC)")
	fs.IntVar(&cf.opts.Gzip, "gzip", 0, "the JVM compresses the dump at this level, 1-9 (smaller on disk, slower; 0: plain)")
	fs.StringVar(&cf.opts.Dir, "dump-dir", "/tmp", "directory the JVM writes the dump to, as the JVM sees it (reached through /proc/PID/root)")
	fs.StringVar(&cf.opts.Keep, "keep", "", "keep the dump as `FILE` (one PID only); by default it is deleted")
	fs.DurationVar(&cf.opts.AttachTimeout, "attach-timeout", 10*time.Second, "how long to wait for the JVM's attach listener")
	fs.DurationVar(&cf.opts.DumpTimeout, "dump-timeout", 30*time.Minute, "how long the dump may take (0: no limit)")
	fs.BoolVar(&cf.opts.NoSpaceCheck, "no-space-check", false, "do not refuse a dump that the free space is estimated too small for")
	fs.StringVar(&dst.Out, "o", "", "output file for one view, or the name prefix for several ('-': standard output); one PID only")
	fs.StringVar(&dst.Dir, "d", "", "output directory or storage URL (s3://bucket/prefix; default: the current directory); files are named <main class>-<pid>-<time>.<view>.pb.gz")
	format := fs.String("format", "pprof", "output format: "+strings.Join(batch.Formats(), ", "))
	rest, code := df.parse(e, fs, args)
	if code >= 0 {
		return code
	}
	if cf.list {
		return listJVMs(e, cf.json)
	}
	pids, err := parsePIDs(rest)
	if err == nil && len(pids) > 1 && (dst.Out != "" || cf.opts.Keep != "") {
		err = fmt.Errorf("%w: -o and --keep name one file, but there are %d PIDs: use -d DIR", errUsage, len(pids))
	}
	if err != nil {
		errorf(e, "", err)
		return exitUsage
	}
	if len(pids) == 0 {
		usageError(e.stderr, "capture", "no PID: name the JVMs to dump (--list shows them)")
		return exitUsage
	}
	ship, code := captureOutputs(e, *format, pf)
	if code >= 0 {
		return code
	}
	if ship != nil {
		defer ship.Close()
	}
	cf.opts.Convert = df.options()
	applyMemoryLimit(cf.opts.Convert.MaxMemory)
	if len(df.views) == 0 {
		df.views = listFlag{"heap"}
		cf.opts.Convert.Views = df.views
	}
	c := &captureRun{e: e, df: &df, cf: &cf, pf: pf, ship: ship, format: *format, dst: dst,
		pushOnly: ship != nil && !flagGiven(fs, "o", "d", "format")}
	code = exitOK
	for _, pid := range pids {
		code = worse(code, c.one(ctx, pid))
	}
	return code
}

// captureOutputs checks --format and connects the shipper --endpoint
// asks for (nil without); code is an exit status when the run ends
// here, else -1.
func captureOutputs(e *env, format string, pf *pushFlags) (ship *shipper, code int) {
	if !slices.Contains(batch.Formats(), format) {
		errorf(e, "", fmt.Errorf("unknown --format %q (have %s)", format, strings.Join(batch.Formats(), ", ")))
		return nil, exitUsage
	}
	if pf.Client.Endpoint == "" {
		return nil, -1
	}
	if err := pf.check(); err != nil {
		errorf(e, "", err)
		return nil, exitUsage
	}
	ship, err := newShipper(pf)
	if err != nil {
		errorf(e, "", fmt.Errorf("%w: %v", errUsage, err))
		return nil, exitUsage
	}
	return ship, -1
}

func flagGiven(fs *flag.FlagSet, names ...string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) {
		for _, n := range names {
			given = given || f.Name == n
		}
	})
	return given
}

func parsePIDs(args []string) ([]int, error) {
	var pids []int
	for _, a := range args {
		n, err := strconv.Atoi(a)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("%w: %q is not a PID", errUsage, a)
		}
		pids = append(pids, n)
	}
	return pids, nil
}

// captureExit maps a capture error to the exit status.
func captureExit(err error) int {
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, attach.ErrNoProcess), errors.Is(err, attach.ErrNotJVM):
		return exitNotJVM
	case errors.Is(err, attach.ErrDisabled), errors.Is(err, attach.ErrPermission):
		return exitRefused
	case errors.Is(err, attach.ErrTimeout), errors.Is(err, context.DeadlineExceeded):
		return exitTimeout
	case errors.Is(err, capture.ErrDiskSpace):
		return exitNoSpace
	}
	return exitFailure
}

type captureRun struct {
	e        *env
	df       *decodeFlags
	cf       *captureFlags
	pf       *pushFlags
	ship     *shipper // nil without --endpoint
	format   string
	dst      batch.Destination
	pushOnly bool // --endpoint without -o, -d or --format: no files
}

// one captures one JVM and writes and pushes the result.
func (c *captureRun) one(ctx context.Context, pid int) int {
	name := "pid " + strconv.Itoa(pid)
	res, err := capture.Capture(ctx, pid, c.cf.opts)
	if res == nil || res.Graph == nil {
		errorf(c.e, name, err)
		return captureExit(err)
	}
	code := exitOK
	if err != nil { // the JVM died mid-dump: write what was read
		errorf(c.e, name, fmt.Errorf("%v; partial views written from what it wrote: %s", err, res.Graph.Lost))
		code = exitPartial
	} else if res.Graph.Damage != nil {
		errorf(c.e, name, fmt.Errorf("partial dump, converted what was read: %s", res.Graph.Lost))
		code = exitPartial
	}
	res.Annotate()
	if !c.df.quiet {
		fmt.Fprintln(c.e.stderr, res.Describe())
	}
	views := batch.SelectViews(res.Graph, c.df.views)
	if len(views) == 0 {
		errorf(c.e, name, fmt.Errorf("no %s view in the dump (it has: %s)", strings.Join(c.df.views, ", "), strings.Join(batch.ViewNames(res.Graph), ", ")))
		return exitFailure
	}
	input := captureName(res)
	if !c.pushOnly {
		if err := c.write(ctx, input, res, views); err != nil {
			errorf(c.e, name, err)
			return exitFailure
		}
	}
	if c.ship != nil {
		code = worse(code, c.ship.shipGraph(ctx, c.e, input, res.Graph, views, c.attrs(res), c.df.quiet))
	}
	return code
}

// captureName names a capture's outputs: <main class>-<pid>-<time>.
func captureName(res *capture.Result) string {
	return res.JVMName() + "-" + res.Time.UTC().Format("20060102T150405Z")
}

func (c *captureRun) write(ctx context.Context, input string, res *capture.Result, views []string) error {
	dst := c.dst
	dst.Views, dst.Stdout, dst.Inputs = c.df.views, c.e.stdout, []string{input}
	dst.Rel = map[string]string{input: input}
	if c.format == "otlp" {
		// The JVM's resource attributes go into the file too.
		b := otlp.NewBuilder(otlp.Options{ServiceName: c.pf.ServiceName, ResourceAttrs: c.attrs(res)})
		if err := b.Add(res.Graph, views); err != nil {
			return err
		}
		p, err := batch.WriteOTLPFor(ctx, dst, c.df.spillDir, input, b)
		if err == nil {
			c.say("wrote %s\n", p)
		}
		return err
	}
	wrote, err := batch.WriteGraph(ctx, c.format, dst, batch.FormatOptions{}, c.df.spillDir, input, res.Graph, views)
	for _, p := range wrote {
		c.say("wrote %s\n", p)
	}
	return err
}

func (c *captureRun) say(format string, a ...any) {
	if !c.df.quiet {
		fmt.Fprintf(c.e.stderr, format, a...)
	}
}

// attrs are the JVM's resource attributes; --service-name wins over the
// JVM's own service name.
func (c *captureRun) attrs(res *capture.Result) []*commonpb.KeyValue {
	attrs := res.JVM.Attributes()
	if c.pf.ServiceName != "" {
		attrs = slices.DeleteFunc(attrs, func(kv *commonpb.KeyValue) bool { return kv.Key == "service.name" })
	}
	return append(attrs, pauseAttrs(res)...)
}

// pauseAttrs record what the dump cost the JVM.
func pauseAttrs(res *capture.Result) []*commonpb.KeyValue {
	return capture.Attributes(res)
}

// listJVMs prints the local JVMs from their performance data.
func listJVMs(e *env, asJSON bool) int {
	list, err := jvm.List()
	if err != nil {
		errorf(e, "/proc", err)
		return exitFailure
	}
	if asJSON {
		enc := json.NewEncoder(e.stdout)
		for _, j := range list {
			if err := enc.Encode(j); err != nil {
				return exitFailure
			}
		}
		return exitOK
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "PID\tNSPID\tUSER\tJAVA\tHEAP USED\tHEAP MAX\tATTACH\tCONTAINER\tMAIN")
	for _, j := range list {
		attachable := "yes"
		if !j.Attachable {
			attachable = "disabled"
		}
		ctr := "-"
		if j.ContainerID != "" {
			ctr = j.ContainerID[:12]
		}
		user := j.User
		if user == "" {
			user = strconv.Itoa(j.UID)
		}
		fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", j.PID, j.NSPID, user, orDash(j.JavaVersion),
			humanBytes(j.HeapUsed), humanBytes(j.HeapMax), attachable, ctr, orDash(j.MainClass))
	}
	tw.Flush()
	return exitOK
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1fG", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1fM", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1fK", float64(n)/(1<<10))
	}
	return strconv.FormatInt(n, 10)
}
