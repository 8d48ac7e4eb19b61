//go:build unix

package retained

import (
	"os"
	"syscall"
)

const canSpill = true

// mapFile makes a file of size bytes in dir, maps it shared and
// read-write, and unlinks it: the mapping keeps its blocks until unmapped.
func mapFile(dir string, size int) ([]byte, error) {
	f, err := os.CreateTemp(dir, "graph-")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	defer os.Remove(f.Name())
	if err := reserve(f, int64(size)); err != nil {
		return nil, err
	}
	return syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
}

func unmap(b []byte) { _ = syscall.Munmap(b) }
