//go:build !unix

package mem

import (
	"errors"
	"os"
)

// CanSpill is false: without mmap the graph stays on the heap.
const CanSpill = false

func mapFile(dir string, size int) ([]byte, *os.File, error) {
	return nil, nil, errors.New("retained: spilling to disk needs unix")
}

func unmap(b []byte, f *os.File) {}

func startWriteback(f *os.File) {}

func mapAnon(size int, huge bool) ([]byte, error) {
	return nil, errors.New("retained: no anonymous mappings")
}

const canPopulate = false

func populate(b []byte) {}
