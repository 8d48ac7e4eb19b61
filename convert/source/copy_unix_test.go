//go:build unix

package source

import "testing"

// TestDiskRoom: a directory on a disk with room passes; asking for more
// than any disk has does not.
func TestDiskRoom(t *testing.T) {
	dir := t.TempDir()
	if err := diskRoom(dir, 1); err != nil {
		t.Skipf("this test's disk is nearly full: %v", err)
	}
	if err := diskRoom(dir, 1<<62); err == nil {
		t.Error("room for 4 EiB")
	}
}
