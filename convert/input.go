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
			r, err := hprof.NewReader(f)
			if err != nil {
				return nil, err
			}
			if err := decodeBinary(ctx, r, f, nil, g, opts, source.Reopen(path)); err != nil {
				return nil, err
			}
			return g, nil
		}
	}
	if zr, ok := source.ParallelGunzip(f); ok {
		// Inflated on every core, the JDK's -gz is read again faster
		// than a copy would be written during the first pass: no copy.
		defer zr.Close()
		g, err := convertStream(ctx, zr, zr.Inflated, "gzip", path, opts, source.Reopen(path))
		if g != nil {
			g.Source.Notes = append(g.Source.Notes, "gzip: the JDK's chunked -gz format, members inflated in parallel ("+source.InflateImpl+")")
		}
		return g, err
	}
	return convert(ctx, f, path, opts, source.Reopen(path))
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
	g, err := decodeStream(ctx, r, nil, compression, prefix, name, opts, reopen)
	if note := kept.Note(compression); g != nil && note != "" {
		g.Source.Notes = append(g.Source.Notes, note)
	}
	return g, err
}

// convertStream decodes an already decompressed stream; inflated, when
// set, gives random access to it once it was read.
func convertStream(ctx context.Context, in io.Reader, inflated func() *source.Members, compression, name string, opts Options, reopen func() (io.ReadCloser, error)) (*graph.Graph, error) {
	br, prefix, err := source.Peek(in, compression)
	if err != nil {
		return nil, err
	}
	return decodeStream(ctx, br, inflated, compression, prefix, name, opts, reopen)
}

func decodeStream(ctx context.Context, r io.Reader, inflated func() *source.Members, compression string, prefix []byte, name string, opts Options, reopen func() (io.ReadCloser, error)) (*graph.Graph, error) {
	var err error
	g := newGraph(name, compression)
	switch kind := source.Sniff(prefix); kind {
	case source.Binary:
		var hr *hprof.Reader
		if hr, err = hprof.NewReader(r); err != nil {
			return nil, err
		}
		err = decodeBinary(ctx, hr, nil, inflated, g, opts, reopen)
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
