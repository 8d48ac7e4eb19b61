package hprof

import (
	"errors"
	"fmt"
)

// Sentinel errors; every error this package returns wraps one of them, so
// callers test with errors.Is.
var (
	// ErrNotHPROF: the input does not start with an HPROF header.
	ErrNotHPROF = errors.New("hprof: not an HPROF file")
	// ErrTruncated: the input ends inside a record.
	ErrTruncated = errors.New("hprof: truncated")
	// ErrCorrupt: a record contradicts itself or the format.
	ErrCorrupt = errors.New("hprof: corrupt")
	// ErrUnsupported: a valid-looking input this decoder does not handle
	// (an ID size other than 4 or 8, an unknown heap sub-record).
	ErrUnsupported = errors.New("hprof: unsupported")
)

// FormatError says where decoding failed: the byte offset in the
// (uncompressed) input, the record being decoded and what was wrong.
type FormatError struct {
	Off    int64  // byte offset of the problem
	Record string // "STACK TRACE record at byte 1234", "INSTANCE DUMP in HEAP DUMP SEGMENT"
	Msg    string
	Err    error // one of the sentinels
}

func (e *FormatError) Error() string {
	s := e.Msg
	if e.Record != "" {
		s = e.Record + ": " + s
	}
	return fmt.Sprintf("%s at byte %d", s, e.Off)
}

func (e *FormatError) Unwrap() error { return e.Err }

func errAt(sentinel error, off int64, record, format string, args ...any) error {
	return &FormatError{Off: off, Record: record, Msg: fmt.Sprintf(format, args...), Err: sentinel}
}
