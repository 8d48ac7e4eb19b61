// Package watch converts the heap dumps that appear in a directory or
// its subdirectories, three levels deep (-XX:HeapDumpPath, a volume jcmd
// or jmap write to, a node's per-pod dump directories): each once it is
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
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
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
	Rel string // Path relative to the watched directory
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

// maxDepth bounds how deep Scan looks: DIR/<pod>/<container>/dump.hprof
// covers a node's per-pod dump directories.
const maxDepth = 3

// Scan looks at the directory (and its subdirectories, to maxDepth;
// hidden ones and the state directory skipped) once and handles every
// complete dump.
func (w *Watcher) Scan(ctx context.Context) {
	now := time.Now()
	present := map[string]bool{}
	err := filepath.WalkDir(w.o.Dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			if p == w.o.Dir {
				return err
			}
			return nil // a subdirectory we may not read
		}
		if ctx.Err() != nil {
			return filepath.SkipAll
		}
		rel, _ := filepath.Rel(w.o.Dir, p)
		if e.IsDir() {
			if p != w.o.Dir && (strings.HasPrefix(e.Name(), ".") || p == w.o.StateDir || strings.Count(rel, string(filepath.Separator)) >= maxDepth-1) {
				return filepath.SkipDir
			}
			return nil
		}
		if !e.Type().IsRegular() || skipName.MatchString(e.Name()) {
			return nil
		}
		present[rel] = true
		w.consider(ctx, rel, e, now)
		return nil
	})
	if err != nil {
		w.o.Logger.Warn("cannot read the watched directory", "dir", w.o.Dir, "err", err)
	}
	for name := range w.files {
		if !present[name] {
			delete(w.files, name)
		}
	}
}

// consider handles one file once it has settled and is complete.
func (w *Watcher) consider(ctx context.Context, rel string, e fs.DirEntry, now time.Time) {
	fi, err := e.Info()
	if err != nil {
		return
	}
	s := w.files[rel]
	if s == nil || s.size != fi.Size() || !s.mod.Equal(fi.ModTime()) {
		w.files[rel] = &seen{size: fi.Size(), mod: fi.ModTime(), stable: now, failed: -1}
		return
	}
	if now.Sub(s.stable) < w.o.Settle || s.failed == fi.Size() || fi.Size() == 0 {
		return
	}
	p := filepath.Join(w.o.Dir, rel)
	d := Dump{Path: p, Size: fi.Size(), ModTime: fi.ModTime(), PID: pidFromName(e.Name()), Rel: rel}
	if w.done(d) {
		return
	}
	if !isDump(p) {
		s.failed = fi.Size()
		return
	}
	if openForWriting(fi) {
		return
	}
	if !w.handle(ctx, d) {
		s.failed = fi.Size()
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

// markPath: one mark per file, named by its path under the directory
// ("pod1/java_pid1.hprof" → "pod1%2Fjava_pid1.hprof.done").
func (w *Watcher) markPath(d Dump) string {
	return filepath.Join(w.o.StateDir, strings.ReplaceAll(strings.ReplaceAll(d.Rel, "%", "%25"), string(filepath.Separator), "%2F")+".done")
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
	if strings.HasPrefix(string(head), "JAVA PROFILE ") {
		return true
	}
	if n < 2 || head[0] != 0x1f || head[1] != 0x8b {
		return false
	}
	// gzip: an HPROF inside, not some other compressed file (the agent's
	// own .pb.gz profiles may be written below the watched directory).
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return false
	}
	zr, err := gzip.NewReader(f)
	if err != nil {
		return false
	}
	inner := make([]byte, 13)
	n, _ = io.ReadFull(zr, inner)
	return strings.HasPrefix(string(inner[:n]), "JAVA PROFILE ")
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
