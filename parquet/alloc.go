package parquet

import (
	"unsafe"

	"github.com/apache/arrow/go/v15/arrow/memory"
)

// The Parquet writer of Arrow v15 keeps each column's definition levels in
// a pooled buffer from memory.DefaultAllocator, and asks it for 64 more
// bytes than it has whenever a run of levels starts a new literal group
// or passes the end (upstream apache/arrow GH-41541, fixed in v17). With
// the Go allocator, whose buffers have no room beyond their length, every
// such request copies the whole buffer into a new one: a nullable column
// whose nulls come and go (a heap table's array_length, field_name,
// array_index …) cost time and garbage quadratic in the rows of a page,
// nearly half the CPU of `--tables heap`. roomyAllocator gives a buffer
// that must grow twice the room it asks for, so those requests become
// slices of what is already there.

// roomyAllocator is the Go allocator (64-byte aligned, zeroed, freed by
// the collector) with spare capacity behind every reallocation that
// grows a buffer.
type roomyAllocator struct{}

const allocAlign = 64

func (roomyAllocator) Allocate(size int) []byte {
	return alignedBytes(size, size)
}

// Reallocate resizes b to size bytes, in place when its capacity allows;
// bytes it exposes are zero, as in a new allocation.
func (roomyAllocator) Reallocate(size int, b []byte) []byte {
	if size <= cap(b) {
		if size > len(b) {
			clear(b[len(b):size])
		}
		return b[:size]
	}
	nb := alignedBytes(size, max(size, 2*cap(b)))
	copy(nb, b)
	return nb
}

func (roomyAllocator) Free([]byte) {}

// alignedBytes is size zeroed bytes at a 64-byte boundary, with capacity
// for c.
func alignedBytes(size, c int) []byte {
	buf := make([]byte, c+allocAlign)
	shift := 0
	if r := int(uintptr(unsafe.Pointer(unsafe.SliceData(buf))) % allocAlign); r != 0 {
		shift = allocAlign - r
	}
	return buf[shift : shift+size : shift+c]
}

// Set before main starts, so no goroutine reads it as it changes.
func init() { memory.DefaultAllocator = roomyAllocator{} }
