package text

import "bytes"

const (
	headerPrefix = "JAVA PROFILE "
	createdMark  = ", created "
	oldHeader    = "count callee caller time"
	separator    = "--------"
)

// Sniff reports whether prefix (the first bytes of an input; 64 are
// enough) starts a text report (`JAVA PROFILE 1.0.x, created …`) or a
// cpu=old file (`count callee caller time`). Binary files start with
// `JAVA PROFILE 1.0.2` followed by a NUL byte, which does not match.
func Sniff(prefix []byte) bool {
	if bytes.HasPrefix(prefix, []byte(oldHeader)) {
		rest := prefix[len(oldHeader):]
		return len(rest) == 0 || rest[0] == '\n' || rest[0] == '\r'
	}
	if !bytes.HasPrefix(prefix, []byte(headerPrefix)) {
		return false
	}
	rest := prefix[len(headerPrefix):]
	// The version: digits and dots, then ", created ".
	i := 0
	for i < len(rest) && (rest[i] == '.' || rest[i] >= '0' && rest[i] <= '9') {
		i++
	}
	if i == 0 {
		return false
	}
	rest = rest[i:]
	n := min(len(rest), len(createdMark))
	return n > 0 && string(rest[:n]) == createdMark[:n]
}
