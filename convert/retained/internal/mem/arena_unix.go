//go:build unix

package mem

import (
	"os"
	"syscall"
)

const CanSpill = true

// mapFile makes a file of size bytes in dir, maps it shared and
// read-write, and unlinks it: the mapping keeps its blocks until
// unmapped. The file stays open for writeback (see Arena.flusher).
func mapFile(dir string, size int) ([]byte, *os.File, error) {
	f, err := os.CreateTemp(dir, "graph-")
	if err != nil {
		return nil, nil, err
	}
	defer os.Remove(f.Name())
	if err := reserve(f, int64(size)); err != nil {
		f.Close()
		return nil, nil, err
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return b, f, nil
}

func unmap(b []byte, f *os.File) {
	_ = syscall.Munmap(b)
	if f != nil {
		f.Close()
	}
}

// mapAnon maps size bytes of zeroed memory, asking for huge pages if huge.
func mapAnon(size int, huge bool) ([]byte, error) {
	b, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return nil, err
	}
	if huge {
		hugePages(b)
	}
	return b, nil
}
