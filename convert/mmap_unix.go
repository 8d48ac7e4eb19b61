//go:build unix

package convert

import (
	"os"
	"syscall"
)

// mapFile maps a regular file read-only; nil when it cannot (the caller
// then streams it).
func mapFile(f *os.File) ([]byte, func()) {
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() == 0 || fi.Size() != int64(int(fi.Size())) {
		return nil, nil
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(fi.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil
	}
	return b, func() { syscall.Munmap(b) }
}
