package text

import (
	"bufio"
	"errors"
	"io"
)

// maxLine bounds one line. The agent's longest lines are frames and
// thread names; a longer line is not a report line, and the bound keeps
// memory use proportional to the input.
const maxLine = 64 << 10

// lineReader yields lines without their CR/LF ends and counts them.
type lineReader struct {
	s     *bufio.Scanner
	n     int   // number of the current line, 1-based
	bytes int64 // bytes consumed
	// partial is set when the last line had no newline: a writer that
	// was killed mid-line.
	partial bool
	err     error
}

func newLineReader(r io.Reader) *lineReader {
	s := bufio.NewScanner(r)
	s.Buffer(make([]byte, 0, 64<<10), maxLine)
	lr := &lineReader{s: s}
	s.Split(lr.split)
	return lr
}

// split is bufio.ScanLines that also notes a final line without "\n".
func (lr *lineReader) split(data []byte, atEOF bool) (int, []byte, error) {
	adv, tok, err := bufio.ScanLines(data, atEOF)
	lr.bytes += int64(adv)
	if atEOF && tok != nil && adv == len(data) && (len(data) == 0 || data[len(data)-1] != '\n') {
		lr.partial = true
	}
	return adv, tok, err
}

// next returns the next line (without "\r\n" or "\n") and false at the
// end of input or on a read error (see lr.err).
func (lr *lineReader) next() (string, bool) {
	if !lr.s.Scan() {
		if err := lr.s.Err(); err != nil {
			if errors.Is(err, bufio.ErrTooLong) {
				lr.err = syntaxErr(lr.n+1, "line longer than 64 KiB", "")
			} else {
				lr.err = err
			}
		}
		return "", false
	}
	lr.n++
	return string(lr.s.Bytes()), true
}
