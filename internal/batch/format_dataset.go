package batch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/parquet"
)

// datasetWriter writes Parquet or Arrow tables as a dataset partitioned
// hive-style by input: DIR/<table>/input=<key>/part-0.<ext>, one
// partition per input and table, so any number of shards and runs add to
// one dataset that Spark, Trino, Athena and DuckDB read as one table per
// kind (read_parquet('DIR/objects/**/*.parquet', hive_partitioning =
// true)). Every row keeps its source column; the partition key is named
// input, not source, since engines let a partition value shadow a column
// of its name. Each input's tables are written in a staging folder
// (DIR/.staging, which engines skip) and renamed into place, each file
// whole; a rerun of an input replaces its partitions.
type datasetWriter struct {
	dir    string
	opts   parquet.Options
	mu     sync.Mutex
	staged map[string]*staged // by input, from ObjectSink to Add
}

// staged is one input's tables being written.
type staged struct {
	dir string
	w   *parquet.Writer
}

// ParseLayout reads --layout: "partitioned" (a dataset) or "single" (one
// table set of every input); single reports the latter.
func ParseLayout(s string) (single bool, err error) {
	switch s {
	case "partitioned":
		return false, nil
	case "single":
		return true, nil
	}
	return false, fmt.Errorf("must be partitioned or single")
}

// stagingDir is where inputs' tables are written before they are renamed
// into the dataset; a name starting with "." is skipped by the engines.
const stagingDir = ".staging"

// PartitionKey names an input's partition: its base name without
// compression suffix, made of letters, digits, '.', '_' and '-', and 8
// hex digits of a hash of the path as given, so two inputs of one name
// in different folders stay apart and a rerun finds the same key.
func PartitionKey(input string) string {
	base := stripCompression(filepath.Base(input))
	var b strings.Builder
	for _, r := range base {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	sum := sha256.Sum256([]byte(input))
	return b.String() + "-" + hex.EncodeToString(sum[:4])
}

func openDataset(dir string, opts parquet.Options) (*datasetWriter, error) {
	if err := os.MkdirAll(filepath.Join(dir, stagingDir), 0o755); err != nil {
		return nil, &folderError{dir: dir, err: err}
	}
	cleanStaging(filepath.Join(dir, stagingDir))
	return &datasetWriter{dir: dir, opts: opts, staged: map[string]*staged{}}, nil
}

// stagePrefix starts the name of this process's staging folders: the
// host and the process ID, so that a later run can tell a killed run's
// leftovers from a live shard's work (cleanStaging).
func stagePrefix() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s-%d-", strings.ReplaceAll(host, "-", "_"), os.Getpid())
}

// cleanStaging removes the staging folders of runs of this host that
// ended without cleaning up (killed): their process is gone. Shards on
// other hosts, or alive here, are left alone.
func cleanStaging(dir string) {
	host, _ := os.Hostname()
	host = strings.ReplaceAll(host, "-", "_")
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		h, rest, ok := strings.Cut(e.Name(), "-")
		pid, _, ok2 := strings.Cut(rest, "-")
		if !ok || !ok2 || h != host {
			continue
		}
		if n, err := strconv.Atoi(pid); err == nil && n != os.Getpid() && !alive(n) {
			os.RemoveAll(filepath.Join(dir, e.Name()))
		}
	}
}

// alive reports whether process pid exists.
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// perInput: each input's partitions are written by Add, on their own.
func (d *datasetWriter) perInput() bool { return true }

// stage opens (or returns) the staging writer of an input.
func (d *datasetWriter) stage(input string) (*staged, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if s := d.staged[input]; s != nil {
		return s, nil
	}
	dir, err := os.MkdirTemp(filepath.Join(d.dir, stagingDir), stagePrefix()+PartitionKey(input)+".*")
	if err != nil {
		return nil, &folderError{dir: d.dir, err: err}
	}
	w, err := parquet.NewWriter(dir, d.opts)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	s := &staged{dir: dir, w: w}
	d.staged[input] = s
	return s, nil
}

// ObjectSink hands the heap tables' rows of one input to its staging
// writer (nil when no heap table was asked for).
func (d *datasetWriter) ObjectSink(input string) *graph.ObjectSink {
	if len(d.opts.HeapTables) == 0 {
		return nil
	}
	s, err := d.stage(input)
	if err != nil {
		return &graph.ObjectSink{Done: func() error { return err }}
	}
	return s.w.ObjectSink(input)
}

// Add writes the input's tables and moves them into its partitions.
func (d *datasetWriter) Add(ctx context.Context, input string, g *graph.Graph, views []string) ([]string, error) {
	s, err := d.stage(input)
	if err != nil {
		return nil, err
	}
	defer d.drop(input)
	if err := s.w.AddViews(input, g, views); err != nil {
		s.w.Close()
		return nil, err
	}
	if err := s.w.Close(); err != nil {
		return nil, err
	}
	return d.publish(PartitionKey(input), s.w.Files())
}

// publish renames an input's table files into their partitions, each
// replacing the file a former run left there.
func (d *datasetWriter) publish(key string, files []string) ([]string, error) {
	var out []string
	for _, f := range files {
		name := filepath.Base(f)
		table := strings.TrimSuffix(name, d.opts.Format.Ext())
		part := filepath.Join(d.dir, table, "input="+key)
		if err := os.MkdirAll(part, 0o755); err != nil {
			return out, &folderError{dir: part, err: err}
		}
		dst := filepath.Join(part, "part-0"+d.opts.Format.Ext())
		if err := os.Rename(f, dst); err != nil {
			return out, fmt.Errorf("moving %s into the dataset: %w", name, err)
		}
		out = append(out, dst)
	}
	return out, nil
}

// drop forgets an input's staging writer and removes its folder.
func (d *datasetWriter) drop(input string) {
	d.mu.Lock()
	s := d.staged[input]
	delete(d.staged, input)
	d.mu.Unlock()
	if s != nil {
		os.RemoveAll(s.dir)
	}
}

// Close removes what inputs that failed left in the staging folder.
func (d *datasetWriter) Close() ([]string, error) {
	d.mu.Lock()
	left := d.staged
	d.staged = map[string]*staged{}
	d.mu.Unlock()
	for _, s := range left {
		s.w.Close()
		os.RemoveAll(s.dir)
	}
	os.Remove(filepath.Join(d.dir, stagingDir)) // only when empty
	return nil, nil
}
