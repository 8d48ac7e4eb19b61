package convert

import (
	"bufio"
	"bytes"
	"compress/bzip2"
	"context"
	"fmt"
	"io"
	"os"

	"github.com/klauspost/compress/gzip"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/hprof"
)

// Sentinel errors of this package.
var (
	// ErrNotHPROF: the input is not an HPROF file or report. The message
	// says what it looks like.
	ErrNotHPROF = hprof.ErrNotHPROF
	// ErrUnsupported: an HPROF variant this version cannot read.
	ErrUnsupported = hprof.ErrUnsupported
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
	if !opts.sequential {
		// A plain binary file: stream its records, read heap segments
		// in parallel (parallel.go).
		head := make([]byte, 512)
		n, _ := f.ReadAt(head, 0)
		if sniff(head[:n]) == "binary" {
			g := newGraph(path, "")
			r, err := hprof.NewReader(f)
			if err != nil {
				return nil, err
			}
			if err := decodeBinary(ctx, r, f, g, opts, reopenFile(path)); err != nil {
				return nil, err
			}
			return g, nil
		}
	}
	if zr, ok := parallelGunzip(f); ok {
		defer zr.Close()
		g, err := convertStream(ctx, zr, "gzip", path, opts, reopenFile(path))
		if g != nil {
			g.Source.Notes = append(g.Source.Notes, "gzip: the JDK's chunked -gz format, members inflated in parallel ("+inflateImpl+")")
		}
		return g, err
	}
	return convert(ctx, f, path, opts, reopenFile(path))
}

