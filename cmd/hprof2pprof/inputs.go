package main

import (
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
)

// An input of a conversion job: a file named on the command line or found
// under a directory named there.
type input struct {
	Path string // as opened ("-" standard input)
	// Key is the input's name relative to the directory argument it was
	// found under (slash-separated), or the path as given for a file
	// argument. Shards split by it, so it must not depend on the worker.
	Key string
	// Rel is where its outputs go under -d, mirroring the input tree:
	// Key for files found in a directory, the base name for file
	// arguments; the compression suffix is dropped unless that would
	// make two inputs share outputs.
	Rel     string
	Size    int64 // -1 when unknown (standard input)
	ModTime time.Time
}

// selection says which files a directory walk takes.
type selection struct {
	include, exclude listFlag // globs on the base name, or on the relative path when they hold "/"
	skipDir          string   // the output directory, never walked into
}

// ownOutputs are the suffixes of files this tool writes; a directory
// walk never takes them as inputs, so a rerun over a tree that holds its
// own outputs does not try to convert them.
var ownOutputs = []string{".pb.gz", ".pb", ".folded", ".parquet", ".arrow", ".json"}

func (s *selection) takes(rel string) (bool, error) {
	base := path.Base(rel)
	match := func(globs listFlag) (bool, error) {
		for _, g := range globs {
			subject := base
			if strings.Contains(g, "/") {
				subject = rel
			}
			ok, err := path.Match(g, subject)
			if err != nil {
				return false, fmt.Errorf("%w: bad glob %q: %v", errUsage, g, err)
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
	if len(s.include) > 0 {
		if ok, err := match(s.include); !ok || err != nil {
			return false, err
		}
	}
	ok, err := match(s.exclude)
	return !ok, err
}

// expandInputs turns the command line's inputs into files: a file stays,
// a directory is walked recursively (hidden files and directories and
// the output directory are skipped; --include/--exclude apply). Inputs
// are returned in a stable order: arguments in order, each directory's
// files sorted by path; a file reached twice is kept once.
func expandInputs(args []string, sel selection) ([]input, error) {
	var out []input
	seen := map[string]bool{}
	add := func(in input) {
		if k := filepath.Clean(in.Path); !seen[k] {
			seen[k] = true
			out = append(out, in)
		}
	}
	skip := ""
	if sel.skipDir != "" {
		skip, _ = filepath.Abs(sel.skipDir)
	}
	for _, a := range args {
		if a == "-" {
			add(input{Path: "-", Key: "-", Rel: "stdin", Size: -1})
			continue
		}
		fi, err := os.Stat(a)
		if err != nil {
			// Kept: the job reports it as this input's failure.
			add(input{Path: a, Key: filepath.ToSlash(a), Rel: filepath.Base(a), Size: -1})
			continue
		}
		if !fi.IsDir() {
			add(input{Path: a, Key: filepath.ToSlash(filepath.Clean(a)), Rel: filepath.Base(a), Size: fi.Size(), ModTime: fi.ModTime()})
			continue
		}
		var found []input
		err = filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if p != a && strings.HasPrefix(d.Name(), ".") {
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
			rel, err := filepath.Rel(a, p)
			if err != nil {
				return err
			}
			rel = filepath.ToSlash(rel)
			ok, err := sel.takes(rel)
			if err != nil || !ok {
				return err
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			found = append(found, input{Path: p, Key: rel, Rel: rel, Size: info.Size(), ModTime: info.ModTime()})
			return nil
		})
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

// nameOutputs drops the compression suffix from each input's Rel
// ("dump.hprof.gz" writes "dump.hprof.heap.pb.gz"), except where two
// inputs would then share their outputs.
func nameOutputs(ins []input) {
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

// shard is one part of a job split over several runners: inputs whose
// key hashes to Index modulo Count.
type shard struct{ Index, Count int }

func parseShard(s string) (shard, error) {
	if s == "" {
		return shard{0, 1}, nil
	}
	i, n, ok := strings.Cut(s, "/")
	a, err1 := strconv.Atoi(i)
	b, err2 := strconv.Atoi(n)
	if !ok || err1 != nil || err2 != nil || b < 1 || a < 0 || a >= b {
		return shard{}, fmt.Errorf("%w: --shard wants i/n with 0 <= i < n, got %q", errUsage, s)
	}
	return shard{a, b}, nil
}

// has reports whether the input with this key belongs to the shard. The
// split depends only on the key (FNV-1a), so every runner given the same
// inputs agrees, whatever the machine or the order of the files.
func (s shard) has(key string) bool {
	if s.Count <= 1 {
		return true
	}
	h := fnv.New64a()
	h.Write([]byte(key))
	return h.Sum64()%uint64(s.Count) == uint64(s.Index)
}

func (s shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }
