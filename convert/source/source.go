// Package source opens an input: it tells what the first bytes are
// (sniffing), undoes gzip (the JDK's multi-member -gz files inflated on
// every core, with libdeflate when built with it) and bzip2, maps spans
// of plain files, and watches the Go heap against a memory limit. It
// knows nothing about records: convert/hprof and convert/text read what
// it opens.
package source

import (
	"bufio"
	"bytes"
	"compress/bzip2"
	"context"
	"fmt"
	"io"
	"os"

	"github.com/klauspost/compress/gzip"

	"github.com/hprof2pprof/hprof2pprof/convert/hprof"
	"github.com/hprof2pprof/hprof2pprof/convert/text"
)

// Kinds Sniff returns for the inputs convert reads; any other answer
// describes what the input looks like instead.
const (
	Binary = "binary"
	Text   = "text"
)

// Reopen returns a function that opens path again from the start,
// decompressed.
func Reopen(path string) func() (io.ReadCloser, error) {
	return func() (io.ReadCloser, error) {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		if zr, ok := ParallelGunzip(f); ok {
			return readCloser{zr, multiCloser{zr, f}}, nil
		}
		r, _, _, err := Decompress(f)
		if err != nil {
			f.Close()
			return nil, err
		}
		return readCloser{r, f}, nil
	}
}

// ReopenAt is Reopen for an input read through open (a stream) and at
// (its size bytes in ranges): the JDK's chunked gzip is inflated in
// parallel again, anything else decompressed from a new stream.
func ReopenAt(at io.ReaderAt, size int64, open func() (io.ReadCloser, error)) func() (io.ReadCloser, error) {
	return func() (io.ReadCloser, error) {
		if zr, ok := ParallelGunzipAt(at, size); ok {
			return readCloser{zr, zr}, nil
		}
		rc, err := open()
		if err != nil {
			return nil, err
		}
		r, _, _, err := Decompress(rc)
		if err != nil {
			rc.Close()
			return nil, err
		}
		return readCloser{r, rc}, nil
	}
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

// Peek buffers a decompressed stream and returns its first bytes, for
// sniffing; a stream that yields nothing is not HPROF.
func Peek(r io.Reader, compression string) (*bufio.Reader, []byte, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	prefix, err := br.Peek(512)
	if len(prefix) == 0 && err != nil {
		return nil, nil, fmt.Errorf("%w: %s data: %v", hprof.ErrNotHPROF, compression, err)
	}
	return br, prefix, nil
}

// Decompress wraps in with the decompressor its magic bytes call for and
// returns the name of the compression ("" for none) and the first bytes
// of the decompressed data.
func Decompress(in io.Reader) (io.Reader, string, []byte, error) {
	br := bufio.NewReaderSize(in, 1<<16)
	magic, _ := br.Peek(4)
	var r io.Reader = br
	compression := ""
	switch {
	case len(magic) >= 2 && magic[0] == 0x1f && magic[1] == 0x8b:
		zr, err := gzip.NewReader(br) // reads every member of a multi-member file
		if err != nil {
			return nil, "", nil, fmt.Errorf("%w: gzip header: %v", hprof.ErrNotHPROF, err)
		}
		r, compression = zr, "gzip"
	case len(magic) >= 3 && string(magic[:3]) == "BZh":
		r, compression = bzip2.NewReader(br), "bzip2"
	}
	if compression == "" {
		prefix, _ := br.Peek(512)
		return br, "", prefix, nil
	}
	cbr, prefix, err := Peek(r, compression)
	if err != nil {
		return nil, "", nil, err
	}
	return cbr, compression, prefix, nil
}

// Sniff names what the first bytes of an input are: Binary, Text, or a
// description of what it looks like instead.
func Sniff(p []byte) string {
	switch {
	case bytes.HasPrefix(p, []byte("JAVA PROFILE 1.0.")) && bytes.IndexByte(p[:min(len(p), 64)], 0) > 0:
		return Binary
	case text.Sniff(p):
		return Text
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

// WithContext wraps r so that reading stops with ctx's error once ctx is
// done, and progress (when set) hears of every MiB read.
func WithContext(ctx context.Context, r io.Reader, progress func(int64)) io.Reader {
	return &ctxReader{ctx: ctx, r: r, progress: progress}
}

type ctxReader struct {
	ctx      context.Context
	r        io.Reader
	progress func(int64)
	n, last  int64
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	if c.progress != nil && c.n-c.last >= 1<<20 {
		c.last = c.n
		c.progress(c.n)
	}
	return n, err
}
