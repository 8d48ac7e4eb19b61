package heapsize

import (
	"fmt"
	"strings"
)

// Evidence is what a heap dump tells of its JVM's object layout, as its
// CLASS DUMPs are read.
type Evidence struct {
	IDSize int
	// Version is the format version the file's header names ("JAVA
	// PROFILE 1.0.3" is Android's).
	Version string
	// RefGuess is the reference size inferred from the JDK's static
	// field offsets (RefFromOffsets), found in the class RefFrom; 0 for
	// none.
	RefGuess int
	RefFrom  string
	// Unsafe names the JDK class whose static fields gave IntBase,
	// ByteBase and ObjScale (ARRAY_INT_BASE_OFFSET,
	// ARRAY_BYTE_BASE_OFFSET, ARRAY_OBJECT_INDEX_SCALE); "" when the dump
	// has none, and 0 for a field it lacks.
	Unsafe                      string
	IntBase, ByteBase, ObjScale int64
	// ObjectSize is java.lang.Object's CLASS DUMP instance size: 0 from
	// HotSpot and the hprof agent, the real object size from Android.
	ObjectSize uint32
	// Agent says the hprof agent wrote the dump (its CONTROL SETTINGS
	// record): its class objects are not sized, as Android's are not.
	Agent bool
	// JDK15 says the dump is of JDK 15 or later: java.lang.Class declares
	// classData (hidden classes, JEP 371). From JDK 15 class pointers stay
	// compressed when oops are not (JDK-8241825), so the Unsafe offsets
	// decide the headers; before, the ID size and the reference size do.
	JDK15 bool
}

// Overrides are the user's settings of the model (--ref-size,
// --header-size, --size-model visualvm); 0 leaves a size to the evidence.
type Overrides struct {
	Ref    int
	Header int
	// VisualVM sizes objects as VisualVM's heap library and Eclipse MAT
	// do, to compare with them: the header is the ID size plus the
	// reference size, class objects weigh nothing, and the JVM's
	// injected fields and padding are left out.
	VisualVM bool
}

// Model is the size model of one heap dump, decided once (Decide) from
// its evidence and the user's overrides; every view, table and note that
// sizes an object takes it. The zero Model sizes nothing sensibly: use
// Decide.
type Model struct {
	idSize     int
	ref        int
	header     int
	base       int  // array header: the bytes before the elements
	compact    bool // compact object headers, as found (no header override)
	written    bool // instances take the CLASS DUMP's size (WrittenSizes)
	mirrors    bool // class objects are sized as the JVM's class mirrors
	objectSize uint32
	refWhy     string
	headerWhy  string
	// scaleSays is Unsafe's reference size where the model does not
	// take it (before JDK 15, and with --size-model visualvm), 0 else.
	scaleSays int
}

// Decide picks the size model of a dump from its evidence and the
// user's overrides: the reference size, the array and object headers,
// whether instances take the sizes Android writes (WrittenSizes), and
// whether class objects are sized (HotSpot's dumps: not Android's, not
// the hprof agent's).
func Decide(e Evidence, o Overrides) Model {
	m := Model{idSize: e.IDSize, objectSize: e.ObjectSize}
	m.ref, m.refWhy = refSize(e, o)
	m.base, m.header, m.headerWhy = headers(e, o, m.ref)
	m.compact = e.IDSize == 8 && m.header == 8 && o.Header <= 0
	m.written = WrittenSizes(e.ObjectSize, o.Header, o.Ref)
	m.mirrors = e.ObjectSize == 0 && !e.Agent && e.JDK15 && !o.VisualVM
	if int64(m.ref) != e.ObjScale && (e.ObjScale == 4 || e.ObjScale == 8) && e.IDSize == 8 && o.Ref == 0 {
		m.scaleSays = int(e.ObjScale)
	}
	return m
}

// refSize picks the reference size and says what told it.
func refSize(e Evidence, o Overrides) (int, string) {
	switch {
	case o.Ref > 0:
		return o.Ref, "set by --ref-size"
	case e.IDSize == 4:
		return 4, "the ID size"
	case (e.ObjScale == 4 || e.ObjScale == 8) && e.JDK15 && !o.VisualVM:
		return int(e.ObjScale), e.Unsafe + ".ARRAY_OBJECT_INDEX_SCALE"
	case e.RefGuess != 0:
		return e.RefGuess, "static offsets in " + e.RefFrom
	}
	return e.IDSize, "assumed: the ID size; no JDK class told otherwise"
}

