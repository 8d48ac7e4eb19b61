package source

import (
	"bytes"
	"strconv"
)

// looksLikeHistogram reports whether text starts like a JVM class
// histogram: rows of "[rank:] instances bytes class-name", optionally
// under a "num #instances #bytes class name" heading, after the
// "<pid>:" line jcmd prints first, and above a "Total" row.
func looksLikeHistogram(p []byte) bool {
	if !isText(p) {
		return false
	}
	rows := 0
	lines := bytes.Split(p, []byte("\n"))
	if len(lines) > 1 {
		lines = lines[:len(lines)-1] // the last may be cut
	}
	for i, line := range lines {
		f := bytes.Fields(line)
		switch {
		case len(f) == 0, bytes.HasPrefix(line, []byte("---")) || bytes.Contains(line, []byte("#instances")):
			continue
		case i == 0 && len(f) == 1 && bytes.HasSuffix(f[0], []byte(":")) && isNumber(f[0][:len(f[0])-1]):
			continue // jcmd's "<pid>:"
		case len(f) == 3 && string(f[0]) == "Total" && rows > 0:
			continue
		case len(f) >= 3 && bytes.HasSuffix(f[0], []byte(":")):
			f = f[1:]
		}
		if len(f) < 3 || !isNumber(f[0]) || !isNumber(f[1]) {
			return false
		}
		rows++
	}
	return rows >= 3
}

func isNumber(b []byte) bool {
	_, err := strconv.ParseUint(string(b), 10, 64)
	return err == nil
}
