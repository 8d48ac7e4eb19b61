// Package watch converts the heap dumps that appear in a directory
// (-XX:HeapDumpPath, a volume jcmd or jmap write to): each once it is
// complete, each once, across restarts.
//
// When is a dump complete? The JVM writes it front to back and closes
// it; the rule here is: its size and modification time have not changed
// for Settle, and no process has it open for writing (checked through
// /proc/*/fd, by device and inode, so a JVM in a container writing to a
// shared volume counts too; without the right to look at another user's
// descriptors, only the first half of the rule applies). A file that
// still reads as truncated and then changes is taken up again.
//
// Done marks: after a dump was handed on, <state>/<name>.done records its
// size and modification time; a restart skips files whose mark matches.
package watch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hprof2pprof/hprof2pprof/convert"
	"github.com/hprof2pprof/hprof2pprof/convert/graph"
)

// Dump is one complete dump file.
type Dump struct {
	Path    string
	Size    int64
	ModTime time.Time
	// PID is the writing JVM's PID when the name says it
	// (java_pid<PID>.hprof, HotSpot's default name); 0 otherwise.
	PID int
}

// Handler receives a converted dump; an error leaves the file unmarked,
// to be tried again on the next scan.
type Handler func(ctx context.Context, d Dump, g *graph.Graph) error

// Options configure a Watcher.
type Options struct {
	Dir      string
	StateDir string        // default Dir/.hprof2pprof
	Poll     time.Duration // default 1s
	Settle   time.Duration // default 2s
	Delete   bool          // remove a dump once handled
	Convert  convert.Options
	Handle   Handler
	Logger   *slog.Logger
}

type seen struct {
	size   int64
	mod    time.Time
	stable time.Time // since when size and mod are unchanged
	failed int64     // size at which conversion failed or was partial
}

// Watcher scans one directory.
type Watcher struct {
	o     Options
	files map[string]*seen
}

