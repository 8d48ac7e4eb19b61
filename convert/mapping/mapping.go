// Package mapping reads R8 and ProGuard mapping files and turns the
// obfuscated class and method names of a heap dump or stack trace back
// into the names in the source.
//
// The format (one class header, then its members, indented):
//
//	# comment, or # {"id":"sourceFile","fileName":"Foo.java"} metadata
//	com.example.Foo -> a.b:
//	    int count -> a                                  (a field: ignored)
//	    1:4:void run(int):10:13 -> c                    (a method with lines)
//	    5:5:void com.example.Bar.helper():22:22 -> c    (inlined into c)
//	    java.lang.String name() -> d                    (a method without lines)
//
// For a method, "a:b:" is the range of line numbers in the obfuscated
// code and ":c:d" the original lines; entries that share an obfuscated
// range form an inlining chain, innermost first.
package mapping

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// ErrSyntax: a line of the mapping file is not in the R8/ProGuard format.
var ErrSyntax = errors.New("mapping: syntax error")

// maxLine bounds a mapping file line; longer lines are a syntax error.
const maxLine = 1 << 20

// Map is a parsed mapping file, keyed by obfuscated class name.
type Map struct {
	classes map[string]*class
	files   map[string]string // original class name → source file
}

type class struct {
	original string
	file     string
	methods  map[string][]method // by obfuscated name, in file order
}

type method struct {
	obfStart, obfEnd   int // 0, 0 when the entry has no line range
	origStart, origEnd int // -1 when not given
	class, name        string
}

// Frame is one deobfuscated stack frame.
type Frame struct {
	Class, Method, File string
	Line                int
}

