package main

import (
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"io"
)

// HPROF tags this generator writes (the JDK's heapDumper.cpp names the
// same ones).
const (
	tagString      = 0x01
	tagLoadClass   = 0x02
	tagFrame       = 0x04
	tagStackTrace  = 0x05
	tagHeapSegment = 0x1C
	tagHeapEnd     = 0x2C

	subRootUnknown     = 0xFF
	subRootJNIGlobal   = 0x01
	subRootJNILocal    = 0x02
	subRootJavaFrame   = 0x03
	subRootNativeStack = 0x04
	subRootStickyClass = 0x05
	subRootThreadBlock = 0x06
	subRootMonitorUsed = 0x07
	subRootThreadObj   = 0x08
	subClassDump       = 0x20
	subInstance        = 0x21
	subObjArray        = 0x22
	subPrimArray       = 0x23
)

// Basic types as HPROF numbers them.
const (
	tObject  = 2
	tBoolean = 4
	tChar    = 5
	tFloat   = 6
	tDouble  = 7
	tByte    = 8
	tShort   = 9
	tInt     = 10
	tLong    = 11
)

// typeSize is the size of a value of basic type t in the dump (8-byte
// IDs) and in the heap (4-byte compressed references).
func typeSize(t byte) (dump, heap int) {
	switch t {
	case tObject:
		return 8, 4
	case tBoolean, tByte:
		return 1, 1
	case tChar, tShort:
		return 2, 2
	case tFloat, tInt:
		return 4, 4
	}
	return 8, 8
}

// flushAt is how many bytes the writer gathers before one write: a heap
// dump segment is closed there, so the buffer holds at most one segment
// and the largest record.
const flushAt = 4 << 20

// out gathers the file in one buffer and writes it in big pieces; heap
// sub-records go into the open HEAP DUMP SEGMENT, which is closed and
// written once the buffer passes flushAt. With gz, the pieces are cut
// into gzip members as the JDK's -gz writes them (gzBlock).
type out struct {
	w       io.Writer
	gz      *gzip.Writer
	buf     []byte
	seg     int   // offset in buf of the open segment's record header; -1: none
	written int64 // bytes of the HPROF written before buf
	err     error
}

func newOut(w io.Writer, gz bool) *out {
	o := &out{w: w, buf: make([]byte, 0, flushAt+flushAt/2), seg: -1}
	if gz {
		o.gz, _ = gzip.NewWriterLevel(w, gzip.BestSpeed)
	}
	return o
}

// size is the HPROF's length so far.
func (o *out) size() int64 { return o.written + int64(len(o.buf)) }

func (o *out) u1(v byte)    { o.buf = append(o.buf, v) }
func (o *out) u2(v uint16)  { o.buf = binary.BigEndian.AppendUint16(o.buf, v) }
func (o *out) u4(v uint32)  { o.buf = binary.BigEndian.AppendUint32(o.buf, v) }
func (o *out) id(v uint64)  { o.buf = binary.BigEndian.AppendUint64(o.buf, v) }
func (o *out) raw(b []byte) { o.buf = append(o.buf, b...) }

var zeros [64 << 10]byte

// zero appends n zero bytes.
func (o *out) zero(n int) {
	for n > 0 {
		k := min(n, len(zeros))
		o.buf = append(o.buf, zeros[:k]...)
		n -= k
	}
}

// begin starts a top-level record; end patches its length.
func (o *out) begin(tag byte) int {
	start := len(o.buf)
	o.u1(tag)
	o.u4(0) // microseconds since the header's time
	o.u4(0)
	return start
}

func (o *out) end(start int) {
	binary.BigEndian.PutUint32(o.buf[start+5:], uint32(len(o.buf)-start-9))
}

// sub opens a segment if none is open; every heap sub-record starts so.
func (o *out) sub(tag byte) {
	if o.seg < 0 {
		o.seg = o.begin(tagHeapSegment)
	}
	o.u1(tag)
}

// done ends a heap sub-record: once the segment passes flushAt, it is
// closed and the buffer written (the segments are the same with -gz).
func (o *out) done() {
	if o.seg >= 0 && len(o.buf)-o.seg >= flushAt {
		o.closeSegment()
		o.flush()
	}
}

func (o *out) closeSegment() {
	if o.seg >= 0 {
		o.end(o.seg)
		o.seg = -1
	}
}

// gzBlock is what one gzip member holds, as the JDK's -gz writes them:
// 1 MiB of the dump each, the last less, every member's comment saying
// so ("HPROF BLOCKSIZE=1048576"), so that readers inflate them apart.
const gzBlock = 1 << 20

// flush writes the buffer: as it is, or in gzip members of gzBlock
// bytes, keeping back what does not fill one unless last.
func (o *out) flush() { o.flushGz(false) }

func (o *out) flushGz(last bool) {
	if o.gz == nil {
		if o.err == nil && len(o.buf) > 0 {
			_, o.err = o.w.Write(o.buf)
		}
		o.written += int64(len(o.buf))
		o.buf = o.buf[:0]
		return
	}
	b := o.buf
	for o.err == nil && (len(b) >= gzBlock || last && len(b) > 0) {
		n := min(len(b), gzBlock)
		o.gz.Reset(o.w)
		o.gz.Comment = fmt.Sprintf("HPROF BLOCKSIZE=%d", gzBlock)
		if _, o.err = o.gz.Write(b[:n]); o.err == nil {
			o.err = o.gz.Close()
		}
		b = b[n:]
	}
	o.written += int64(len(o.buf) - len(b))
	o.buf = o.buf[:copy(o.buf, b)]
}
