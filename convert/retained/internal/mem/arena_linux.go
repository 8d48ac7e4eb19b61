package mem

import (
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
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

// startWriteback starts writing f's dirty pages back without waiting for
// them: pages under writeback are what a memory cgroup's reclaim can wait
// for and free, while dirty pages it cannot write itself (cgroup v1 has
// no dirty throttling of its own), so a cgroup filled with dirty mapped
// pages would be OOM-killed.
func startWriteback(f *os.File) {
	_ = unix.SyncFileRange(int(f.Fd()), 0, 0, unix.SYNC_FILE_RANGE_WRITE)
}

// hugePages asks for transparent huge pages where the system leaves them
// to the program (the "madvise" setting).
func hugePages(b []byte) { _ = unix.Madvise(b, unix.MADV_HUGEPAGE) }

// canPopulate: MADV_POPULATE_WRITE (Linux 5.14) faults pages in,
// writable, without changing them.
const canPopulate = true

// populate faults b's pages in (see Warmer); an error (an older kernel)
// leaves them to fault as they are first written.
func populate(b []byte) { _ = unix.Madvise(b, unix.MADV_POPULATE_WRITE) }
