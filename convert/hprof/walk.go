package hprof

import (
	"context"
	"errors"
	"io"
)

// ErrStop, returned by a Walk callback, ends the walk early; Walk then
// returns nil.
var ErrStop = errors.New("hprof: stop the walk")

// Walk calls fn with the header of every record from r's position to the
// end of the input, in file order. It is the one error policy of the
// top-level record loops (the live stream, which must stay incremental,
// follows it record by record with Reader.Next):
//
//   - fn reads the record's body (Reader.Body, Reader.Heap) or leaves it;
//     what it leaves is skipped before the next record. A record with an
//     unknown tag is passed to fn like any other (to count it as a soft
//     failure) and skipped: it has a length, so it is never fatal.
//   - ctx is checked before each record; its error ends the walk and is
//     returned as is.
//   - The end of the input between two records is the end of the walk:
//     Walk returns nil.
//   - The input ending inside a record (ErrTruncated), a record that
//     contradicts the format (ErrCorrupt) or a read error ends the walk
//     and is returned, naming the record and the byte offset. Whatever fn
//     took from the records before it stays valid: callers keep it and
//     report the error as damage.
//   - An error from fn ends the walk and is returned as is; ErrStop ends
//     it with nil.
func Walk(ctx context.Context, r *Reader, fn func(Record) error) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		rec, err := r.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := fn(rec); err != nil {
			if err == ErrStop {
				return nil
			}
			return err
		}
	}
}
