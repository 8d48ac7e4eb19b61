//go:build unix

package source

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// diskRoom reports whether the disk holding dir has room for more bytes
// and still a twentieth of its size (at least 512 MiB) free.
func diskRoom(dir string, more int64) error {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return err
	}
	bs := uint64(st.Bsize)
	avail, size := uint64(st.Bavail)*bs, uint64(st.Blocks)*bs
	keep := max(size/20, 512<<20)
	if avail < keep+uint64(more) {
		return fmt.Errorf("%s: %s free on its disk, %s to be kept free", dir, SizeText(int64(avail)), SizeText(int64(keep)))
	}
	return nil
}
