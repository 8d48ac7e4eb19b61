//go:build linux

package source

import "syscall"

// mapPopulate asks the kernel to map every page up front (they are in
// the page cache when the file was read recently), instead of taking a
// fault per page.
const mapPopulate = syscall.MAP_POPULATE
