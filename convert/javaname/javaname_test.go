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
		{"CpuWork$$Lambda$42.0x00000007c00c1670", ""},
		{"corpus.Zoo$$Lambda$15.0x0000000800c0b000", "corpus"},
	} {
		if got := Package(c.in); got != c.want {
			t.Errorf("Package(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestNormalize(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		// Every spelling of a run-dependent hidden or lambda class.
		{"CpuWork$$Lambda$42.0x00000007c00c1670", "CpuWork$$Lambda"},
		{"CpuWork$$Lambda$42/0x00000007c00c1670", "CpuWork$$Lambda"},
		{"corpus.Zoo$$Lambda$15+0x00000001000c1e88", "corpus.Zoo$$Lambda"},
		{"Foo$$Lambda/0x000001f00100a000", "Foo$$Lambda"},
		{"Foo$$Lambda.0x000001f00100a000", "Foo$$Lambda"},
		{"Foo$$Lambda+0x000001f00100a000", "Foo$$Lambda"},
		{"Foo$$Lambda$42/1234567", "Foo$$Lambda"},
		{"Foo$$Lambda$42.1234567", "Foo$$Lambda"},
		{"java.lang.invoke.LambdaForm$MH/0x0000000800c01000", "java.lang.invoke.LambdaForm$MH"},
		{"jdk.internal.reflect.GeneratedMethodAccessor1.0x1", "jdk.internal.reflect.GeneratedMethodAccessor1"},
		// Names that are not run-dependent stay as they are.
		{"Foo$1", "Foo$1"},
		{"Foo$$Bar", "Foo$$Bar"},
		{"Foo$$Lambda", "Foo$$Lambda"},
		{"Foo$$Lambda$42", "Foo$$Lambda$42"},
		{"com.acme.Build2024", "com.acme.Build2024"},
		{"com.acme.Cafe0x12", "com.acme.Cafe0x12"},
		{"v2.Foo", "v2.Foo"},
		{"Foo$$Lambda$1/0x12[]", "Foo$$Lambda[]"},
		{"Foo$$Lambda$1.0x12[][]", "Foo$$Lambda[][]"},
		{"java.lang.String[]", "java.lang.String[]"},
		{"Foo.0x12]", "Foo.0x12]"},
		{"Foo.0xZZ", "Foo.0xZZ"},
		{"Foo.", "Foo."},
		{".0x12", ".0x12"},
		{"int[]", "int[]"},
		{"", ""},
	} {
		if got := Normalize(c.in); got != c.want {
			t.Errorf("Normalize(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
