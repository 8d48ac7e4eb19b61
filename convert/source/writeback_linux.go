package source

import (
	"os"

	"golang.org/x/sys/unix"
)

// startWriteback starts writing n bytes of f from off back to disk
// without waiting for them.
func startWriteback(f *os.File, off, n int64) {
	_ = unix.SyncFileRange(int(f.Fd()), off, n, unix.SYNC_FILE_RANGE_WRITE)
}

// DropCache tells the kernel that n bytes of f from off will not be read
// again soon, so their page cache is the first to go.
func DropCache(f *os.File, off, n int64) {
	_ = unix.Fadvise(int(f.Fd()), off, n, unix.FADV_DONTNEED)
}