// New checks the options and creates the state directory.
func New(o Options) (*Watcher, error) {
	if o.Dir == "" || o.Handle == nil {
		return nil, errors.New("watch: a directory and a handler are required")
	}
	if fi, err := os.Stat(o.Dir); err != nil {
		return nil, fmt.Errorf("watch: %w", err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("watch: %s is not a directory", o.Dir)
	}
	if o.StateDir == "" {
		o.StateDir = filepath.Join(o.Dir, ".hprof2pprof")
	}
	if o.Poll <= 0 {
		o.Poll = time.Second
	}
	if o.Settle <= 0 {
		o.Settle = 2 * time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if err := os.MkdirAll(o.StateDir, 0o755); err != nil {
		return nil, fmt.Errorf("watch: state directory: %w", err)
	}
	return &Watcher{o: o, files: map[string]*seen{}}, nil
}

// Run scans until ctx ends.
func (w *Watcher) Run(ctx context.Context) error {
	t := time.NewTicker(w.o.Poll)
	defer t.Stop()
	for {
		w.Scan(ctx)
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// skipName: our own files, temporary files, and the parts of a parallel
// dump (<name>.p<N>) that the JVM merges into the dump itself.
var skipName = regexp.MustCompile(`(^\.)|(\.p\d+$)|(\.tmp$)|(\.part$)`)

// Scan looks at the directory once and handles every complete dump.
func (w *Watcher) Scan(ctx context.Context) {
	ents, err := os.ReadDir(w.o.Dir)
	if err != nil {
		w.o.Logger.Warn("cannot read the watched directory", "dir", w.o.Dir, "err", err)
		return
	}
	now := time.Now()
	present := map[string]bool{}
	for _, e := range ents {
		if ctx.Err() != nil {
			return
		}
		name := e.Name()
		if !e.Type().IsRegular() || skipName.MatchString(name) {
			continue
		}
		present[name] = true
		fi, err := e.Info()
		if err != nil {
			continue
		}
		s := w.files[name]
		if s == nil || s.size != fi.Size() || !s.mod.Equal(fi.ModTime()) {
			w.files[name] = &seen{size: fi.Size(), mod: fi.ModTime(), stable: now, failed: -1}
			continue
		}
		if now.Sub(s.stable) < w.o.Settle || s.failed == fi.Size() || fi.Size() == 0 {
			continue
		}
		p := filepath.Join(w.o.Dir, name)
		d := Dump{Path: p, Size: fi.Size(), ModTime: fi.ModTime(), PID: pidFromName(name)}
		if w.done(d) {
			continue
		}
		if !isDump(p) {
			s.failed = fi.Size()
			continue
		}
		if openForWriting(fi) {
			continue
		}
		if !w.handle(ctx, d) {
			s.failed = fi.Size()
		}
	}
	for name := range w.files {
		if !present[name] {
			delete(w.files, name)
		}
	}
}

// handle converts and hands on one dump; false when it must wait for
// the file to change.
func (w *Watcher) handle(ctx context.Context, d Dump) bool {
	log := w.o.Logger.With("file", d.Path, "bytes", d.Size)
	g, err := convert.ConvertFile(ctx, d.Path, w.o.Convert)
	if err != nil {
		log.Warn("cannot convert the dump; waiting for it to change", "err", err)
		return false
	}
	if g.Damage != nil {
		log.Warn("the dump is truncated; converted what it holds", "lost", g.Lost)
	}
	if err := w.o.Handle(ctx, d, g); err != nil {
		log.Warn("export failed; will try again", "err", err)
		return true
	}
	if err := w.mark(d); err != nil {
		log.Warn("cannot write the done mark; the dump may be converted again after a restart", "err", err)
	}
	if w.o.Delete {
		if err := os.Remove(d.Path); err != nil {
			log.Warn("cannot delete the dump", "err", err)
		}
	}
	log.Info("heap dump converted", "views", len(g.Views))
	return true
}

func (w *Watcher) markPath(d Dump) string {
	return filepath.Join(w.o.StateDir, filepath.Base(d.Path)+".done")
}

func markText(d Dump) string {
	return fmt.Sprintf("%d %d\n", d.Size, d.ModTime.UnixNano())
}

func (w *Watcher) done(d Dump) bool {
	b, err := os.ReadFile(w.markPath(d))
	return err == nil && string(b) == markText(d)
}

func (w *Watcher) mark(d Dump) error {
	p := w.markPath(d)
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, []byte(markText(d)), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, p)
}

var pidName = regexp.MustCompile(`java_pid(\d+)`)

func pidFromName(name string) int {
	m := pidName.FindStringSubmatch(name)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// isDump: an HPROF file by content, plain or gzip (the JDK's -gz and
// gzip'd copies). Other files in the directory are left alone.
func isDump(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 13)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	return strings.HasPrefix(string(head), "JAVA PROFILE ") || (n >= 2 && head[0] == 0x1f && head[1] == 0x8b)
}

// openForWriting reports whether any process has the file open for
// writing. Descriptors we may not inspect are skipped.
func openForWriting(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return false
	}
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return false
	}
	base := fi.Name()
	for _, p := range procs {
		if _, err := strconv.Atoi(p.Name()); err != nil {
			continue
		}
		fdDir := filepath.Join("/proc", p.Name(), "fd")
		fds, err := os.ReadDir(fdDir)
		if err != nil {
			continue
		}
		for _, fd := range fds {
			link, err := os.Readlink(filepath.Join(fdDir, fd.Name()))
			if err != nil || filepath.Base(strings.TrimSuffix(link, " (deleted)")) != base {
				continue
			}
			var fst syscall.Stat_t
			if syscall.Stat(filepath.Join(fdDir, fd.Name()), &fst) != nil || fst.Dev != st.Dev || fst.Ino != st.Ino {
				continue
			}
			if writable(filepath.Join("/proc", p.Name(), "fdinfo", fd.Name())) {
				return true
			}
		}
	}
	return false
}

// writable reads the flags line of an fdinfo file (octal open flags).
func writable(fdinfo string) bool {
	b, err := os.ReadFile(fdinfo)
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "flags:"); ok {
			fl, err := strconv.ParseInt(strings.TrimSpace(v), 8, 64)
			return err == nil && fl&(syscall.O_WRONLY|syscall.O_RDWR) != 0
		}
	}
	return false
}