// headers picks the array header (base) and the object header and says
// what told them.
func headers(e Evidence, o Overrides, ref int) (base, header int, why string) {
	compact := ""
	if b, ok := ArrayBase(e.IDSize, e.ByteBase); ok && b == 12 && e.IDSize == 8 {
		compact = fmt.Sprintf("%s.ARRAY_BYTE_BASE_OFFSET = 12", e.Unsafe)
	}
	switch {
	case o.Header > 0:
		return o.Header + 4, o.Header, "set by --header-size"
	case compact != "":
		// JDK 24+: only 8-byte headers put bytes at 12
		return 12, 8, compact
	case o.VisualVM && e.IDSize == 8:
		return e.IDSize + ref + 4, e.IDSize + ref, "--size-model visualvm: a word and a reference"
	case !e.JDK15 && e.IDSize == 8:
		return e.IDSize + ref + 4, e.IDSize + ref, "a word and a reference, as before JDK 15 (java.lang.Class declares no classData)"
	}
	if b, ok := ArrayBase(e.IDSize, e.IntBase); ok {
		return b, HeaderFromBase(e.IDSize, b), fmt.Sprintf("%s.ARRAY_INT_BASE_OFFSET = %d", e.Unsafe, e.IntBase)
	}
	if e.IDSize == 4 {
		return 12, 8, "the ID size"
	}
	return e.IDSize + ref + 4, e.IDSize + ref, "assumed: a word and a reference; no Unsafe array offsets in the dump"
}

// Header is the object header size.
func (m Model) Header() int { return m.header }

// Ref is the reference size.
func (m Model) Ref() int { return m.ref }

// ArrayHeader is the array header: the bytes before an array's elements
// of up to 4 bytes.
func (m Model) ArrayHeader() int { return m.base }

// RefWhy says how the reference size was found.
func (m Model) RefWhy() string { return m.refWhy }

// HeaderWhy says how the headers were found.
func (m Model) HeaderWhy() string { return m.headerWhy }

// Compact reports whether the model has compact object headers, found
// in the dump and not overridden by the user's header size.
func (m Model) Compact() bool { return m.compact }

// CompressedClassPointers reports whether a 64-bit object header holds
// a 4-byte class pointer (a 12-byte header); compact headers hold theirs
// in the mark word.
func (m Model) CompressedClassPointers() bool { return m.idSize == 8 && m.header == 12 }

// Written reports whether instances take the size their CLASS DUMP
// gives (WrittenSizes).
func (m Model) Written() bool { return m.written }

// HotSpot reports whether the dump is a HotSpot JVM's own (neither
// Android's nor the hprof agent's): class objects are sized as its
// class mirrors (Mirror), and its classes take the fields the JVM
// injects into them (Injected); elsewhere class objects weigh 0 and
// instances only their listed fields.
func (m Model) HotSpot() bool { return m.mirrors }

// SizesInDump reports whether the dump's CLASS DUMP instance sizes are
// object sizes (Android; java.lang.Object's is ObjectSize), whether or
// not the user's overrides set them aside.
func (m Model) SizesInDump() bool { return m.objectSize != 0 }

// ObjectSize is java.lang.Object's CLASS DUMP instance size.
func (m Model) ObjectSize() uint32 { return m.objectSize }

// Array is the size of an array of n elements of elem bytes each.
func (m Model) Array(n, elem int64) int64 { return Array(int64(m.base), n, elem) }

// RefArray is the size of an array of n references.
func (m Model) RefArray(n int64) int64 { return Array(int64(m.base), n, int64(m.ref)) }

// Instance is the size of an instance whose class, with its super
// classes, declares refs reference fields and prims bytes of primitive
// fields (the JVM's injected fields and padding included), and whose
// CLASS DUMP gives the instance size written.
func (m Model) Instance(refs, prims int, written uint32) int64 {
	if m.written {
		return int64(written)
	}
	return instance(m.header, m.ref, refs, prims)
}

// Mirror is the size of a class object (the java.lang.Class mirror a
// CLASS DUMP stands for) whose class declares staticRefs reference and
// staticPrims bytes of primitive static fields, java.lang.Class's own
// instances being classSize bytes: HotSpot places the static fields in
// the mirror, after java.lang.Class's instance fields. 0 where class
// objects are not sized (Mirrors).
func (m Model) Mirror(classSize int64, staticRefs, staticPrims int) int64 {
	if !m.mirrors {
		return 0
	}
	return Align8(classSize + int64(staticRefs)*int64(m.ref) + int64(staticPrims))
}

// Describe names the model in one line, for `info` and the comments of
// every heap profile: the sizes, and which field of the dump told them.
func (m Model) Describe() string {
	if m.written {
		return fmt.Sprintf("size model: instances as the CLASS DUMP gives them (Android object sizes, java.lang.Object %d bytes, not aligned); arrays: header %d, reference %d bytes, 8-byte alignment", m.objectSize, m.base, m.ref)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "size model: object header %d bytes, array header %d (%s); reference %d bytes (%s)", m.header, m.base, m.headerWhy, m.ref, m.refWhy)
	if m.idSize == 8 {
		fmt.Fprintf(&b, "; compressed class pointers %s, compact object headers %s", yesNo(m.CompressedClassPointers()), yesNo(m.compact))
	}
	b.WriteString("; 8-byte alignment")
	if m.scaleSays != 0 {
		fmt.Fprintf(&b, "; Unsafe.ARRAY_OBJECT_INDEX_SCALE says %d-byte references (--ref-size %d follows it)", m.scaleSays, m.scaleSays)
	}
	if m.mirrors {
		b.WriteString("; class objects sized as java.lang.Class with their static fields; fields the JVM injects into its own classes and their @Contended padding (128 bytes) added")
	}
	return b.String()
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
