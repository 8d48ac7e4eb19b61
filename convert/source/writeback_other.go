//go:build !linux

package source

import "os"

// startWriteback: the kernel's own writeback paces the dirty pages.
func startWriteback(*os.File, int64, int64) {}

// DropCache: the kernel's own page cache policy applies.
func DropCache(*os.File, int64, int64) {}
