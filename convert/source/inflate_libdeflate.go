//go:build cgo && libdeflate

package source

/*
#cgo LDFLAGS: -ldeflate
#include <libdeflate.h>
*/
import "C"

import (
	"fmt"
	"io"
	"unsafe"
)

// memberInflater inflates one gzip member at a time with libdeflate,
// which decompresses a whole member in one call, verifies its CRC and
// size, and says how many input bytes it used (the chain check needs
// that). Each worker has its own decompressor and input buffer.
type memberInflater struct {
	block int
	d     *C.struct_libdeflate_decompressor
	in    []byte
}

func newMemberInflater(block int) *memberInflater {
	return &memberInflater{block: block, d: C.libdeflate_alloc_decompressor()}
}

func (m *memberInflater) close() {
	if m.d != nil {
		C.libdeflate_free_decompressor(m.d)
		m.d = nil
	}
}

// inflate reads what the member at start can occupy (a block, plus
// deflate's worst-case growth and a header) and inflates it; anything
// libdeflate cannot do (a longer member, a cut file) goes to the pure Go
// inflater, which streams.
func (m *memberInflater) inflate(f io.ReaderAt, size, start int64) member {
	if m.d == nil {
		return inflateMemberGo(f, size, start, m.block)
	}
	want := int64(m.block) + int64(m.block)/16 + 64<<10
	want = min(want, size-start)
	if int64(cap(m.in)) < want {
		m.in = make([]byte, want)
	}
	in := m.in[:want]
	n, err := f.ReadAt(in, start)
	if n == 0 || (err != nil && err != io.EOF) {
		return inflateMemberGo(f, size, start, m.block)
	}
	in = in[:n]
	out := make([]byte, m.block)
	var inUsed, outLen C.size_t
	r := C.libdeflate_gzip_decompress_ex(m.d,
		unsafe.Pointer(&in[0]), C.size_t(len(in)),
		unsafe.Pointer(&out[0]), C.size_t(len(out)),
		&inUsed, &outLen)
	if r != C.LIBDEFLATE_SUCCESS {
		if r == C.LIBDEFLATE_INSUFFICIENT_SPACE {
			return member{start: start, err: fmt.Errorf("member larger than the announced block size")}
		}
		return inflateMemberGo(f, size, start, m.block)
	}
	return member{start: start, end: start + int64(inUsed), data: out[:outLen]}
}

const InflateImpl = "libdeflate"