// reopenFile opens path again from the start, decompressed.
func reopenFile(path string) func() (io.ReadCloser, error) {
	return func() (io.ReadCloser, error) {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		if zr, ok := parallelGunzip(f); ok {
			return readCloser{zr, multiCloser{zr, f}}, nil
		}
		r, _, _, err := decompress(f)
		if err != nil {
			f.Close()
			return nil, err
		}
		return readCloser{r, f}, nil
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

type readCloser struct {
	io.Reader
	io.Closer
}

type multiCloser []io.Closer

func (m multiCloser) Close() error {
	var first error
	for _, c := range m {
		if err := c.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

func convert(ctx context.Context, in io.Reader, name string, opts Options, reopen func() (io.ReadCloser, error)) (*graph.Graph, error) {
	r, compression, prefix, err := decompress(in)
	if err != nil {
		return nil, err
	}
	return decodeStream(ctx, r, compression, prefix, name, opts, reopen)
}

// convertStream decodes an already decompressed stream.
func convertStream(ctx context.Context, in io.Reader, compression, name string, opts Options, reopen func() (io.ReadCloser, error)) (*graph.Graph, error) {
	br, prefix, err := peeked(in, compression)
	if err != nil {
		return nil, err
	}
	return decodeStream(ctx, br, compression, prefix, name, opts, reopen)
}

// peeked buffers a decompressed stream and returns its first bytes, for
// sniffing; a stream that yields nothing is not HPROF.
func peeked(r io.Reader, compression string) (*bufio.Reader, []byte, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	prefix, err := br.Peek(512)
	if len(prefix) == 0 && err != nil {
		return nil, nil, fmt.Errorf("%w: %s data: %v", ErrNotHPROF, compression, err)
	}
	return br, prefix, nil
}

func decodeStream(ctx context.Context, r io.Reader, compression string, prefix []byte, name string, opts Options, reopen func() (io.ReadCloser, error)) (*graph.Graph, error) {
	var err error
	g := newGraph(name, compression)
	switch kind := sniff(prefix); kind {
	case "binary":
		var hr *hprof.Reader
		if hr, err = hprof.NewReader(r); err != nil {
			return nil, err
		}
		err = decodeBinary(ctx, hr, nil, g, opts, reopen)
	case "text":
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

// decompress wraps in with the decompressor its magic bytes call for and
// returns the first bytes of the decompressed data.
func decompress(in io.Reader) (io.Reader, string, []byte, error) {
	br := bufio.NewReaderSize(in, 1<<16)
	magic, _ := br.Peek(4)
	var r io.Reader = br
	compression := ""
	switch {
	case len(magic) >= 2 && magic[0] == 0x1f && magic[1] == 0x8b:
		zr, err := gzip.NewReader(br) // reads every member of a multi-member file
		if err != nil {
			return nil, "", nil, fmt.Errorf("%w: gzip header: %v", ErrNotHPROF, err)
		}
		r, compression = zr, "gzip"
	case len(magic) >= 3 && string(magic[:3]) == "BZh":
		r, compression = bzip2.NewReader(br), "bzip2"
	}
	if compression == "" {
		prefix, _ := br.Peek(512)
		return br, "", prefix, nil
	}
	cbr, prefix, err := peeked(r, compression)
	if err != nil {
		return nil, "", nil, err
	}
	return cbr, compression, prefix, nil
}

// sniff names what the first bytes of an input are: "binary", "text",
// or a description of what it looks like instead.
func sniff(p []byte) string {
	switch {
	case bytes.HasPrefix(p, []byte("JAVA PROFILE 1.0.")) && bytes.IndexByte(p[:min(len(p), 64)], 0) > 0:
		return "binary"
	case textSniff(p):
		return "text"
	case bytes.Contains(p[:min(len(p), 64)], []byte("portable heap dump")):
		return "an IBM Portable Heap Dump (PHD)"
	case bytes.HasPrefix(p, []byte("FLR\x00")):
		return "a Java Flight Recorder (JFR) file"
	case bytes.HasPrefix(p, []byte("PK\x03\x04")):
		return "a zip or jar archive"
	case bytes.HasPrefix(p, []byte("\x7fELF")):
		return "an ELF binary or core file"
	case bytes.HasPrefix(p, []byte{0x1f, 0x8b}):
		return "gzip data inside gzip data"
	case len(p) == 0:
		return "an empty file"
	case looksLikeHistogram(p):
		return "a class histogram (jmap -histo, jcmd GC.class_histogram): counts per class, nothing to convert"
	case isText(p):
		return "a text file that is not an hprof report"
	}
	return "binary data of an unknown kind"
}

func isText(p []byte) bool {
	for _, c := range p {
		if c < 0x09 || (c > 0x0d && c < 0x20) {
			return false
		}
	}
	return true
}

// describe fills the writer guess and notes for `info`.
func (d *binDecoder) describe() {
	s := &d.g.Source
	rec := s.Records
	switch {
	case s.Version == "JAVA PROFILE 1.0.3":
		s.Writer = d.androidWriter()
	case d.control != nil || (s.IDSize == 4 && rec[hprof.TagCPUSamples.String()]+rec[hprof.TagAllocSites.String()] > 0):
		s.Writer = "JDK hprof agent (format=b)"
		if d.control != nil {
			s.Notes = append(s.Notes, fmt.Sprintf("CONTROL SETTINGS: flags 0x%x, stack depth %d", d.control.Flags, d.control.Depth))
		}
	case rec[hprof.TagHeapDump.String()] > 0 && rec[hprof.TagHeapDumpEnd.String()] == 0 && s.Version == "JAVA PROFILE 1.0.1":
		s.Writer = "HotSpot heap dumper of JDK 5 to 8 (jmap -dump, HeapDumpOnOutOfMemoryError): one HEAP DUMP record, no HEAP DUMP END"
	case rec[hprof.TagHeapDump.String()] > 0 && rec[hprof.TagHeapDumpEnd.String()] == 0:
		s.Writer = "HotSpot Serviceability Agent (jhsdb jmap): one HEAP DUMP record, no HEAP DUMP END"
	case rec[hprof.TagHeapDumpSegment.String()] > 0:
		s.Writer = "HotSpot heap dumper (jcmd GC.heap_dump, jmap -dump, HeapDumpOnOutOfMemoryError)"
	default:
		s.Writer = "unknown"
	}
	if d.sites != nil {
		s.Notes = append(s.Notes, fmt.Sprintf("ALLOC SITES cutoff field reads %g as a float (the agent writes the low bits of a double there)", d.sites.Cutoff))
	}
	if d.summary != nil {
		s.Notes = append(s.Notes, fmt.Sprintf("HEAP SUMMARY: live %d bytes in %d instances; allocated %d bytes in %d instances",
			d.summary.LiveBytes, d.summary.LiveInstances, d.summary.AllocBytes, d.summary.AllocInstances))
	}
	if h := d.lastHeap; h != nil {
		oop, why := d.oopSize(h)
		s.Notes = append(s.Notes, fmt.Sprintf("reference size %d bytes (%s)", oop, why))
	}
	d.describeQuirks()
}
