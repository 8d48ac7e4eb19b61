package retained

import (
	"fmt"
	"os"
	"syscall"
)

// reserve gives f size bytes of disk blocks up front, so a full disk is an
// error here rather than a fault when a mapped page is written back.
func reserve(f *os.File, size int64) error {
	err := syscall.Fallocate(int(f.Fd()), 0, 0, size)
	if err == syscall.EOPNOTSUPP || err == syscall.ENOSYS {
		return f.Truncate(size)
	}
	if err != nil {
		return fmt.Errorf("reserving %d bytes for the spilled graph: %w", size, err)
	}
	return nil
}
