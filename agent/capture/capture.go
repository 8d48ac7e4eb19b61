// Package capture takes a heap dump of a running HotSpot JVM through its
// attach mechanism (jcmd GC.heap_dump, without JDK tools) and converts it
// while the JVM writes it.
//
// The dump is written by the JVM, as its user, into a directory it sees
// (default its /tmp); we read it through /proc/PID/root, so a JVM in a
// container with a private /tmp works the same. The file is deleted
// afterwards unless the caller keeps it.
package capture

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hprof2pprof/hprof2pprof/agent/attach"
	"github.com/hprof2pprof/hprof2pprof/agent/jvm"
	"github.com/hprof2pprof/hprof2pprof/convert"
	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
)

// Errors besides attach's (attach.ErrNotJVM, ErrDisabled, ErrPermission,
// ErrTimeout, ErrJVMGone).
var (
	// ErrDiskSpace: the dump would not fit where the JVM writes it.
	ErrDiskSpace = errors.New("capture: not enough disk space for the dump")
	// ErrDumpFailed: the JVM answered but wrote no dump.
	ErrDumpFailed = errors.New("capture: the JVM did not write the dump")
)

// Options tune Capture. The zero value takes live objects, uncompressed,
// into the JVM's /tmp.
type Options struct {
	All  bool // every object, unreachable ones too (default: live objects only, after a full GC)
	Gzip int  // 1-9: the JVM compresses the dump (-gz=N); 0: plain
	// Dir is where the JVM writes the dump, as the JVM sees it; default
	// "/tmp". The file name is hprof2pprof-<nspid>-<time>.hprof[.gz].
	Dir string
	// Keep, when set, is where to keep the dump (our path); otherwise it
	// is deleted.
	Keep string
	// AttachTimeout bounds starting the attach listener (default 10s);
	// DumpTimeout the dump itself (0: no bound but ctx).
	AttachTimeout time.Duration
	DumpTimeout   time.Duration
	// Convert are the decoder's options; Views defaults to heap.
	Convert convert.Options
	// NoSpaceCheck skips the free-space estimate.
	NoSpaceCheck bool
	Logger       *slog.Logger
	// started, for tests: called with the dump's path (ours) once asked.
	started func(string)
}

// Result is one capture.
type Result struct {
	Graph *graph.Graph
	JVM   *jvm.Info
	// Pause is how long the JVM was stopped at safepoints while the dump
	// ran (the performance data's sun.rt.safepointTime, before and
	// after); 0 when the JVM publishes no performance data. A live dump
	// includes its full GC.
	Pause time.Duration
	// Took is from asking to the JVM's answer.
	Took time.Duration
	// Time is when the dump was asked for.
	Time time.Time
	// DumpBytes is the size of the dump file; Kept its path when kept.
	DumpBytes int64
	Kept      string
	// HeapUsed is the heap in use the space estimate was made from.
	HeapUsed int64
}

// Capture dumps the heap of the JVM with this PID and converts it. A
// JVM that dies during the dump gives a partial graph (Damage set) and
// an error wrapping attach.ErrJVMGone.
func Capture(ctx context.Context, pid int, o Options) (*Result, error) {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Dir == "" {
		o.Dir = "/tmp"
	}
	if !path.IsAbs(o.Dir) {
		return nil, fmt.Errorf("capture: the dump directory %q must be absolute (as the JVM sees it)", o.Dir)
	}
	if o.Gzip < 0 || o.Gzip > 9 {
		return nil, fmt.Errorf("capture: gzip level %d, want 0-9", o.Gzip)
	}
	t, info, err := Prepare(pid)
	if err != nil {
		return nil, err
	}
	sock, err := attach.Start(ctx, t, attach.Options{Timeout: o.AttachTimeout})
	if err != nil {
		return nil, err
	}
	qctx, cancel := context.WithTimeout(ctx, timeoutOr(o.AttachTimeout, 10*time.Second))
	props, err := attach.Execute(qctx, t, sock, "properties")
	cancel()
	if err == nil && props.Code == 0 {
		applyProperties(info, props.Output)
	}
	res := &Result{JVM: info}
	if !o.NoSpaceCheck {
		if err := checkSpace(ctx, t, sock, o, res); err != nil {
			return nil, err
		}
	}
	return dump(ctx, t, sock, o, res)
}