// ParseFile reads the mapping file at path.
func ParseFile(path string) (*Map, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m, err := Parse(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// Parse reads a mapping file.
func Parse(r io.Reader) (*Map, error) {
	m := &Map{classes: map[string]*class{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	var cur *class
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "":
			continue
		case strings.HasPrefix(trimmed, "#"):
			if cur != nil {
				if f := sourceFile(trimmed); f != "" {
					cur.file = f
				}
			}
			continue
		case line[0] != ' ' && line[0] != '\t':
			orig, obf, ok := strings.Cut(strings.TrimSuffix(trimmed, ":"), " -> ")
			if !ok || !strings.HasSuffix(trimmed, ":") {
				return nil, fmt.Errorf("%w: line %d: class line %q", ErrSyntax, n, trimmed)
			}
			cur = &class{original: orig, methods: map[string][]method{}}
			m.classes[obf] = cur
		default:
			if cur == nil {
				return nil, fmt.Errorf("%w: line %d: member before any class", ErrSyntax, n)
			}
			if err := cur.member(trimmed); err != nil {
				return nil, fmt.Errorf("%w: line %d: %v", ErrSyntax, n, err)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSyntax, err)
	}
	m.files = map[string]string{}
	for _, c := range m.classes {
		if c.file != "" {
			m.files[c.original] = c.file
		}
	}
	return m, nil
}

// sourceFile extracts fileName from R8's sourceFile metadata comment.
func sourceFile(comment string) string {
	if !strings.Contains(comment, `"sourceFile"`) {
		return ""
	}
	_, rest, ok := strings.Cut(comment, `"fileName":"`)
	if !ok {
		return ""
	}
	name, _, _ := strings.Cut(rest, `"`)
	return name
}

// member parses a field or method line of the current class.
func (c *class) member(s string) error {
	decl, obf, ok := strings.Cut(s, " -> ")
	if !ok {
		return fmt.Errorf("member %q has no ' -> '", s)
	}
	open := strings.IndexByte(decl, '(')
	if open < 0 {
		if strings.ContainsAny(decl, "):") {
			return fmt.Errorf("field %q: unexpected ')' or ':'", decl)
		}
		return nil // a field
	}
	close := strings.LastIndexByte(decl, ')')
	if close < open {
		return fmt.Errorf("method %q: unbalanced parentheses", decl)
	}
	e := method{origStart: -1, origEnd: -1}
	head, tail := decl[:open], decl[close+1:]
	// head: [a:b:]returnType name
	if i := strings.LastIndexByte(head, ':'); i >= 0 {
		a, b, ok := strings.Cut(head[:i], ":")
		if !ok {
			return fmt.Errorf("method %q: line range", decl)
		}
		var err1, err2 error
		e.obfStart, err1 = strconv.Atoi(a)
		e.obfEnd, err2 = strconv.Atoi(b)
		if err1 != nil || err2 != nil {
			return fmt.Errorf("method %q: line range", decl)
		}
		head = head[i+1:]
	}
	sp := strings.LastIndexByte(head, ' ')
	if sp < 0 {
		return fmt.Errorf("method %q: no return type", decl)
	}
	name := head[sp+1:]
	if dot := strings.LastIndexByte(name, '.'); dot >= 0 {
		e.class, name = name[:dot], name[dot+1:] // inlined from another class
	}
	e.name = name
	// tail: [:c[:d]]
	if tail != "" {
		parts := strings.Split(strings.TrimPrefix(tail, ":"), ":")
		if len(parts) > 2 {
			return fmt.Errorf("method %q: original lines", decl)
		}
		v, err := strconv.Atoi(parts[0])
		if err != nil {
			return fmt.Errorf("method %q: original lines", decl)
		}
		e.origStart, e.origEnd = v, v
		if len(parts) == 2 {
			if e.origEnd, err = strconv.Atoi(parts[1]); err != nil {
				return fmt.Errorf("method %q: original lines", decl)
			}
		}
	}
	c.methods[obf] = append(c.methods[obf], e)
	return nil
}

// Class returns the original name of an obfuscated class name in Java
// form ("a.b", "a.b[][]"), or the name itself when the map does not
// list it.
func (m *Map) Class(obf string) string {
	base := strings.TrimRight(obf, "[]")
	dims := obf[len(base):]
	if c, ok := m.classes[base]; ok {
		return c.original + dims
	}
	return obf
}

// Descriptor rewrites the class names of a JVM method descriptor
// ("(La/b;I)Lc;") to their original names.
func (m *Map) Descriptor(desc string) string {
	if !strings.Contains(desc, "L") {
		return desc
	}
	var b strings.Builder
	for i := 0; i < len(desc); i++ {
		if desc[i] != 'L' {
			b.WriteByte(desc[i])
			continue
		}
		end := strings.IndexByte(desc[i:], ';')
		if end < 0 {
			b.WriteString(desc[i:])
			break
		}
		name := strings.ReplaceAll(desc[i+1:i+end], "/", ".")
		b.WriteString("L" + strings.ReplaceAll(m.Class(name), ".", "/") + ";")
		i += end
	}
	return b.String()
}

// Frames retraces one obfuscated frame: the method obfMethod of class
// obfClass at obfuscated line line (0 or less: unknown, kept as given). It returns
// the original frames, innermost first (more than one when R8 inlined
// methods there), and false when the map knows nothing of the method.
func (m *Map) Frames(obfClass, obfMethod string, line int) ([]Frame, bool) {
	c, ok := m.classes[obfClass]
	if !ok {
		return nil, false
	}
	entries := c.methods[obfMethod]
	if len(entries) == 0 {
		return nil, false
	}
	var chain []method
	if line > 0 {
		for _, e := range entries {
			if e.obfStart <= line && line <= e.obfEnd {
				chain = append(chain, e)
			}
		}
	}
	if len(chain) == 0 {
		// No line, or no range holds it: the method's name if every
		// candidate agrees, else the candidates joined.
		var names []string
		seen := map[string]bool{}
		for _, e := range entries {
			n := e.name
			if e.class != "" {
				continue // inlined callees do not name the method itself
			}
			if !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
		if len(names) == 0 {
			return nil, false
		}
		return []Frame{{Class: c.original, Method: strings.Join(names, "|"), File: c.file, Line: line}}, true
	}
	out := make([]Frame, 0, len(chain))
	for i, e := range chain {
		f := Frame{Class: c.original, Method: e.name, File: c.file}
		if e.class != "" {
			f.Class = e.class
			f.File = m.fileOf(e.class)
		}
		switch {
		case e.origStart < 0:
			f.Line = line
		case i == 0 && e.origEnd > e.origStart:
			f.Line = e.origStart + (line - e.obfStart)
		default:
			f.Line = e.origStart
		}
		out = append(out, f)
	}
	return out, true
}

// fileOf is the source file of an original class name, if a class entry
// for it recorded one.
func (m *Map) fileOf(original string) string { return m.files[original] }

// Len is the number of classes in the map.
func (m *Map) Len() int { return len(m.classes) }
