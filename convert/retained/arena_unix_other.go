//go:build unix && !linux

package retained

import "os"

// reserve sizes f; its blocks are allocated when pages are written back.
func reserve(f *os.File, size int64) error { return f.Truncate(size) }
