package hprof

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"io/fs"
	"time"
)

// Header is the file header: "JAVA PROFILE 1.0.x\0", u4 ID size, u8 ms.
type Header struct {
	Version string    // "JAVA PROFILE 1.0.2"
	IDSize  int       // 4 or 8
	Time    time.Time // when the file was written (UTC)
	Size    int64     // header length in bytes
}

// Versions this decoder accepts.
var knownVersions = []string{"JAVA PROFILE 1.0.1", "JAVA PROFILE 1.0.2", "JAVA PROFILE 1.0.3"}

// Record is one top-level record header. Its body follows; read it with
// Reader.Body, iterate it with Reader.Heap, or let Next skip it.
type Record struct {
	Tag    Tag
	Time   uint32 // microseconds since Header.Time
	Length uint32 // body length
	Offset int64  // byte offset of the tag
}

// Name is "TAG record at byte N", for messages.
func (rec Record) Name() string { return rec.Tag.String() + " record at byte " + itoa(rec.Offset) }

const (
	recordHeaderSize = 9
	bufSize          = 1 << 20
	// seekReadAhead is how far past what it needs a seekable reader reads.
	seekReadAhead = 64 << 10
	// maxHeaderName bounds the NUL-terminated version string.
	maxHeaderName = 64
)

// Reader decodes top-level records from a stream. It never loads more
// than one non-heap record body at a time, and heap dump bodies are read
// sub-record by sub-record, so memory does not grow with the input.
type Reader struct {
	src      io.Reader
	seeker   io.Seeker // non-nil when src can skip forward cheaply
	size     int64     // input size when known, else -1
	buf      []byte
	pos, end int
	off      int64 // input offset of buf[pos]
	srcErr   error // sticky error from src (io.EOF at the end)

	Header Header
	idSize int

	pending uint64 // unread body bytes of the current record
	cur     Record
	scratch []byte
	heap    HeapReader

	notes *File       // the File whose first pass this is: it notes heap records
	dumps DumpCounter // numbers the heap dumps for notes
}

// NewReader reads and checks the header. It accepts "JAVA PROFILE
// 1.0.1", "1.0.2" and "1.0.3" with ID size 4 or 8.
func NewReader(src io.Reader) (*Reader, error) {
	r := &Reader{src: src, size: -1, buf: make([]byte, bufSize)}
	if s, ok := src.(io.Seeker); ok {
		if st, ok := src.(interface{ Stat() (fs.FileInfo, error) }); ok {
			if fi, err := st.Stat(); err == nil && fi.Mode().IsRegular() {
				if cur, err := s.Seek(0, io.SeekCurrent); err == nil {
					r.seeker, r.size = s, fi.Size()-cur
				}
			}
		}
	}
	if err := r.readHeader(); err != nil {
		return nil, err
	}
	return r, nil
}

func (r *Reader) readHeader() error {
	r.fill(maxHeaderName + 12)
	avail := r.buf[r.pos:r.end]
	nul := bytes.IndexByte(avail[:min(len(avail), maxHeaderName)], 0)
	if nul < 0 || !bytes.HasPrefix(avail, []byte("JAVA PROFILE ")) {
		return errAt(ErrNotHPROF, 0, "", "no \"JAVA PROFILE 1.0.x\" header")
	}
	version := string(avail[:nul])
	known := false
	for _, v := range knownVersions {
		known = known || v == version
	}
	if !known {
		return errAt(ErrUnsupported, 0, "header", "version %q", version)
	}
	if len(avail) < nul+1+12 {
		return errAt(ErrTruncated, int64(len(avail)), "header", "input ends inside the header")
	}
	idSize := binary.BigEndian.Uint32(avail[nul+1:])
	if idSize != 4 && idSize != 8 {
		return errAt(ErrUnsupported, int64(nul+1), "header", "identifier size %d (want 4 or 8)", idSize)
	}
	ms := binary.BigEndian.Uint64(avail[nul+5:])
	r.idSize = int(idSize)
	r.Header = Header{Version: version, IDSize: int(idSize), Time: time.UnixMilli(int64(ms)).UTC(), Size: int64(nul + 13)}
	r.consume(nul + 13)
	return nil
}

// IDSize is the identifier size from the header.
func (r *Reader) IDSize() int { return r.idSize }

// Offset is the input offset of the next unread byte.
func (r *Reader) Offset() int64 { return r.off }

// fill tries to make n bytes available at buf[pos:]; n must be ≤
// len(buf). It reports whether it succeeded; on failure srcErr is set.
func (r *Reader) fill(n int) bool {
	if r.end-r.pos >= n {
		return true
	}
	if r.pos > 0 {
		copy(r.buf, r.buf[r.pos:r.end])
		r.end -= r.pos
		r.pos = 0
	}
	for r.end < n && r.srcErr == nil {
		// A seekable input skips heap records by seeking, so read only a
		// little past what is needed: a full buffer would read the next
		// segment just to seek over it.
		limit := len(r.buf)
		if r.seeker != nil {
			limit = min(len(r.buf), max(n, r.end+seekReadAhead))
		}
		m, err := r.src.Read(r.buf[r.end:limit])
		r.end += m
		if err != nil {
			r.srcErr = err
		} else if m == 0 {
			// A reader that returns 0, nil forever would hang us; treat
			// it as the end after a few tries.
			m2, err2 := io.ReadAtLeast(r.src, r.buf[r.end:limit], 1)
			r.end += m2
			if err2 != nil {
				r.srcErr = err2
			}
		}
	}
	return r.end-r.pos >= n
}

