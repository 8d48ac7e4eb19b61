package javaname

import "testing"

func TestClass(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"java/lang/String", "java.lang.String"},
		{"java.lang.String", "java.lang.String"},
		{"[I", "int[]"},
		{"[[J", "long[][]"},
		{"[Ljava/lang/String;", "java.lang.String[]"},
		{"[[Lcorpus/Zoo$Dog;", "corpus.Zoo$Dog[][]"},
		{"Ljava/lang/Object;", "java.lang.Object"},
		{"int[]", "int[]"},
		{"java.lang.String[][]", "java.lang.String[][]"},
		{"corpus/Zoo$$Lambda$18+0x00007f2744021138", "corpus.Zoo$$Lambda$18+0x00007f2744021138"},
		{"java.lang.invoke.LambdaForm$DMH.0x00000007c0001400", "java.lang.invoke.LambdaForm$DMH.0x00000007c0001400"},
		{"com/example/Outer$Inner", "com.example.Outer$Inner"},
		{"[X", "[X"},
		{"", ""},
		// Where the binary and text decoders once had rules of their own.
		{"[V", "[V"},   // no array of void
		{"[L;", "[L;"}, // no element name
		{"[[Ljava.lang.String;", "java.lang.String[][]"},
		{"java/lang/Thread/0x01", "java.lang.Thread.0x01"},
	} {
		if got := Class(c.in); got != c.want {
			t.Errorf("Class(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestPackage(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"java.util.HashMap$Node", "java.util"},
		{"java.lang.String[][]", "java.lang"},
		{"int[]", ""},
		{"Main", ""},
	} {
		if got := Package(c.in); got != c.want {
			t.Errorf("Package(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
