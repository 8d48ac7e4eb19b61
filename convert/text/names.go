package text

import (
	"strconv"
	"strings"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/javaname"
)

// parseFrame parses a TRACE frame `class.method(File.java:123)` (the
// leading tab already removed). The line is a number or one of `Unknown
// line`, `Native method`, `Compiled method`; the file `<Unknown Source>`
// means none, as a binary FRAME with source-name ID 0.
func parseFrame(s string) (graph.Frame, bool) {
	if !strings.HasSuffix(s, ")") {
		return graph.Frame{}, false
	}
	open := strings.IndexByte(s, '(')
	if open <= 0 {
		return graph.Frame{}, false
	}
	name, loc := s[:open], s[open+1:len(s)-1]
	dot := strings.LastIndexByte(name, '.')
	if dot <= 0 || dot == len(name)-1 {
		return graph.Frame{}, false
	}
	colon := strings.LastIndexByte(loc, ':')
	if colon < 0 {
		return graph.Frame{}, false
	}
	f := graph.Frame{
		Kind:   graph.KindMethod,
		Class:  javaClassName(name[:dot]),
		Method: name[dot+1:],
		File:   loc[:colon],
	}
	if f.File == "<Unknown Source>" {
		f.File = ""
	}
	switch ln := loc[colon+1:]; ln {
	case "Unknown line":
		f.Line = graph.LineUnknown
	case "Native method":
		f.Line = graph.LineNative
	case "Compiled method":
		f.Line = graph.LineCompiled
	default:
		n, err := strconv.ParseInt(ln, 10, 32)
		if err != nil || n <= 0 {
			return graph.Frame{}, false
		}
		f.Line = int32(n)
	}
	return f, true
}

// parseMethodSig parses a cpu=old method `java.lang.String.length()I`
// into a frame with its descriptor.
func parseMethodSig(s string) (graph.Frame, bool) {
	open := strings.IndexByte(s, '(')
	if open <= 0 {
		return graph.Frame{}, false
	}
	name, sig := s[:open], s[open:]
	dot := strings.LastIndexByte(name, '.')
	if dot <= 0 || dot == len(name)-1 || strings.IndexByte(sig, ')') < 0 {
		return graph.Frame{}, false
	}
	return graph.Frame{
		Kind:      graph.KindMethod,
		Class:     javaClassName(name[:dot]),
		Method:    name[dot+1:],
		Signature: sig,
	}, true
}

// javaClassName returns a class name in Java source form. The agent
// prints names through its signature_to_name (already `char[]`,
// `java.lang.String[][]`), but other writers and monitor lines use JVM
// forms: `[C`, `[[Ljava/lang/String;`, `Ljava/lang/Thread;`,
// `java/lang/Thread`; javaname has the one rule for all of them.
func javaClassName(s string) string { return javaname.Class(s) }

// parsePercent parses `16.71%` into hundredths of a percent (1671). The
// agent prints with the C library's printf, which follows the JVM's
// locale: `16,71%` in a comma-decimal locale reads the same.
func parsePercent(s string) (int64, bool) {
	s, ok := strings.CutSuffix(s, "%")
	if !ok {
		return 0, false
	}
	sep := "."
	if strings.Contains(s, ",") {
		sep = ","
	}
	whole, frac, _ := strings.Cut(s, sep)
	w, err := strconv.ParseInt(whole, 10, 32)
	if err != nil || w < 0 {
		return 0, false
	}
	var f int64
	switch len(frac) {
	case 0:
	case 1, 2:
		n, err := strconv.ParseInt(frac, 10, 32)
		if err != nil || n < 0 {
			return 0, false
		}
		if len(frac) == 1 {
			n *= 10
		}
		f = n
	default:
		return 0, false
	}
	return w*100 + f, true
}

// parseUint parses a non-negative decimal that fits in 63 bits.
func parseUint(s string) (int64, bool) {
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil && n >= 0 && s[0] != '+'
}

// parseSerial parses a 32-bit serial number (trace, thread).
func parseSerial(s string) (uint32, bool) {
	n, err := strconv.ParseUint(s, 10, 32)
	return uint32(n), err == nil && s[0] != '+'
}