// grow makes the buffer hold at least n bytes (long CLASS DUMPs).
func (r *Reader) grow(n int) {
	nb := make([]byte, n)
	copy(nb, r.buf[r.pos:r.end])
	r.end -= r.pos
	r.pos = 0
	r.buf = nb
}

func (r *Reader) consume(n int) {
	r.pos += n
	r.off += int64(n)
}

// where names what is being read, for messages: the current record, or
// a sub-record of it. Built only when an error is reported.
func (r *Reader) where(sub SubTag) string {
	if sub != 0 {
		return sub.String() + " in " + r.cur.Name()
	}
	return r.cur.Name()
}

// ioErr is the error behind a failed fill: a real I/O error, or
// ErrTruncated at the end of the input.
func (r *Reader) ioErr(record string, want uint64) error {
	if r.srcErr != nil && r.srcErr != io.EOF && !errors.Is(r.srcErr, io.ErrUnexpectedEOF) {
		return &FormatError{Off: r.off, Record: record, Msg: "read: " + r.srcErr.Error(), Err: r.srcErr}
	}
	return errAt(ErrTruncated, r.off+int64(r.end-r.pos), record, "input ends %d bytes short", want-uint64(r.end-r.pos))
}

// skip discards n bytes of the current record (of its sub-record sub).
func (r *Reader) skip(n uint64, sub SubTag) error {
	if avail := uint64(r.end - r.pos); n <= avail {
		r.consume(int(n))
		return nil
	}
	if r.seeker != nil && r.size >= 0 {
		avail := uint64(r.end - r.pos)
		target := r.off + int64(n)
		if target > r.size {
			r.consume(int(avail))
			r.pos, r.end = 0, 0
			return errAt(ErrTruncated, r.size, r.where(sub), "input ends %d bytes short", target-r.size)
		}
		if _, err := r.seeker.Seek(int64(n-avail), io.SeekCurrent); err == nil {
			r.off = target
			r.pos, r.end = 0, 0
			return nil
		}
		r.seeker = nil // fall back to reading
	}
	for n > 0 {
		if r.end == r.pos && !r.fill(1) {
			return r.ioErr(r.where(sub), n)
		}
		k := min(n, uint64(r.end-r.pos))
		r.consume(int(k))
		n -= k
	}
	return nil
}

// readFull returns the next n bytes. The slice is valid until the next
// call on r. Memory grows only with bytes actually read, so a lying
// length field cannot make it allocate more than the input holds.
func (r *Reader) readFull(n uint64, sub SubTag) ([]byte, error) {
	if n <= uint64(len(r.buf)) {
		if !r.fill(int(n)) {
			return nil, r.ioErr(r.where(sub), n)
		}
		b := r.buf[r.pos : r.pos+int(n)]
		r.consume(int(n))
		return b, nil
	}
	out := r.scratch[:0]
	for uint64(len(out)) < n {
		if r.end == r.pos && !r.fill(1) {
			return nil, r.ioErr(r.where(sub), n-uint64(len(out)))
		}
		k := min(n-uint64(len(out)), uint64(r.end-r.pos))
		out = append(out, r.buf[r.pos:r.pos+int(k)]...)
		r.consume(int(k))
	}
	r.scratch = out
	return out, nil
}

// Next returns the next top-level record header, skipping whatever is
// left of the previous record's body. It returns io.EOF at a clean end of
// input (between records).
func (r *Reader) Next() (Record, error) {
	if r.pending > 0 {
		n := r.pending
		r.pending = 0
		if err := r.skip(n, 0); err != nil {
			return Record{}, err
		}
	}
	if !r.fill(recordHeaderSize) {
		if r.end == r.pos && (r.srcErr == io.EOF || r.srcErr == nil) {
			return Record{}, io.EOF
		}
		return Record{}, r.ioErr("record header at byte "+itoa(r.off), recordHeaderSize)
	}
	b := r.buf[r.pos:]
	rec := Record{
		Tag:    Tag(b[0]),
		Time:   binary.BigEndian.Uint32(b[1:]),
		Length: binary.BigEndian.Uint32(b[5:]),
		Offset: r.off,
	}
	r.consume(recordHeaderSize)
	r.cur, r.pending = rec, uint64(rec.Length)
	if r.notes != nil {
		r.notes.noteRecord(&r.dumps, rec, r.off, r.size)
	}
	return rec, nil
}

// Body reads the whole body of the current record. Use it for every
// record but HEAP DUMP / HEAP DUMP SEGMENT.
func (r *Reader) Body() ([]byte, error) {
	n := r.pending
	r.pending = 0
	return r.readFull(n, 0)
}

// Skip discards the rest of the current record's body.
func (r *Reader) Skip() error {
	n := r.pending
	r.pending = 0
	return r.skip(n, 0)
}

// Remaining is the number of body bytes of the current record not yet read.
func (r *Reader) Remaining() uint64 { return r.pending }

func itoa(n int64) string {
	var b [24]byte
	i := len(b)
	neg := n < 0
	if neg {
		n = -n
	}
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			break
		}
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}