// Prepare resolves the PID and checks that it is a HotSpot JVM we may
// attach to, before anything is sent to it.
func Prepare(pid int) (*attach.Target, *jvm.Info, error) {
	t, err := attach.Resolve(pid)
	if err != nil {
		return nil, nil, err
	}
	if err := t.CheckAccess(); err != nil {
		return nil, nil, err
	}
	ok, err := t.IsHotSpot()
	if err != nil {
		return nil, nil, err
	}
	if !ok {
		return nil, nil, fmt.Errorf("%w: pid %d (%s) has no libjvm.so mapped", attach.ErrNotJVM, pid, t.Comm)
	}
	info, err := jvm.Describe(t)
	if err != nil {
		return nil, nil, err
	}
	if !info.Attachable {
		return nil, nil, fmt.Errorf("%w: pid %d (%s) runs with -XX:+DisableAttachMechanism", attach.ErrDisabled, pid, info.MainClass)
	}
	return t, info, nil
}

func timeoutOr(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// applyProperties reads the runtime's name and version and the service
// name from the JVM's system properties ("key=value" lines, escaped as
// in a properties file).
func applyProperties(info *jvm.Info, out string) {
	for _, line := range strings.Split(out, "\n") {
		k, v, ok := strings.Cut(strings.TrimRight(line, "\r"), "=")
		if !ok {
			continue
		}
		v = unescapeProperty(v)
		switch k {
		case "java.runtime.name":
			info.RuntimeName = v
		case "java.runtime.version":
			info.RuntimeVersion = v
		case "java.vm.name":
			info.VMName = v
		case "java.vm.version":
			info.VMVersion = v
		case "java.version":
			info.JavaVersion = v
		case "otel.service.name":
			info.ServiceName = v
		}
	}
}

func unescapeProperty(v string) string {
	if !strings.Contains(v, `\`) {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' && i+1 < len(v) {
			i++
		}
		b.WriteByte(v[i])
	}
	return b.String()
}

var usedRe = regexp.MustCompile(`used (\d+)([KMG]?)`)

// heapInUse asks the JVM (GC.heap_info: no safepoint) for the heap in
// use; the performance data is the fallback (G1 updates it only at GCs).
func heapInUse(ctx context.Context, t *attach.Target, sock string) int64 {
	var used int64
	if c, err := jvm.Counters(t); err == nil {
		used = c.Heap().Used
	}
	r, err := attach.Jcmd(ctx, t, sock, "GC.heap_info")
	if err != nil || r.Code != 0 {
		return used
	}
	var sum int64
	for _, line := range strings.Split(r.Output, "\n") {
		l := strings.TrimSpace(line)
		if strings.HasPrefix(l, "Metaspace") || strings.HasPrefix(l, "class space") {
			continue
		}
		for _, m := range usedRe.FindAllStringSubmatch(l, -1) {
			n, _ := strconv.ParseInt(m[1], 10, 64)
			switch m[2] {
			case "K":
				n <<= 10
			case "M":
				n <<= 20
			case "G":
				n <<= 30
			}
			sum += n
		}
	}
	return max(used, sum)
}

// EstimateDump is the dump's expected size for this much heap in use:
// HPROF spends more bytes per object than the heap (measured on JDK 17:
// 1.4× the live shallow size; gzip level 1 writes 0.46×), plus the
// class and string records.
func EstimateDump(heapUsed int64, gzip int) int64 {
	if gzip > 0 {
		return heapUsed*6/10 + 16<<20
	}
	return heapUsed*3/2 + 16<<20
}

func checkSpace(ctx context.Context, t *attach.Target, sock string, o Options, res *Result) error {
	res.HeapUsed = heapInUse(ctx, t, sock)
	need := EstimateDump(res.HeapUsed, o.Gzip)
	var st syscall.Statfs_t
	dir := t.Path(o.Dir)
	if err := syscall.Statfs(dir, &st); err != nil {
		return fmt.Errorf("capture: pid %d: the dump directory %s: %w", t.PID, o.Dir, err)
	}
	free := int64(st.Bavail) * st.Bsize
	if free < need {
		return fmt.Errorf("%w: pid %d has %s of heap in use, the dump needs about %s, and %s (%s as the JVM sees it) has %s free (use --dump-dir, --gzip or free space)",
			ErrDiskSpace, t.PID, mib(res.HeapUsed), mib(need), dir, o.Dir, mib(free))
	}
	return nil
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

// dumpCommand names the dump file (as the JVM sees it) and builds the
// jcmd line that writes it.
func dumpCommand(t *attach.Target, o Options, at time.Time) (jvmPath, cmd string) {
	ext := ".hprof"
	if o.Gzip > 0 {
		ext += ".gz"
	}
	jvmPath = path.Join(o.Dir, fmt.Sprintf("hprof2pprof-%d-%d%s", t.NSPID, at.UnixNano(), ext))
	cmd = "GC.heap_dump"
	if o.All {
		cmd += " -all"
	}
	if o.Gzip > 0 {
		cmd += " -gz=" + strconv.Itoa(o.Gzip)
	}
	return jvmPath, cmd + " " + jvmPath
}

// jcmdCall is a jcmd under way; err and reply are set when done closes.
type jcmdCall struct {
	done  chan struct{}
	reply *attach.Reply
	err   error
}

func startJcmd(ctx context.Context, t *attach.Target, sock, line string) *jcmdCall {
	c := &jcmdCall{done: make(chan struct{})}
	go func() {
		defer close(c.done)
		c.reply, c.err = attach.Jcmd(ctx, t, sock, line)
	}()
	return c
}

// dump asks for the heap dump and converts the file while it grows.
func dump(ctx context.Context, t *attach.Target, sock string, o Options, res *Result) (*Result, error) {
	res.Time = time.Now()
	jvmPath, cmd := dumpCommand(t, o, res.Time)
	ours := t.Path(jvmPath)
	// The directory is held open: a JVM that dies mid-dump takes its
	// /proc/PID/root with it, and its file must still be read and removed.
	dirf, err := os.Open(t.Path(o.Dir))
	if err != nil {
		return nil, fmt.Errorf("capture: pid %d: the dump directory %s: %w", t.PID, o.Dir, err)
	}
	defer dirf.Close()
	defer syscall.Unlinkat(int(dirf.Fd()), path.Base(jvmPath)) // a kept dump is a link or a copy
	held := fmt.Sprintf("/proc/self/fd/%d/%s", dirf.Fd(), path.Base(jvmPath))
	dctx := ctx
	if o.DumpTimeout > 0 {
		var cancel context.CancelFunc
		dctx, cancel = context.WithTimeout(ctx, o.DumpTimeout)
		defer cancel()
	}
	before := safepointTime(t)
	o.Logger.Info("heap dump asked", "pid", t.PID, "main", res.JVM.MainClass, "file", ours, "all", o.All, "gzip", o.Gzip)
	call := startJcmd(dctx, t, sock, cmd)
	if o.started != nil {
		o.started(ours)
	}
	g, streamed, cerr := convertDump(dctx, call, held, ours, o.Convert)
	res.Took = time.Since(res.Time)
	if after := safepointTime(t); after >= before && before >= 0 {
		res.Pause = after - before
	}
	if fi, err := os.Stat(held); err == nil {
		res.DumpBytes = fi.Size()
	}
	if err := dumpError(t, call.reply, call.err); err != nil {
		if g != nil && errors.Is(err, attach.ErrJVMGone) {
			res.Graph = g
			return res, err
		}
		return nil, err
	}
	if cerr != nil {
		return nil, fmt.Errorf("capture: pid %d: %s: %w", t.PID, ours, cerr)
	}
	if g.Damage != nil && streamed {
		// A JVM older than 17 patches segment lengths after writing
		// them: read the finished file from its start.
		o.Logger.Info("reading the finished dump again", "pid", t.PID, "why", g.Lost)
		if g2, err := convert.ConvertFile(ctx, held, withDefaultView(o.Convert)); err == nil {
			g = g2
		}
	}
	res.Graph = g
	if o.Keep != "" {
		if err := keep(held, o.Keep); err != nil {
			return res, err
		}
		res.Kept = o.Keep
	}
	o.Logger.Info("heap dump done", "pid", t.PID, "bytes", res.DumpBytes, "took", res.Took, "pause", res.Pause)
	return res, nil
}

// withDefaultView: the conversion options, the heap view when none is asked for.
func withDefaultView(c convert.Options) convert.Options {
	if len(c.Views) == 0 {
		c.Views = []string{"heap"}
	}
	return c
}

// convertDump converts the dump: the heap view, built in one pass, while
// the JVM writes it; views that read parts of the file again (threads,
// retained) once it is written. It returns when the JVM has answered.
func convertDump(ctx context.Context, call *jcmdCall, held, name string, c convert.Options) (*graph.Graph, bool, error) {
	copts := withDefaultView(c)
	streamed := !slices.ContainsFunc(copts.Views, func(v string) bool { return v != "heap" })
	if streamed {
		f := &follower{ctx: ctx, path: held, done: call.done, poll: 20 * time.Millisecond}
		g, err := convertNiced(ctx, f, name, copts)
		f.Close()
		<-call.done
		return g, true, err
	}
	<-call.done
	if call.err != nil && !errors.Is(call.err, attach.ErrJVMGone) {
		return nil, false, nil
	}
	if fi, err := os.Lstat(held); err != nil || !fi.Mode().IsRegular() {
		return nil, false, fmt.Errorf("the dump %s is not a regular file", name)
	}
	g, err := convert.ConvertFile(ctx, held, copts)
	return g, false, err
}

// dumpError turns the JVM's answer into an error: the command is
// accepted with code 0 even when the dump fails, so its output must say
// the file was created.
func dumpError(t *attach.Target, r *attach.Reply, err error) error {
	if err != nil {
		return err
	}
	out := strings.TrimSpace(r.Output)
	if r.Code != 0 || !strings.Contains(out, "Heap dump file created") {
		return fmt.Errorf("%w: pid %d answered %d: %s", ErrDumpFailed, t.PID, r.Code, out)
	}
	return nil
}

// safepointTime is the JVM's total time at safepoints; -1 when unknown.
func safepointTime(t *attach.Target) time.Duration {
	c, err := jvm.Counters(t)
	if err != nil {
		return -1
	}
	if _, ok := c.Longs["sun.rt.safepointTime"]; !ok {
		return -1
	}
	return c.Ticks("sun.rt.safepointTime")
}

// keep moves the dump to dst (copying across file systems). The JVM
// refuses to overwrite a dump, and so do we.
func keep(src, dst string) error {
	if _, err := os.Lstat(dst); err == nil {
		return fmt.Errorf("capture: --keep %s: the file exists", dst)
	}
	if err := os.Link(src, dst); err == nil {
		return nil
	}
	in, err := os.OpenFile(src, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("capture: --keep: %w", err)
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(dst)
		return fmt.Errorf("capture: --keep %s: %w", dst, err)
	}
	return nil
}

// Describe says what was captured and what it cost the JVM, for logs and
// the profile's comments.
func (r *Result) Describe() string {
	s := fmt.Sprintf("heap dump of pid %d (%s", r.JVM.PID, r.JVM.MainClass)
	if v := r.JVM.JavaVersion; v != "" {
		s += ", Java " + v
	}
	s += fmt.Sprintf(") at %s: %d bytes in %v", r.Time.UTC().Format(time.RFC3339), r.DumpBytes, r.Took.Round(time.Millisecond))
	if r.Pause > 0 {
		s += fmt.Sprintf("; the JVM was stopped %v at safepoints", r.Pause.Round(time.Millisecond))
	}
	return s
}

// JVMName names the captured JVM for file and directory names:
// <main class>-<pid>, the main class's base name with '/', ' ' and ':'
// made '_' ("jvm" when unknown).
func (r *Result) JVMName() string {
	main := r.JVM.MainClass
	if main == "" {
		main = "jvm"
	}
	main = strings.Map(func(c rune) rune {
		if c == '/' || c == ' ' || c == ':' {
			return '_'
		}
		return c
	}, filepath.Base(main))
	return fmt.Sprintf("%s-%d", main, r.JVM.PID)
}

// Annotate adds Describe to the comments of every view of the graph.
func (r *Result) Annotate() {
	if r.Graph == nil {
		return
	}
	for _, v := range r.Graph.Views {
		v.Comments = append(v.Comments, r.Describe())
	}
}

// Resource attributes of a capture, besides the JVM's (jvm.Info).
const (
	AttrPause     = "hprof.capture.pause_ms"    // time the JVM was stopped at safepoints during the dump
	AttrDuration  = "hprof.capture.duration_ms" // from asking to the answer
	AttrDumpBytes = "hprof.capture.dump_bytes"  // size of the dump file
	AttrReason    = "hprof.capture.reason"      // what triggered it (agent)
)

// Attributes are the capture's own resource attributes.
func Attributes(r *Result) []*commonpb.KeyValue {
	return []*commonpb.KeyValue{
		intKV(AttrPause, r.Pause.Milliseconds()),
		intKV(AttrDuration, r.Took.Milliseconds()),
		intKV(AttrDumpBytes, r.DumpBytes),
	}
}

func intKV(k string, v int64) *commonpb.KeyValue {
	return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: v}}}
}

// convertNiced converts on an OS thread of its own at a lower CPU
// priority: while the JVM writes the dump it is stopped, so on a busy
// machine the JVM should get the CPU before us. The thread is never
// unlocked, so it ends with the goroutine and its priority with it.
func convertNiced(ctx context.Context, r io.Reader, name string, o convert.Options) (*graph.Graph, error) {
	type result struct {
		g   *graph.Graph
		err error
	}
	ch := make(chan result, 1)
	go func() {
		runtime.LockOSThread()
		syscall.Setpriority(syscall.PRIO_PROCESS, syscall.Gettid(), 10)
		g, err := convert.Convert(ctx, r, name, o)
		ch <- result{g, err}
	}()
	res := <-ch
	return res.g, res.err
}
