package hprof

import (
	"context"
	"errors"
	"io"
)

// Errors of the second passes over a File.
var (
	// ErrNoDump: the input holds no heap dump with the asked index.
	ErrNoDump = errors.New("hprof: no such heap dump")
	// ErrNoReread: the input cannot be read again (standard input).
	ErrNoReread = errors.New("hprof: the input cannot be read again")
	// ErrChanged: a second read of the input does not match the first.
	ErrChanged = errors.New("hprof: input changed between reads")
)

// maxHeapBody is the largest heap record a File reads whole into memory
// for Heap; a longer one (jhsdb writes the whole heap as one HEAP DUMP)
// is streamed from its window.
var maxHeapBody int64 = 64 << 20 // a variable for tests

// File is one HPROF input, read by a first pass as a stream of records
// and again by later passes over one heap dump, as debug/elf's File is
// one object file whose sections are windows on it. As the first pass
// goes (Records), the File notes where each heap dump's records are
// (Segments), which a pass that reads a few records takes by random
// access where the input allows it (ReaderAt: a plain file, the member
// index of a chunked gzip file). A pass over a whole dump iterates its
// sub-records with Heap, from those windows or from the input opened
// again (Again.Reopen: a chunked gzip file inflated again in parallel, a
// bzip2 or single-stream gzip input kept decompressed).
type File struct {
	Header Header
	first  *Reader
	again  Again
	dumps  [][]Segment // the heap records of dump i+1, windows without a reader
}

// Again says how a File's input is read after the first pass. Both may
// be nil (standard input: Heap returns ErrNoReread).
type Again struct {
	// At gives random access to the input (decompressed) once the first
	// pass has read it; it may return nil when it cannot.
	At func() io.ReaderAt
	// Reopen opens the input (decompressed) again from its start.
	Reopen func() (io.ReadCloser, error)
}

// AtFile is an Again.At for an input that is random access from the
// start (a plain file).
func AtFile(at io.ReaderAt) func() io.ReaderAt { return func() io.ReaderAt { return at } }

// NewFile reads and checks the header from first, the input as the
// first pass reads it (NewReader's rules), and returns the File whose
// Records are the rest of first. With an empty again (standard input, a
// live connection) the input is read once: Heap returns ErrNoReread.
func NewFile(first io.Reader, again Again) (*File, error) {
	r, err := NewReader(first)
	if err != nil {
		return nil, err
	}
	f := &File{Header: r.Header, first: r, again: again}
	if again.At != nil || again.Reopen != nil {
		r.notes = f // nothing reads the windows of an input read once
	}
	return f, nil
}

// Records is the first pass's reader: every record from the header on.
func (f *File) Records() *Reader { return f.first }

// IDSize is the identifier size from the header.
func (f *File) IDSize() int { return f.Header.IDSize }

// ReaderAt is random access to the input (decompressed), nil when there
// is none (yet).
func (f *File) ReaderAt() io.ReaderAt {
	if f.again.At == nil {
		return nil
	}
	return f.again.At()
}

// CanReread reports whether Heap can read the input again.
func (f *File) CanReread() bool {
	return f.again.Reopen != nil || (f.again.At != nil && f.ReaderAt() != nil)
}

// noteRecord is called by the first pass's reader with every record
// header; the body starts at off.
func (f *File) noteRecord(c *DumpCounter, rec Record, off, size int64) {
	dump := c.Dump(rec.Tag)
	if dump == 0 || rec.Tag == TagHeapDumpEnd {
		return
	}
	for len(f.dumps) < dump {
		f.dumps = append(f.dumps, nil)
	}
	n := int64(rec.Length)
	if size >= 0 {
		n = max(0, min(n, size-off))
	}
	f.dumps[dump-1] = append(f.dumps[dump-1], Segment{Rec: rec, Off: off, N: n})
}

// Segments are the heap records of dump (1-based) the first pass has
// seen, as windows on ReaderAt (on nothing when there is none).
func (f *File) Segments(dump int) []Segment {
	if dump < 1 || dump > len(f.dumps) {
		return nil
	}
	at := f.ReaderAt()
	segs := make([]Segment, len(f.dumps[dump-1]))
	for i, s := range f.dumps[dump-1] {
		segs[i] = NewSegment(at, s.Rec, s.Off, s.N)
	}
	return segs
}

// Heap calls fn with an iterator over each heap record of dump (1-based),
// in input order: from the input opened again when it can be
// (Again.Reopen: a whole pass reads a stream as fast as its windows, and
// a chunked gzip file is inflated again on every core, where its windows
// would be inflated member by member), else from the windows the first
// pass noted (a plain file). It is the one policy of the later passes:
//
//   - fn reads the record's sub-records (HeapReader.Next) as far as it
//     likes; what it leaves is skipped.
//   - Damage ends the pass quietly, keeping what fn took: once a
//     record's iterator has returned an error other than io.EOF (the
//     first pass reported that damage), and when the input ends or is
//     damaged between records after the dump began.
//   - fn's error ends the pass and is returned; ErrStop ends it with nil.
//   - ctx is checked between records; its error is returned.
//   - A dump the input does not hold is ErrNoDump; an input that cannot be
//     read again is ErrNoReread; a reopened input whose header differs
//     is ErrChanged.
func (f *File) Heap(ctx context.Context, dump int, fn func(hr *HeapReader) error) error {
	if f.again.Reopen != nil {
		return f.heapReopen(ctx, dump, fn)
	}
	at := f.ReaderAt()
	switch {
	case at == nil:
		return ErrNoReread
	case dump < 1 || dump > len(f.dumps):
		return errAt(ErrNoDump, 0, "", "heap dump %d not found", dump)
	}
	return f.heapAt(ctx, at, dump, fn)
}

// heapAt is Heap over the noted windows of dump.
func (f *File) heapAt(ctx context.Context, at io.ReaderAt, dump int, fn func(hr *HeapReader) error) error {
	var buf []byte
	for _, s := range f.Segments(dump) {
		if err := ctx.Err(); err != nil {
			return err
		}
		var hr *HeapReader
		if s.N <= maxHeapBody {
			body, err := s.Body(&buf)
			if err != nil {
				return err
			}
			hr = NewHeapBytes(body, s.Rec, f.IDSize())
		} else {
			hr = recordReader(io.NewSectionReader(at, s.Off, s.N), f.IDSize(), s.Rec, s.Off).Heap()
		}
		if stop, err := heapRecord(hr, fn); stop {
			return err
		}
	}
	return nil
}

// heapReopen is Heap over the input opened again.
func (f *File) heapReopen(ctx context.Context, dump int, fn func(hr *HeapReader) error) error {
	rc, err := f.again.Reopen()
	if err != nil {
		return err
	}
	defer rc.Close()
	r, err := NewReader(rc)
	if err != nil {
		return err
	}
	if r.Header.IDSize != f.Header.IDSize || r.Header.Version != f.Header.Version {
		return errAt(ErrChanged, 0, "header", "%s with %d-byte IDs, was %s with %d-byte IDs",
			r.Header.Version, r.Header.IDSize, f.Header.Version, f.Header.IDSize)
	}
	var dumps DumpCounter
	found := false
	var stop error // fn's error (or nil for ErrStop) once the pass is to end
	err = Walk(ctx, r, func(rec Record) error {
		n := dumps.Dump(rec.Tag)
		if n > dump {
			return ErrStop
		}
		if n != dump {
			return nil
		}
		found = true
		hr := r.Heap()
		if end, err := heapRecord(hr, fn); end {
			stop = err
			return ErrStop
		}
		return hr.Skip()
	})
	switch {
	case stop != nil:
		return stop
	case err != nil && (!found || errors.Is(err, ctx.Err())):
		return err
	case !found:
		return errAt(ErrNoDump, r.Offset(), "", "heap dump %d not found", dump)
	}
	return nil
}

// heapRecord runs fn over one heap record; end says the pass ends, with
// err: fn's own error, or nil when it stopped (ErrStop) or met damage.
func heapRecord(hr *HeapReader, fn func(hr *HeapReader) error) (end bool, err error) {
	err = fn(hr)
	switch {
	case err == ErrStop:
		return true, nil
	case err == nil && hr.Err() == nil:
		return false, nil
	case err == nil || isDamage(err):
		return true, nil
	}
	return true, err
}

// isDamage reports whether err is one of the format's own: damage the
// first pass reported.
func isDamage(err error) bool {
	return errors.Is(err, ErrTruncated) || errors.Is(err, ErrCorrupt) || errors.Is(err, ErrUnsupported)
}

// recordReader reads one record's body from src, which starts at input
// offset off: a Reader positioned after the header of rec.
func recordReader(src io.Reader, idSize int, rec Record, off int64) *Reader {
	return &Reader{src: src, size: -1, buf: make([]byte, bufSize), idSize: idSize, off: off, cur: rec, pending: uint64(rec.Length)}
}
