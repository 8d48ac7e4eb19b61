package convert

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/hprof"
	"github.com/hprof2pprof/hprof2pprof/convert/internal/heaprows"
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
	// ErrNeedFile: Decoded.Rows of an input that cannot be read again
	// (standard input).
	ErrNeedFile = heaprows.ErrNeedFile
)

// ConvertFile decodes the file at path ("-" reads standard input). It
// returns an error only when nothing usable was read; a damaged or
// truncated input gives a graph with Damage set and what was lost in
// Lost.
func ConvertFile(ctx context.Context, path string, opts Options) (*graph.Graph, error) {
	d, err := DecodeFile(ctx, path, opts)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.Graph(), nil
}

// Convert decodes one input stream; name is what messages call it.
func Convert(ctx context.Context, r io.Reader, name string, opts Options) (*graph.Graph, error) {
	d, err := Decode(ctx, r, name, opts)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.Graph(), nil
}

// Decoded is an input decoded into a graph and still open, so that its
// chosen heap dump can be read again after decoding: the heap rows
// (Rows) are a pass of their own over the same input. Close releases it.
type Decoded struct {
	g       *graph.Graph
	opts    Options
	in      *hprof.File // the binary input; nil for a text report
	bin     *binData    // what its first pass read
	closers []io.Closer // closed in reverse order
}

// DecodeFile decodes the file at path ("-" reads standard input) as
// ConvertFile does, and keeps it open for Rows.
func DecodeFile(ctx context.Context, path string, opts Options) (*Decoded, error) {
	d := &Decoded{opts: opts}
	return d.limited(ctx, func(ctx context.Context, opts Options) (*graph.Graph, error) {
		return d.file(ctx, path, opts)
	})
}

// Decode decodes one input stream as Convert does, and keeps what Rows
// needs. A stream is read once: its rows need Options.Rows (a compressed
// stream is then kept decompressed), and standard input has none
// (ErrNeedFile).
func Decode(ctx context.Context, r io.Reader, name string, opts Options) (*Decoded, error) {
	d := &Decoded{opts: opts}
	return d.limited(ctx, func(ctx context.Context, opts Options) (*graph.Graph, error) {
		return d.convert(ctx, r, name, opts, nil)
	})
}

// DecodeOpen decodes the input open returns (a remote object, say), as
// DecodeFile does a file; each pass that reads the input again (the
// retained view, Rows) calls open again and reads it as a stream, so the
// input is never held in memory. at, when not nil, reads the input's
// size bytes in ranges: the JDK's chunked gzip is then inflated on every
// core, as a local file is. name is what messages call it.
func DecodeOpen(ctx context.Context, name string, size int64, open func() (io.ReadCloser, error), at io.ReaderAt, opts Options) (*Decoded, error) {
	d := &Decoded{opts: opts}
	return d.limited(ctx, func(ctx context.Context, opts Options) (*graph.Graph, error) {
		if at != nil && size > 0 {
			if zr, ok := source.ParallelGunzipAt(at, size); ok {
				return d.chunkedGzip(ctx, zr, source.ReopenAt(at, size, open), name, opts)
			}
		}
		r, err := open()
		if err != nil {
			return nil, err
		}
		d.closers = append(d.closers, r)
		return d.convert(ctx, r, name, opts, open)
	})
}

// limited decodes under limited's rules; on an error the input is closed.
func (d *Decoded) limited(ctx context.Context, decode func(context.Context, Options) (*graph.Graph, error)) (*Decoded, error) {
	g, err := limited(ctx, d.opts, decode)
	if err != nil {
		d.Close()
		return nil, err
	}
	d.g = g
	return d, nil
}

// Graph is the decoded graph.
func (d *Decoded) Graph() *graph.Graph { return d.g }

// Rows reads the objects, references, Strings and GC roots of the chosen
// heap dump again into sink (the heap tables), with the size model of
// the heap view and, when the retained view was computed with
// Options.ObjectRetained, each object's retained size and dominator;
// then it calls sink.Done. A binary input with no heap dump calls only
// Done; a text report has no rows. An input that cannot be read again
// (standard input) is ErrNeedFile.
func (d *Decoded) Rows(ctx context.Context, sink *graph.ObjectSink) error {
	if d.bin == nil || sink == nil {
		return nil
	}
	_, err := limited(ctx, d.opts, func(ctx context.Context, _ Options) (*graph.Graph, error) {
		return nil, writeObjects(ctx, sink, d.in, d.bin, d.g, d.opts)
	})
	return err
}

