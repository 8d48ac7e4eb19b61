package hprof

import (
	"errors"
	"fmt"
)

// Lost says in a sentence what an error that stopped decoding cost: for
// a FormatError, the record and byte where the input ends or decoding
// stopped, and that the rest was not read.
func Lost(err error) string {
	var fe *FormatError
	if errors.As(err, &fe) {
		if errors.Is(err, ErrTruncated) {
			return fmt.Sprintf("the input ends at byte %d inside the %s: that record and anything after it are missing", fe.Off, fe.Record)
		}
		return fmt.Sprintf("decoding stopped in the %s at byte %d; the rest of the input (from byte %d) was not read", fe.Record, fe.Off, fe.Off)
	}
	return "decoding stopped early; the rest of the input was not read"
}

// JoinLost joins two such sentences.
func JoinLost(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
