package text

import (
	"bytes"
	"strings"
)

const (
	headerPrefix = "JAVA PROFILE "
	createdMark  = ", created "
	oldHeader    = "count callee caller time"
	separator    = "--------"
)

// Sniff reports whether prefix (the first bytes of an input; 512 are
// enough for any excerpt seen so far) is hprof agent text:
//
//   - a whole report, `JAVA PROFILE 1.0.x, created …` (binary files start
//     with `JAVA PROFILE 1.0.2` followed by a NUL byte, which does not
//     match);
//   - a cpu=old file, `count callee caller time`;
//   - an excerpt: text whose lines include a record start (see
//     recordStart), at any indentation, maybe after a few lines of other
//     text such as the manuals' `Command used: …`.
func Sniff(prefix []byte) bool {
	if bytes.HasPrefix(prefix, []byte(oldHeader)) {
		rest := prefix[len(oldHeader):]
		return len(rest) == 0 || rest[0] == '\n' || rest[0] == '\r'
	}
	if hasHeader(prefix) {
		return true
	}
	return findsRecord(prefix)
}

// hasHeader reports whether prefix starts with the header line of a text
// report, `JAVA PROFILE <digits and dots>, created `, or a prefix of it.
func hasHeader(prefix []byte) bool {
	if !bytes.HasPrefix(prefix, []byte(headerPrefix)) {
		return false
	}
	rest := prefix[len(headerPrefix):]
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

// findsRecord reports whether prefix is text (no control bytes but tab,
// CR, LF, FF) up to a line that starts an hprof record. The last line
// may be cut short by the peek: it counts when the part shown already
// decides.
func findsRecord(prefix []byte) bool {
	for len(prefix) > 0 {
		line := prefix
		if i := bytes.IndexByte(prefix, '\n'); i >= 0 {
			line, prefix = prefix[:i], prefix[i+1:]
		} else {
			prefix = nil
		}
		for _, c := range line {
			if c < 0x20 && c != '\t' && c != '\r' && c != '\f' || c == 0x7f {
				return false
			}
		}
		if recordStart(strings.TrimSpace(string(line))) {
			return true
		}
	}
	return false
}

// eventPrefixes start the monitor=y event lines.
var eventPrefixes = []string{"WAIT: MONITOR ", "WAITED: MONITOR ", "EXIT: MONITOR ", "SLEEP: timeout="}

// recordStart reports whether a line (trimmed) starts an hprof record:
// `TRACE n:`, `THREAD START (obj=`, `THREAD END (id`, a monitor=y event,
// or a section's BEGIN line. It is strict enough that the prelude the
// agent copies into every report (which names the records in prose:
// `THREAD START`, `HEAP DUMP       is a …`) never matches.
func recordStart(t string) bool {
	switch {
	case strings.HasPrefix(t, "TRACE "):
		num, _, found := strings.Cut(t[len("TRACE "):], ":")
		_, ok := parseSerial(num)
		return found && ok
	case strings.HasPrefix(t, "THREAD START (obj="):
		return strings.Contains(t, ", id") && strings.HasSuffix(t, ")")
	case strings.HasPrefix(t, "THREAD END (id"):
		return strings.HasSuffix(t, ")")
	}
	for _, p := range eventPrefixes {
		if strings.HasPrefix(t, p) {
			// `…, thread 200001` or `…, <unknown thread>`.
			return strings.Contains(t, ", thread ") || strings.HasSuffix(t, ", <unknown thread>")
		}
	}
	// BEGIN ends the line (MONITOR DUMP) or is followed by the
	// header's parenthesis.
	_, rest, ok := sectionBegin(t)
	return ok && (rest == "" || rest[0] == '(')
}

// isEllipsis reports whether a line (trimmed) is the mark an excerpt
// puts where rows or records were left out: `...`, a longer run of dots,
// or `…`.
func isEllipsis(t string) bool {
	if t == "…" {
		return true
	}
	return len(t) >= 3 && strings.Trim(t, ".") == ""
}
