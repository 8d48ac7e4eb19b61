package convert

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/hprof"
	"github.com/hprof2pprof/hprof2pprof/convert/internal/testhooks"
	"github.com/hprof2pprof/hprof2pprof/convert/source"
)

// Sentinel errors of this package.
var (
	// ErrNotHPROF: the input is not an HPROF file or report. The message
	// says what it looks like.
	ErrNotHPROF = hprof.ErrNotHPROF
	// ErrUnsupported: an HPROF variant this version cannot read.
	ErrUnsupported = hprof.ErrUnsupported
	// ErrMemoryLimit: decoding needed more memory than Options.MaxMemory.
	ErrMemoryLimit = source.ErrMemoryLimit
)

// ConvertFile decodes the file at path ("-" reads standard input). It
// returns an error only when nothing usable was read; a damaged or
// truncated input gives a graph with Damage set and what was lost in
// Lost.
func ConvertFile(ctx context.Context, path string, opts Options) (*graph.Graph, error) {
	return limited(ctx, opts, func(ctx context.Context, opts Options) (*graph.Graph, error) {
		return convertFile(ctx, path, opts)
	})
}

func convertFile(ctx context.Context, path string, opts Options) (*graph.Graph, error) {
	if path == "-" {
		return convertReader(ctx, os.Stdin, "-", opts)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if !testhooks.From(ctx).Sequential {
		// A plain binary file: stream its records, read heap segments
		// in parallel (parallel.go).
		head := make([]byte, 512)
		n, _ := f.ReadAt(head, 0)
		if source.Sniff(head[:n]) == source.Binary {
			g := newGraph(path, "")
			in, err := hprof.NewFile(f, hprof.Again{At: hprof.AtFile(f)})
			if err != nil {
				return nil, err
			}
			if err := decodeBinary(ctx, in, g, opts); err != nil {
				return nil, err
			}
			return g, nil
		}
	}
	if zr, ok := source.ParallelGunzip(f); ok {
		// Inflated on every core, the JDK's -gz is read again faster
		// than a copy would be written during the first pass: no copy.
		defer zr.Close()
		again := hprof.Again{At: membersAt(zr), Reopen: source.Reopen(path)}
		g, err := convertStream(ctx, zr, again, "gzip", path, opts)
		if g != nil {
			g.Source.Notes = append(g.Source.Notes, "gzip: the JDK's chunked -gz format, members inflated in parallel ("+source.InflateImpl+")")
		}
		return g, err
	}
	return convert(ctx, f, path, opts, source.Reopen(path))
}

// membersAt gives random access to a chunked gzip file's inflated bytes
// once they were all read (its member index), nil before.
func membersAt(zr *source.Gunzip) func() io.ReaderAt {
	return func() io.ReaderAt {
		if m := zr.Inflated(); m != nil {
			return m
		}
		return nil
	}
}

// Convert decodes one input stream; name is what messages call it.
func Convert(ctx context.Context, r io.Reader, name string, opts Options) (*graph.Graph, error) {
	return limited(ctx, opts, func(ctx context.Context, opts Options) (*graph.Graph, error) {
		return convertReader(ctx, r, name, opts)
	})
}

func convertReader(ctx context.Context, r io.Reader, name string, opts Options) (*graph.Graph, error) {
	return convert(ctx, r, name, opts, nil)
}

func convert(ctx context.Context, in io.Reader, name string, opts Options, reopen func() (io.ReadCloser, error)) (*graph.Graph, error) {
	r, compression, prefix, err := source.Decompress(in)
	if err != nil {
		return nil, err
	}
	var kept *source.Copy
	if compression != "" {
		rereads := (opts.asks(graph.ViewRetained) || opts.Objects != nil) && source.Sniff(prefix) == source.Binary
		r, reopen, kept = source.Keep(r, opts.SpillDir, rereads, reopen)
		defer kept.Close()
	}
	g, err := decodeStream(ctx, r, hprof.Again{Reopen: reopen}, compression, prefix, name, opts)
	if note := kept.Note(compression); g != nil && note != "" {
		g.Source.Notes = append(g.Source.Notes, note)
	}
	return g, err
}

// convertStream decodes an already decompressed stream; again says how
// it is read after the first pass.
func convertStream(ctx context.Context, in io.Reader, again hprof.Again, compression, name string, opts Options) (*graph.Graph, error) {
	br, prefix, err := source.Peek(in, compression)
	if err != nil {
		return nil, err
	}
	return decodeStream(ctx, br, again, compression, prefix, name, opts)
}

func decodeStream(ctx context.Context, r io.Reader, again hprof.Again, compression string, prefix []byte, name string, opts Options) (*graph.Graph, error) {
	var err error
	g := newGraph(name, compression)
	switch kind := source.Sniff(prefix); kind {
	case source.Binary:
		var in *hprof.File
		if in, err = hprof.NewFile(r, again); err != nil {
			return nil, err
		}
		err = decodeBinary(ctx, in, g, opts)
	case source.Text:
		err = decodeText(ctx, r, g, opts)
	default:
		return nil, fmt.Errorf("%w (looks like %s)", ErrNotHPROF, kind)
	}
	if err != nil {
		return nil, err
	}
	return g, nil
}

func newGraph(name, compression string) *graph.Graph {
	g := graph.New()
	g.Source.Path = name
	g.Source.Compression = compression
	g.Source.Records = map[string]int64{}
	return g
}

// limited runs decode under opts.MaxMemory (when set): a decode stopped
// by the limit returns the limit's error, not the cancellation. The graph
// (a partial one too) is canonicalized: the same input gives the same
// frame and stack ids.
func limited(ctx context.Context, opts Options, decode func(context.Context, Options) (*graph.Graph, error)) (*graph.Graph, error) {
	if opts.MaxMemory > 0 {
		var stop func()
		ctx, stop = source.WatchMemory(ctx, opts.MaxMemory)
		defer stop()
	}
	g, err := decode(ctx, opts)
	if cause := context.Cause(ctx); opts.MaxMemory > 0 && errors.Is(cause, ErrMemoryLimit) {
		return nil, cause
	}
	if g != nil {
		g.Canonicalize() // the same ids for the same input, run after run
	}
	return g, err
}
