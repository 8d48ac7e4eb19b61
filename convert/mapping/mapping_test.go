package mapping

import (
	"errors"
	"os"
	"strings"
	"testing"
)

const sample = `# compiler: R8
# {"id":"com.android.tools.r8.mapping","version":"2.2"}
com.example.Foo -> a.b:
# {"id":"sourceFile","fileName":"Foo.java"}
    int count -> a
    1:4:void run(int):10:13 -> c
    5:5:void com.example.Bar.helper():22:22 -> c
    5:5:void run(int):14 -> c
    6:9:void run(int):30:30 -> c
    java.lang.String name() -> d
    int size(int) -> e
    long size(long) -> e
    long other() -> e
com.example.Bar -> a.c:
# {"id":"sourceFile","fileName":"Bar.java"}
    void helper() -> a
`

func TestFrames(t *testing.T) {
	m, err := Parse(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	if m.Len() != 2 {
		t.Errorf("%d classes", m.Len())
	}
	for _, c := range []struct {
		class, method string
		line          int
		want          []Frame
	}{
		// Line 3 of obfuscated c is line 10+(3-1) of run.
		{"a.b", "c", 3, []Frame{{"com.example.Foo", "run", "Foo.java", 12}}},
		// Line 5: helper inlined into run at line 14.
		{"a.b", "c", 5, []Frame{{"com.example.Bar", "helper", "Bar.java", 22}, {"com.example.Foo", "run", "Foo.java", 14}}},
		// A range mapped to one original line.
		{"a.b", "c", 8, []Frame{{"com.example.Foo", "run", "Foo.java", 30}}},
		// No line numbers: the name.
		{"a.b", "d", 0, []Frame{{"com.example.Foo", "name", "Foo.java", 0}}},
		// Native frames keep their marker.
		{"a.b", "d", -3, []Frame{{"com.example.Foo", "name", "Foo.java", -3}}},
		// Ambiguous: all candidates.
		{"a.b", "e", 0, []Frame{{"com.example.Foo", "size|other", "Foo.java", 0}}},
	} {
		got, ok := m.Frames(c.class, c.method, c.line)
		if !ok || len(got) != len(c.want) {
			t.Errorf("%s.%s:%d = %v, %v; want %v", c.class, c.method, c.line, got, ok, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%s.%s:%d frame %d = %v, want %v", c.class, c.method, c.line, i, got[i], c.want[i])
			}
		}
	}
	if _, ok := m.Frames("a.b", "zz", 1); ok {
		t.Error("unknown method retraced")
	}
	if got := m.Class("a.b[][]"); got != "com.example.Foo[][]" {
		t.Errorf("array class %q", got)
	}
	if got := m.Class("java.lang.String"); got != "java.lang.String" {
		t.Errorf("unmapped class %q", got)
	}
	if got := m.Descriptor("(La/b;I[La/c;)Ljava/lang/String;"); got != "(Lcom/example/Foo;I[Lcom/example/Bar;)Ljava/lang/String;" {
		t.Errorf("descriptor %q", got)
	}
}

func TestSyntaxErrors(t *testing.T) {
	for _, in := range []string{
		"    void orphan() -> a\n",
		"com.example.Foo a.b:\n",
		"com.example.Foo -> a.b:\n    1:x:void run() -> a\n",
		"com.example.Foo -> a.b:\n    void run) -> a\n",
		"com.example.Foo -> a.b:\n    void run():1:2:3 -> a\n",
		"com.example.Foo -> a.b:\n    no arrow here\n",
	} {
		if _, err := Parse(strings.NewReader(in)); !errors.Is(err, ErrSyntax) {
			t.Errorf("%q: err = %v, want ErrSyntax", in, err)
		}
	}
}

// TestRealMapping reads the R8 mapping of ahat's test dump and checks
// it against the class lines of the file itself.
func TestRealMapping(t *testing.T) {
	const path = "../../testdata/mappings/ahat-test-dump.map"
	m, err := ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	classes := 0
	for _, line := range strings.Split(string(b), "\n") {
		if line == "" || line[0] == ' ' || line[0] == '#' {
			continue
		}
		orig, obf, _ := strings.Cut(strings.TrimSuffix(line, ":"), " -> ")
		classes++
		if got := m.Class(obf); got != orig {
			t.Errorf("Class(%q) = %q, want %q", obf, got, orig)
		}
	}
	if classes == 0 || m.Len() != classes {
		t.Errorf("%d classes parsed, file has %d class lines", m.Len(), classes)
	}
	// "1:39:void shouldNotGc():245:245 -> e" in class DumpedStuff.
	if f, ok := m.Frames("DumpedStuff", "e", 7); !ok || len(f) != 1 || f[0].Method != "shouldNotGc" || f[0].Line != 245 || f[0].File != "DumpedStuff.java" {
		t.Errorf("DumpedStuff.e:7 = %v, %v", f, ok)
	}
}
