package batch

import (
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/hprof2pprof/hprof2pprof/internal/objstore"
)

// An Input of a conversion job: a file named as an argument or found
// under a directory named there.
type Input struct {
	Path string // as opened ("-" standard input)
	// Key is the input's name relative to the directory argument it was
	// found under (slash-separated), or the path as given for a file
	// argument. Shards split by it, so it must not depend on the worker.
	Key string
	// Rel is where its outputs go under an output directory, mirroring
	// the input tree:
	// Key for files found in a directory, the base name for file
	// arguments; the compression suffix is dropped unless that would
	// make two inputs share outputs.
	Rel     string
	Size    int64 // -1 when unknown (standard input)
	ModTime time.Time
	// InDir: the input was found by walking a directory argument, not
	// named; if its content is no input this tool reads, and its name
	// does not say it is a dump, the job skips it (StatusNotInput).
	InDir bool
	// Unlisted, when set, is why this directory under a directory
	// argument could not be listed: the job reads nothing of it and
	// reports it as unreadable.
	Unlisted error
	// Remote, for an object in a bucket, is where it is (Path is then
	// its URL without the query).
	Remote *objstore.Location
}

// Selection says which files a directory walk takes.
type Selection struct {
	// Include and Exclude are globs on the base name, or on the relative
	// path when they hold "/"; with Include, only matching files are
	// taken.
	Include, Exclude []string
	SkipDir          string // the output directory, never walked into
}

// ownOutputs are the suffixes of files this tool writes; a directory
// walk never takes them as inputs, so a rerun over a tree that holds its
// own outputs does not try to convert them.
var ownOutputs = []string{".pb.gz", ".pb", ".folded", ".parquet", ".arrow", ".json"}

func (s *Selection) takes(rel string) (bool, error) {
	base := path.Base(rel)
	match := func(globs []string) (bool, error) {
		for _, g := range globs {
			subject := base
			if strings.Contains(g, "/") {
				subject = rel
			}
			ok, err := path.Match(g, subject)
			if err != nil {
				return false, fmt.Errorf("%w: bad glob %q: %v", ErrUsage, g, err)
			}
			if ok {
				return true, nil
			}
		}
		return false, nil
	}
	for _, suf := range ownOutputs {
		if strings.HasSuffix(base, suf) {
			return false, nil
		}
	}
	if len(s.Include) > 0 {
		if ok, err := match(s.Include); !ok || err != nil {
			return false, err
		}
	}
	ok, err := match(s.Exclude)
	return !ok, err
}

// Expand turns arguments into inputs: a file stays, a directory is
// walked recursively (hidden files and directories and sel.SkipDir are
// skipped; sel's globs apply; a subdirectory that cannot be listed is an
// input with Unlisted set, which the job reports and skips), "-" is standard input, and a path that
// cannot be read is kept (the job reports it as that input's failure).
// Inputs are returned in a stable order: arguments in order, each
// directory's files sorted by path; a file reached twice is kept once.
// An error wrapping ErrUsage is a bad glob.
func Expand(args []string, sel Selection) ([]Input, error) {
	var out []Input
	seen := map[string]bool{}
	add := func(in Input) {
		if k := filepath.Clean(in.Path); !seen[k] {
			seen[k] = true
			out = append(out, in)
		}
	}
	skip := ""
	if sel.SkipDir != "" {
		skip, _ = filepath.Abs(sel.SkipDir)
	}
	for _, a := range args {
		if a == "-" {
			add(Input{Path: "-", Key: "-", Rel: "stdin", Size: -1})
			continue
		}
		if objstore.IsURL(a) {
			found, err := expandRemote(a, sel)
			if err != nil {
				return nil, err
			}
			for _, in := range found {
				add(in)
			}
			continue
		}
		fi, err := os.Stat(a)
		if err != nil {
			// Kept: the job reports it as this input's failure.
			add(Input{Path: a, Key: filepath.ToSlash(a), Rel: filepath.Base(a), Size: -1})
			continue
		}
		if !fi.IsDir() {
			add(Input{Path: a, Key: filepath.ToSlash(filepath.Clean(a)), Rel: filepath.Base(a), Size: fi.Size(), ModTime: fi.ModTime()})
			continue
		}
		found, err := walk(a, sel, skip)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", a, err)
		}
		sort.Slice(found, func(i, j int) bool { return found[i].Key < found[j].Key })
		for _, in := range found {
			add(in)
		}
	}
	nameOutputs(out)
	return out, nil
}

