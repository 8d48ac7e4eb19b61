//go:build unix && !linux

package mem

import "os"

// reserve sizes f; its blocks are allocated when pages are written back.
func reserve(f *os.File, size int64) error { return f.Truncate(size) }

// startWriteback asks for f's dirty pages to be written (msync is the
// portable way, and it waits; linux starts the writes without waiting).
func startWriteback(f *os.File) { _ = f.Sync() }

func hugePages(b []byte) {}

const canPopulate = false

func populate(b []byte) {}
