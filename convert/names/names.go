// Package names turns the class names HPROF writers use into the names
// Java users write.
//
// HotSpot's heap dumper writes internal names ("java/lang/String",
// "[I", "[[Ljava/lang/String;"); the hprof agent and Android write source
// names ("java.lang.String", "int[]"). Both become source names:
// "java.lang.String", "int[]", "java.lang.String[][]". Hidden classes keep
// their suffix: "corpus.Zoo$$Lambda$18+0x00007f2744021138".
package names

import "strings"

// Class returns the Java source name of a class name in any spelling.
func Class(name string) string {
	if name == "" {
		return name
	}
	dims := 0
	for dims < len(name) && name[dims] == '[' {
		dims++
	}
	if dims > 0 {
		elem := name[dims:]
		var base string
		switch {
		case len(elem) == 1:
			base = primitive(elem[0])
			if base == "" {
				return name // "[X": not a descriptor; leave it alone
			}
		case strings.HasPrefix(elem, "L") && strings.HasSuffix(elem, ";"):
			base = strings.ReplaceAll(elem[1:len(elem)-1], "/", ".")
		default:
			// A source name after '[' is not a JVM form: leave it alone.
			return name
		}
		return base + strings.Repeat("[]", dims)
	}
	if strings.HasPrefix(name, "L") && strings.HasSuffix(name, ";") && len(name) > 2 {
		name = name[1 : len(name)-1]
	}
	return strings.ReplaceAll(name, "/", ".")
}

// primitive maps a JVM descriptor letter to the Java keyword.
func primitive(c byte) string {
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
// default package. Array classes belong to their element's package.
func Package(class string) string {
	elem := strings.TrimRight(class, "[]")
	if i := strings.LastIndexByte(elem, '.'); i >= 0 {
		return elem[:i]
	}
	return ""
}