// Close releases the input: its file, the gzip members' index, the
// decompressed copy.
func (d *Decoded) Close() error {
	var err error
	for i := len(d.closers) - 1; i >= 0; i-- {
		err = errors.Join(err, d.closers[i].Close())
	}
	d.closers = nil
	return err
}

func (d *Decoded) file(ctx context.Context, path string, opts Options) (*graph.Graph, error) {
	if path == "-" {
		return d.convert(ctx, os.Stdin, "-", opts, nil)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	d.closers = append(d.closers, f)
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
			if err := d.binary(ctx, in, g, opts); err != nil {
				return nil, err
			}
			return g, nil
		}
	}
	if zr, ok := source.ParallelGunzip(f); ok {
		return d.chunkedGzip(ctx, zr, source.Reopen(path), path, opts)
	}
	return d.convert(ctx, f, path, opts, source.Reopen(path))
}

// chunkedGzip decodes the JDK's chunked -gz inflated on every core; it
// is read again through its member index, or reopen before the first
// pass has indexed it all, faster than a copy would be written: no copy.
func (d *Decoded) chunkedGzip(ctx context.Context, zr *source.Gunzip, reopen func() (io.ReadCloser, error), name string, opts Options) (*graph.Graph, error) {
	d.closers = append(d.closers, zr)
	again := hprof.Again{At: membersAt(zr), Reopen: reopen}
	g, err := d.convertStream(ctx, zr, again, "gzip", name, opts)
	if g != nil {
		g.Source.Notes = append(g.Source.Notes, "gzip: the JDK's chunked -gz format, members inflated in parallel ("+source.InflateImpl+")")
	}
	return g, err
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

func (d *Decoded) convert(ctx context.Context, in io.Reader, name string, opts Options, reopen func() (io.ReadCloser, error)) (*graph.Graph, error) {
	r, compression, prefix, err := source.Decompress(in)
	if err != nil {
		return nil, err
	}
	var kept *source.Copy
	if compression != "" {
		rereads := (opts.asksGraph() || opts.Rows) && source.Sniff(prefix) == source.Binary
		r, reopen, kept = source.Keep(r, opts.SpillDir, rereads, reopen)
		d.closers = append(d.closers, kept)
	}
	g, err := d.decodeStream(ctx, r, hprof.Again{Reopen: reopen}, compression, prefix, name, opts)
	if note := kept.Note(compression); g != nil && note != "" {
		g.Source.Notes = append(g.Source.Notes, note)
	}
	return g, err
}

// convertStream decodes an already decompressed stream; again says how
// it is read after the first pass.
func (d *Decoded) convertStream(ctx context.Context, in io.Reader, again hprof.Again, compression, name string, opts Options) (*graph.Graph, error) {
	br, prefix, err := source.Peek(in, compression)
	if err != nil {
		return nil, err
	}
	return d.decodeStream(ctx, br, again, compression, prefix, name, opts)
}

func (d *Decoded) decodeStream(ctx context.Context, r io.Reader, again hprof.Again, compression string, prefix []byte, name string, opts Options) (*graph.Graph, error) {
	var err error
	g := newGraph(name, compression)
	switch kind := source.Sniff(prefix); kind {
	case source.Binary:
		var in *hprof.File
		if in, err = hprof.NewFile(r, again); err != nil {
			return nil, err
		}
		err = d.binary(ctx, in, g, opts)
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

// binary decodes binary input in into g (binary.go) and keeps it.
func (d *Decoded) binary(ctx context.Context, in *hprof.File, g *graph.Graph, opts Options) error {
	bin, err := decodeBinary(ctx, in, g, opts)
	if err != nil {
		return err
	}
	d.in, d.bin = in, bin
	return nil
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
		if !opts.RawNames {
			g.NormalizeClasses()
		}
		g.Canonicalize() // the same ids for the same input, run after run
	}
	return g, err
}
