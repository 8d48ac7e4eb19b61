//go:build linux || darwin || freebsd || netbsd || openbsd

package source

import (
	"fmt"
	"os"
	"runtime/debug"
	"syscall"
)

// Map maps a span of f read-only, without copying it, and returns
// its bytes and a function that unmaps them (so the pages leave our
// resident set as soon as the span is parsed). ok is false when the span
// cannot be mapped; the caller reads it instead.
func Map(f *os.File, off, n int64) (b []byte, unmap func(), ok bool) {
	if n == 0 {
		return nil, nil, false
	}
	page := int64(os.Getpagesize())
	start := off &^ (page - 1)
	m, err := syscall.Mmap(int(f.Fd()), start, int(off-start+n), syscall.PROT_READ, syscall.MAP_PRIVATE|mapPopulate)
	if err != nil {
		return nil, nil, false
	}
	return m[off-start:], func() { syscall.Munmap(m) }, true
}

// GuardFaults makes a fault on mapped memory (the file shrank under us:
// a JVM still writing it, a disk error) a panic that fn's caller turns
// into an error, instead of a crash.
func GuardFaults(fn func()) (err error) {
	old := debug.SetPanicOnFault(true)
	defer debug.SetPanicOnFault(old)
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("reading the mapped file failed (did it change while being read?): %v", r)
		}
	}()
	fn()
	return nil
}
