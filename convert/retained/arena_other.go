//go:build !unix

package retained

import "errors"

// canSpill is false: without mmap the graph stays on the heap.
const canSpill = false

func mapFile(dir string, size int) ([]byte, error) {
	return nil, errors.New("retained: spilling to disk needs unix")
}

func unmap(b []byte) {}
