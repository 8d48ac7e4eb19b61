// Package javaname is the one rule that turns the class names HPROF
// writers use into the names Java users write; the binary decoder, the
// text parser and the retained view all name classes through it.
//
// HotSpot's heap dumper writes internal names ("java/lang/String",
// "[I", "[[Ljava/lang/String;"); the hprof agent and Android write source
// names ("java.lang.String", "int[]"); the agent's text reports mix both
// (monitor lines use descriptors). All become source names:
// "java.lang.String", "int[]", "java.lang.String[][]". Hidden classes keep
// their suffix: "corpus.Zoo$$Lambda$18+0x00007f2744021138"; Normalize
// drops it (and a lambda's index), for the name every run shares.
// Anything that is not a name in one of those forms ("[X", "[L;") is kept
// as written.
package javaname

import "strings"

// Class returns the Java source name of a class name in any spelling.
func Class(name string) string {
	dims := 0
	for dims < len(name) && name[dims] == '[' {
		dims++
	}
	elem := name[dims:]
	switch {
	case dims > 0 && len(elem) == 1:
		p := Primitive(elem[0])
		if p == "" || p == "void" {
			return name // "[X": not a descriptor; leave it alone
		}
		elem = p
	case strings.HasPrefix(elem, "L") && strings.HasSuffix(elem, ";") && len(elem) > 2:
		elem = strings.ReplaceAll(elem[1:len(elem)-1], "/", ".")
	case dims > 0:
		return name // a source name after '[' is not a JVM form
	default:
		// Plain name, maybe with slashes. Hidden classes keep their
		// `/0x…` suffix readable as `.0x…`, as the agent prints them.
		if strings.IndexByte(elem, '/') >= 0 {
			elem = strings.ReplaceAll(elem, "/", ".")
		}
	}
	if dims == 0 {
		return elem
	}
	return elem + strings.Repeat("[]", dims)
}

// Primitive maps a JVM descriptor letter to the Java keyword ("" for a
// letter that names no primitive type).
func Primitive(c byte) string {
	switch c {
	case 'Z':
		return "boolean"
	case 'C':
		return "char"
	case 'F':
		return "float"
	case 'D':
		return "double"
	case 'B':
		return "byte"
	case 'S':
		return "short"
	case 'I':
		return "int"
	case 'J':
		return "long"
	case 'V':
		return "void"
	}
	return ""
}

// Package returns the package of a source class name, "" for the
// default package. Array classes belong to their element's package; a
// hidden class's address suffix is not a package (Normalize).
func Package(class string) string {
	elem := strings.TrimRight(Normalize(class), "[]")
	if i := strings.LastIndexByte(elem, '.'); i >= 0 {
		return elem[:i]
	}
	return ""
}

// Normalize drops what changes from one JVM run to the next in a hidden
// or lambda class name, so the same code gets the same name in every
// run: "CpuWork$$Lambda$42.0x00000007c00c1670",
// "corpus.Zoo$$Lambda$15+0x00000001000c1e88", "Foo$$Lambda/0x…" and
// JDK 8's "Foo$$Lambda$42/1234567" become "CpuWork$$Lambda",
// "corpus.Zoo$$Lambda", "Foo$$Lambda"; a hidden class that is not a
// lambda keeps its name without the address
// ("java.lang.invoke.LambdaForm$MH"), an array its dimensions
// ("Foo$$Lambda[]"). The suffix is recognised by the '.', '/' or '+'
// before a digit, which no Java identifier starts with, at the end of
// the (element) name: "Foo$1", "Foo$$Bar", "Build2024" and
// "Foo$$Lambda$42" are returned as they are.
func Normalize(class string) string {
	elem := class
	for strings.HasSuffix(elem, "[]") {
		elem = elem[:len(elem)-2]
	}
	i := strings.LastIndexAny(elem, "./+")
	if i <= 0 || i+1 >= len(elem) || !isDigits(elem[i+1:], true) {
		return class
	}
	name := elem[:i]
	// The lambda's index is numbered in spin order, which varies too.
	if j := strings.LastIndexByte(name, '$'); j > 0 && strings.HasSuffix(name[:j], "$$Lambda") && isDigits(name[j+1:], false) {
		name = name[:j]
	}
	if len(elem) == len(class) {
		return name
	}
	return name + class[len(elem):]
}

// isDigits reports whether s is a non-empty decimal number, or, when
// hex is set, also "0x" followed by hex digits.
func isDigits(s string, hex bool) bool {
	if hex && len(s) > 2 && s[0] == '0' && s[1] == 'x' {
		for _, c := range []byte(s[2:]) {
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
		return true
	}
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
