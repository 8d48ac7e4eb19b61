package layout

import (
	"testing"

	"github.com/hprof2pprof/hprof2pprof/convert/heapsize"
	"github.com/hprof2pprof/hprof2pprof/convert/hprof"
)

type names map[uint64]string

func (n names) String(id uint64) string { return n[id] }

var fieldNames = names{1: "value", 2: "hash", 3: "coder", 4: "next", 5: "key", 6: "count", 7: "offset", 8: "name"}

func class(id, super uint64, fields ...hprof.FieldDecl) *hprof.ClassRecord {
	return &hprof.ClassRecord{ID: id, SuperID: super, Fields: fields}
}

func field(name uint64, t hprof.BasicType) hprof.FieldDecl {
	return hprof.FieldDecl{NameID: name, Type: t}
}

// TestLayoutFlattens: a class's own fields come first, then its super
// class's, at offsets that add up the field sizes (8-byte IDs here), each
// with the class that declares it;
// references are listed with their offsets, and the size model counts
// the whole chain.
func TestLayoutFlattens(t *testing.T) {
	tb := NewTable(8)
	tb.Add(class(100, 0, field(2, hprof.TypeInt)), JVM{})                                // base: int hash
	tb.Add(class(200, 100, field(5, hprof.TypeObject), field(3, hprof.TypeByte)), JVM{}) // key, coder
	l := tb.Layout(fieldNames, 200)
	want := []Field{{"key", 0, hprof.TypeObject, 200}, {"coder", 8, hprof.TypeByte, 200}, {"hash", 9, hprof.TypeInt, 100}}
	if len(l.Fields) != len(want) {
		t.Fatalf("fields %v, want %v", l.Fields, want)
	}
	for i, f := range want {
		if l.Fields[i] != f {
			t.Errorf("field %d: %v, want %v", i, l.Fields[i], f)
		}
	}
	if len(l.Refs) != 1 || l.Refs[0] != 0 || l.Payload != 13 || l.SuperMissing {
		t.Errorf("refs %v, payload %d, super missing %v", l.Refs, l.Payload, l.SuperMissing)
	}
	// 12-byte header + 4 (key) + 1 + 4 = 21 → 24.
	m := heapsize.Decide(heapsize.Evidence{IDSize: 8, RefGuess: 4, RefFrom: "x"}, heapsize.Overrides{})
	if got := l.Instance(m); got != 24 {
		t.Errorf("Instance = %d, want 24", got)
	}
	if v, ok := l.Value([]byte{0, 0, 0, 0, 0, 0, 0, 9, 0xFF, 0, 0, 0, 7}, l.Fields[1]); !ok || v != -1 {
		t.Errorf("coder = %d, %v; want -1 (a signed byte)", v, ok)
	}
	if _, ok := l.Value([]byte{0, 0, 0, 0, 0, 0, 0, 9, 0xFF, 0, 0}, l.Fields[2]); ok {
		t.Error("a field past the data read")
	}
	if f, ok := l.Field("hash"); !ok || f.Off != 9 {
		t.Errorf("Field(hash) = %v, %v", f, ok)
	}
	if !tb.Extends(200, 100) || tb.Extends(100, 200) || !tb.Known(200) {
		t.Error("chain: 200 extends 100, both known")
	}
}

// TestLayoutDamagedChains: a missing super class ends the layout (and is
// said), a cycle ends at MaxSuperChain, and a second CLASS DUMP of a
// class replaces the layouts flattened through the first.
func TestLayoutDamagedChains(t *testing.T) {
	tb := NewTable(4)
	tb.Add(class(10, 99, field(4, hprof.TypeObject)), JVM{})
	l := tb.Layout(fieldNames, 10)
	if !l.SuperMissing || tb.Known(10) || len(l.Refs) != 1 {
		t.Errorf("missing super: %+v", l)
	}
	tb.Add(class(20, 30, field(4, hprof.TypeObject)), JVM{})
	tb.Add(class(30, 20), JVM{})
	if l := tb.Layout(fieldNames, 20); len(l.Refs) != MaxSuperChain/2 || l.SuperMissing {
		t.Errorf("cycle: %d refs, want %d", len(l.Refs), MaxSuperChain/2)
	}
	tb.Add(class(40, 0, field(4, hprof.TypeObject)), JVM{})
	tb.Add(class(50, 40), JVM{})
	if l := tb.Layout(fieldNames, 50); len(l.Refs) != 1 {
		t.Fatalf("refs %v", l.Refs)
	}
	if !tb.Add(class(40, 0, field(2, hprof.TypeInt), field(4, hprof.TypeObject)), JVM{}) {
		t.Error("a second CLASS DUMP not reported")
	}
	if l := tb.Layout(fieldNames, 50); len(l.Refs) != 1 || l.Refs[0] != 4 {
		t.Errorf("after the second CLASS DUMP: refs %v, want [4]", l.Refs)
	}
}

// TestStringRef reads a JDK 6 String (char[] value, offset, count) and a
// JDK 9+ one (byte[] value, coder).
func TestStringRef(t *testing.T) {
	tb := NewTable(4)
	tb.Add(class(1, 0, field(1, hprof.TypeObject), field(7, hprof.TypeInt), field(6, hprof.TypeInt), field(2, hprof.TypeInt)), JVM{})
	l := tb.Layout(fieldNames, 1)
	sf := l.StringFields()
	r, ok := l.StringRef(&sf, []byte{0, 0, 0x10, 0, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 0})
	if !ok || r != (StringRef{Array: 0x1000, Coder: NoCoder, Off: 2, Count: 3}) {
		t.Errorf("JDK 6: %+v, %v", r, ok)
	}
	tb.Add(class(2, 0, field(1, hprof.TypeObject), field(2, hprof.TypeInt), field(3, hprof.TypeByte)), JVM{})
	l = tb.Layout(fieldNames, 2)
	sf = l.StringFields()
	r, ok = l.StringRef(&sf, []byte{0, 0, 0x20, 0, 0, 0, 0, 0, 1})
	if !ok || r != (StringRef{Array: 0x2000, Coder: 1, Count: -1}) {
		t.Errorf("JDK 9: %+v, %v", r, ok)
	}
	if _, ok := l.StringRef(&sf, []byte{0, 0}); ok {
		t.Error("a value field past the data read")
	}
}
