package text

import (
	"errors"
	"fmt"
)

// Sentinel errors; test with errors.Is.
var (
	// ErrNotText: the input does not start like a text report or a
	// cpu=old file.
	ErrNotText = errors.New("text: not an hprof text report")
	// ErrSyntax: a line does not have the shape its record requires.
	ErrSyntax = errors.New("text: syntax error")
	// ErrTruncated: the input ends inside a section (no END line) or
	// before the prelude separator: the JVM was killed while writing.
	ErrTruncated = errors.New("text: truncated")
	// ErrNoData: the report holds no complete section.
	ErrNoData = errors.New("text: no complete section")
	// ErrNoDump: Options.Dump names a dump the file does not have.
	ErrNoDump = errors.New("text: no such dump")
)

// SyntaxError says which line is malformed and why. It wraps ErrSyntax.
type SyntaxError struct {
	Line int    // 1-based line number
	What string // what was expected
	Text string // the line, shortened
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("text: line %d: %s: %q", e.Line, e.What, e.Text)
}

// Unwrap lets errors.Is(err, ErrSyntax) match.
func (e *SyntaxError) Unwrap() error { return ErrSyntax }

// syntaxErr builds a SyntaxError, keeping at most 120 bytes of the line.
func syntaxErr(line int, what string, text string) error {
	if len(text) > 120 {
		text = text[:120] + "…"
	}
	return &SyntaxError{Line: line, What: what, Text: text}
}
