package batch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
)

// An output format. Each lives in its own file, format_<name>.go, and
// registers itself from init with registerFormat.
//
// Run decodes each input into a graph, hands it to the format's writer
// with Add, and calls Close once after the last input. Inputs are
// decoded by several workers at once; how Add is called depends on the
// writer (see perInputWriter):
//
//   - per input: Add writes every output of its input before it returns
//     and keeps nothing (pprof, folded, one OTLP file per input). Add may
//     then be called from several workers at once, so it must be safe for
//     concurrent use (a writer that only reads its destination is). With
//     an output directory, a rerun skips inputs whose outputs are
//     complete.
//   - otherwise the writer gathers inputs into shared output (Parquet
//     tables, one OTLP request for Out). Add is never called
//     concurrently, and it is called in input order whatever finishes
//     decoding first, so the output does not depend on timing. Every
//     input is converted on each run.
type outputFormat struct {
	name string
	open func(dst Destination, o FormatOptions) (Writer, error)
}

// FormatOptions are the options of particular formats.
type FormatOptions struct {
	// FoldedTypes (folded) are the sample types to value stacks by; each
	// view takes the first it has, else its default.
	FoldedTypes []string
	// ServiceName (otlp) is the service.name of the profiles (default:
	// the input's base name).
	ServiceName string
	// Tables (parquet, arrow) are the heap tables to write besides the
	// default ones, as parquet.ParseTables reads them.
	Tables string
	// Single (parquet, arrow) writes one table set of every input in the
	// output directory instead of a dataset partitioned by input.
	Single bool
}

// A Writer receives the graph of each input.
type Writer interface {
	// Add writes or keeps the views of one input. input is the path the
	// user gave; views are the names to write (already filtered to those
	// the graph has). It returns the paths it wrote, for messages
	// ("standard output" for Out "-").
	Add(ctx context.Context, input string, g *graph.Graph, views []string) ([]string, error)
	// Close finishes the output and returns any further paths written.
	Close() ([]string, error)
}

// perInputWriter is implemented by a writer whose outputs are per input
// when perInput returns true (see outputFormat).
type perInputWriter interface {
	perInput() bool
}

// objectSinker is implemented by a writer that takes the heap dump's
// objects as rows (Parquet with heap tables): ObjectSink returns the
// sink for one input, nil when no such table was asked for.
type objectSinker interface {
	ObjectSink(input string) *graph.ObjectSink
}

// PerInput reports whether w writes each input's outputs on its own
// (pprof, folded, OTLP without Out) rather than gathering every input
// into shared output.
func PerInput(w Writer) bool {
	p, ok := w.(perInputWriter)
	return ok && p.perInput()
}

var formats = map[string]outputFormat{}

func registerFormat(f outputFormat) { formats[f.name] = f }

// Formats names the output formats, sorted.
func Formats() []string {
	var n []string
	for k := range formats {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// OpenFormat opens the writer of the named format for dst. An error
// wrapping ErrUsage says the format and the destination do not fit (or
// the format is unknown).
func OpenFormat(name string, dst Destination, o FormatOptions) (Writer, error) {
	f, ok := formats[name]
	if !ok {
		return nil, fmt.Errorf("%w: unknown --format %q (have %s)", ErrUsage, name, strings.Join(Formats(), ", "))
	}
	return f.open(dst, o)
}

// A folderError is a folder that an output could not be written in.
type folderError struct {
	dir string
	err error
}

func (e *folderError) Error() string { return fmt.Sprintf("cannot write in %s (%v)", e.dir, e.err) }
func (e *folderError) Unwrap() error { return e.err }

// readOnly reports whether err is a folder that cannot be written in.
func readOnly(err error) bool {
	var fe *folderError
	return errors.As(err, &fe) && (errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS))
}

// createTemp makes the temporary files outputs are written through (a
// test makes it fail as a read-only folder would).
var createTemp = os.CreateTemp

// writeFileAtomic writes path through a temporary file in the same
// directory and renames it into place, so a killed run leaves no half
// file under the final name.
func writeFileAtomic(path string, write func(f *os.File) error) error {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	f, err := createTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
		// The temporary name means nothing to a person: name the folder.
		return &folderError{dir: filepath.Dir(path), err: pe.Err}
	}
	if err != nil {
		return err
	}
	tmp := f.Name()
	if err := write(f); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Chmod(tmp, 0o644); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}