// dirFS opens a directory argument for the walk (a test makes part of
// it unreadable).
var dirFS = os.DirFS

// walk lists the files under dir that sel takes, skipping hidden files
// and directories and the directory skip (absolute; "" for none); a
// subdirectory that cannot be listed is an Input with Unlisted set.
func walk(dir string, sel Selection, skip string) ([]Input, error) {
	var found []Input
	err := fs.WalkDir(dirFS(dir), ".", func(rel string, d fs.DirEntry, err error) error {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if rel == "." {
			p = dir
		}
		if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
			pe.Path = filepath.Join(dir, filepath.FromSlash(pe.Path))
		}
		if err != nil && rel != "." && d != nil && d.IsDir() {
			// A directory that cannot be listed (a lost+found) is
			// skipped; the job reports it and goes on.
			found = append(found, Input{Path: p, Key: rel, Rel: rel, InDir: true, Unlisted: err})
			return filepath.SkipDir
		}
		if err != nil {
			return err
		}
		if rel != "." && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if abs, _ := filepath.Abs(p); skip != "" && abs == skip {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		ok, err := sel.takes(rel)
		if err != nil || !ok {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		found = append(found, Input{Path: p, Key: rel, Rel: rel, Size: info.Size(), ModTime: info.ModTime(), InDir: true})
		return nil
	})
	return found, err
}

// namedAsDump reports whether a file's name says it is an HPROF file or
// report ("java_pid1.hprof", "dump.hprof.gz", "java.hprof.txt"): such a
// file that is not one is damaged, not something else.
func namedAsDump(path string) bool {
	return strings.Contains(strings.ToLower(filepath.Base(path)), "hprof")
}

// nameOutputs drops the compression suffix from each input's Rel
// ("dump.hprof.gz" writes "dump.hprof.heap.pb.gz"), except where two
// inputs would then share their outputs.
func nameOutputs(ins []Input) {
	count := map[string]int{}
	for _, in := range ins {
		count[stripCompression(in.Rel)]++
	}
	for i := range ins {
		if s := stripCompression(ins[i].Rel); count[s] == 1 {
			ins[i].Rel = s
		}
	}
}

func stripCompression(name string) string {
	name = strings.TrimSuffix(name, ".gz")
	return strings.TrimSuffix(name, ".bz2")
}

// A Shard is one part of a job split over several runners: the inputs
// whose key hashes to Index modulo Count. The zero value and {0, 1} are
// the whole job.
type Shard struct{ Index, Count int }

// ParseShard reads "i/n" (0 <= i < n); "" is the whole job. An error
// wraps ErrUsage.
func ParseShard(s string) (Shard, error) {
	if s == "" {
		return Shard{0, 1}, nil
	}
	i, n, ok := strings.Cut(s, "/")
	a, err1 := strconv.Atoi(i)
	b, err2 := strconv.Atoi(n)
	if !ok || err1 != nil || err2 != nil || b < 1 || a < 0 || a >= b {
		return Shard{}, fmt.Errorf("%w: --shard wants i/n with 0 <= i < n, got %q", ErrUsage, s)
	}
	return Shard{a, b}, nil
}

// Has reports whether the input with this key belongs to the shard. The
// split depends only on the key (FNV-1a), so every runner given the same
// inputs agrees, whatever the machine or the order of the files.
func (s Shard) Has(key string) bool {
	if s.Count <= 1 {
		return true
	}
	h := fnv.New64a()
	h.Write([]byte(key))
	return h.Sum64()%uint64(s.Count) == uint64(s.Index)
}

// Select returns the inputs of ins that belong to the shard, in order.
func (s Shard) Select(ins []Input) []Input {
	var mine []Input
	for _, in := range ins {
		if s.Has(in.Key) {
			mine = append(mine, in)
		}
	}
	return mine
}

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }
