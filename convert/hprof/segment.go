package hprof

import "io"

// Segment is the body of one top-level record of a file, read by random
// access: a window of N bytes at offset Off of the io.ReaderAt it was
// cut from, as debug/elf's Section is a window of its file. N is less
// than the record's length when the file ends inside the record. Heap
// dump segments are independent — a sub-record never crosses its
// record — so the segments of one dump can be parsed in any order, on
// several workers, from the file or from a mapping of it.
type Segment struct {
	Rec Record
	Off int64
	N   int64
	r   io.ReaderAt
}

// NewSegment is the body of rec: n bytes at off in r.
func NewSegment(r io.ReaderAt, rec Record, off, n int64) Segment {
	return Segment{Rec: rec, Off: off, N: n, r: r}
}

// ReadAt reads from the body as io.ReaderAt does, off counted from the
// body's first byte.
func (s Segment) ReadAt(p []byte, off int64) (int, error) {
	return io.NewSectionReader(s.r, s.Off, s.N).ReadAt(p, off)
}

// Body reads the whole body into buf (grown as needed) and returns it.
// A file that shrank since the segment was cut gives what is left.
func (s Segment) Body(buf *[]byte) ([]byte, error) {
	if int64(cap(*buf)) < s.N {
		*buf = make([]byte, s.N)
	}
	b := (*buf)[:s.N]
	m, err := s.r.ReadAt(b, s.Off)
	if m == len(b) {
		return b, nil
	}
	if err == io.EOF {
		return b[:m], nil // the file shrank: what is there is the body
	}
	return nil, err
}
