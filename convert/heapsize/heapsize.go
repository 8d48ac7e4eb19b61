// Package heapsize is the shallow size model of heap dump objects: HPROF
// records no object sizes, so they are computed from the layout rules
// below, the same as VisualVM's heap library (our test oracle) computes
// them.
//
//   - reference size: 4 for ID size 4; for ID size 8, inferred from the
//     JDK's own static field offsets (RefFromOffsets), else 8;
//   - object header: ID size + reference size (12 with compressed oops,
//     16 without), or the ID size alone (8) with compact object headers
//     (JDK 24+ -XX:+UseCompactObjectHeaders: the class pointer is in the
//     mark word), which the JDK's own byte array base offset tells
//     (CompactFromArrayBase);
//   - instance: align8(header + Σ field sizes over the class and its
//     super classes), references counted at the reference size;
//   - array: align8(header + 4 (the length) + length × element size);
//   - Android writes each class's real instance size in its CLASS DUMP
//     (java.lang.Object's is non-zero): instances take that size as
//     written, unaligned; arrays keep the header model.
//
// Every rule here is a pure function of the evidence: the decoders
// gather it (Evidence: ID size, static offsets, the byte array base
// offset, the sizes written), Decide turns it and the user's overrides
// into one Model per dump, and every consumer sizes through that Model.
package heapsize

import "fmt"

// Align8 rounds n up to a multiple of 8, as the JVM aligns objects.
func Align8(n int64) int64 { return (n + 7) &^ 7 }

// Header is the object header size for a reference size ref: the ID
// size plus ref (the mark word is ID-sized, the class pointer a
// reference), or the ID size alone with compact object headers (the
// class pointer is part of the mark word), unless override (a user's
// setting) is positive.
func Header(idSize, ref int, compact bool, override int) int {
	switch {
	case override > 0:
		return override
	case compact:
		return idSize
	}
	return idSize + ref
}

// CompactFromArrayBase reports whether a 64-bit JVM's byte array base
// offset (the static jdk.internal.misc.Unsafe.ARRAY_BYTE_BASE_OFFSET a
// heap dump holds) says its object headers are compact: the 4-byte
// length follows the header, and byte elements the length, so they
// start at 12 after an 8-byte header (16 after the usual 12 bytes, 20 or
// 24 after 16).
func CompactFromArrayBase(idSize int, base int64) bool { return idSize == 8 && base == 12 }

// Models are the candidate size models a heap dump's arrays are summed
// in while it is read, before its classes say which one holds
// (Candidates, Model.Candidate): a reference of 4 or 8 bytes, with or
// without compact object headers.
const Models = 4

// candidate numbers the size model of a reference size and header kind.
func candidate(ref int, compact bool) int {
	m := 0
	if ref == 8 {
		m = 1
	}
	if compact {
		m += 2
	}
	return m
}

// ModelRef is the reference size of candidate model m.
func ModelRef(m int) int { return 4 << (m & 1) }

// ModelCompact reports whether candidate model m has compact object
// headers.
func ModelCompact(m int) bool { return m >= 2 }

// Array is the size of an array of n elements of elem bytes each, with
// object header header: the header, the 4-byte length, the elements,
// aligned to 8.
func Array(header, n, elem int64) int64 { return Align8(header + 4 + n*elem) }

// Layout is what one class's CLASS DUMP says of its own instance
// fields: how many are references, and how many bytes the primitive
// ones take.
type Layout struct {
	Refs  int
	Prims int
}

// Instance is the size of an instance whose class and super classes
// declare chain (the class first): the header, then every field, the
// references at ref bytes each, aligned to 8.
func Instance(header, ref int, chain []Layout) int64 {
	refs, prims := 0, 0
	for _, c := range chain {
		refs, prims = refs+c.Refs, prims+c.Prims
	}
	return instance(header, ref, refs, prims)
}

// instance is the size of an instance with refs references and prims
// bytes of primitive fields in all.
func instance(header, ref, refs, prims int) int64 {
	return Align8(int64(header) + int64(refs)*int64(ref) + int64(prims))
}

// RefFromOffsets infers the reference size from the static offsets the
// JDK keeps of two adjacent reference fields (hi declared after lo, as
// java.lang.Class$Atomic's annotationTypeOffset and annotationDataOffset,
// or FutureTask's waitersOffset and runnerOffset): their difference, when
// it is a reference size.
func RefFromOffsets(hi, lo int64) (int, bool) {
	if d := hi - lo; d == 4 || d == 8 {
		return int(d), true
	}
	return 0, false
}

// RefSize picks the reference size of a dump and says why: the user's
// override, 4 for 4-byte IDs, the size inferred from static offsets
// (guess, found in the class named from), else the ID size.
func RefSize(override, idSize, guess int, from string) (int, string) {
	switch {
	case override > 0:
		return override, "set by --ref-size"
	case idSize == 4:
		return 4, "the ID size"
	case guess != 0:
		return guess, "from static offsets in " + from
	}
	return idSize, "the ID size; no JDK class told otherwise"
}

// WrittenSizes reports whether a dump's CLASS DUMP instance sizes are
// object sizes, as Android writes them: java.lang.Object's (objectSize)
// is non-zero. HotSpot and the hprof agent write 0 there. Then an
// instance's size is its class's size as written, unless the user set
// the header or reference size.
func WrittenSizes(objectSize uint32, headerOverride, refOverride int) bool {
	return objectSize != 0 && headerOverride == 0 && refOverride == 0
}

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
	// Compact says the byte array base offset tells of compact object
	// headers (CompactFromArrayBase).
	Compact bool
	// ObjectSize is java.lang.Object's CLASS DUMP instance size: 0 from
	// HotSpot and the hprof agent, the real object size from Android.
	ObjectSize uint32
}

// Overrides are the user's settings of the model (--ref-size,
// --header-size); 0 leaves a size to the evidence.
type Overrides struct {
	Ref    int
	Header int
}

// Model is the size model of one heap dump, decided once (Decide) from
// its evidence and the user's overrides; every view, table and note that
// sizes an object takes it. The zero Model sizes nothing sensibly: use
// Decide or Candidates.
type Model struct {
	idSize     int
	ref        int
	header     int
	compact    bool // compact object headers, as found (no header override)
	written    bool // instances take the CLASS DUMP's size (WrittenSizes)
	objectSize uint32
	refWhy     string
}

// Decide picks the size model of a dump: the reference size
// (RefSize), the header (Header), and whether instances take the sizes
// Android writes (WrittenSizes).
func Decide(e Evidence, o Overrides) Model {
	ref, why := RefSize(o.Ref, e.IDSize, e.RefGuess, e.RefFrom)
	return Model{
		idSize:     e.IDSize,
		ref:        ref,
		header:     Header(e.IDSize, ref, e.Compact, o.Header),
		compact:    e.Compact && o.Header <= 0,
		written:    WrittenSizes(e.ObjectSize, o.Header, o.Ref),
		objectSize: e.ObjectSize,
		refWhy:     why,
	}
}

// Candidates are the models a dump of this ID size may turn out to have,
// numbered as Model.Candidate numbers them: while a dump is read, array
// bytes are summed under each (the evidence comes with the classes,
// which may follow the arrays).
func Candidates(idSize int, o Overrides) [Models]Model {
	var ms [Models]Model
	for m := range ms {
		ref, compact := ModelRef(m), ModelCompact(m)
		ms[m] = Model{idSize: idSize, ref: ref, header: Header(idSize, ref, compact, o.Header), compact: compact}
	}
	return ms
}

// Candidate is the number of the candidate model whose array sizes are
// this model's (Candidates).
func (m Model) Candidate() int { return candidate(m.ref, m.compact) }

// Header is the object header size.
func (m Model) Header() int { return m.header }

// Ref is the reference size.
func (m Model) Ref() int { return m.ref }

// RefWhy says how the reference size was found.
func (m Model) RefWhy() string { return m.refWhy }

// Compact reports whether the model has compact object headers, found
// in the dump and not overridden by the user's header size.
func (m Model) Compact() bool { return m.compact }

// Written reports whether instances take the size their CLASS DUMP
// gives (WrittenSizes).
func (m Model) Written() bool { return m.written }

// SizesInDump reports whether the dump's CLASS DUMP instance sizes are
// object sizes (Android; java.lang.Object's is ObjectSize), whether or
// not the user's overrides set them aside.
func (m Model) SizesInDump() bool { return m.objectSize != 0 }

// ObjectSize is java.lang.Object's CLASS DUMP instance size.
func (m Model) ObjectSize() uint32 { return m.objectSize }

// Array is the size of an array of n elements of elem bytes each.
func (m Model) Array(n, elem int64) int64 { return Array(int64(m.header), n, elem) }

// RefArray is the size of an array of n references.
func (m Model) RefArray(n int64) int64 { return Array(int64(m.header), n, int64(m.ref)) }

// Instance is the size of an instance whose class, with its super
// classes, declares refs reference fields and prims bytes of primitive
// fields, and whose CLASS DUMP gives the instance size written.
func (m Model) Instance(refs, prims int, written uint32) int64 {
	if m.written {
		return int64(written)
	}
	return instance(m.header, m.ref, refs, prims)
}

// ClassObject is the size of a class object (the java.lang.Class a
// CLASS DUMP stands for): 0, as the test oracle weighs it; its static
// fields are not counted either.
func (m Model) ClassObject() int64 { return 0 }

// Describe names the model in one line, for the heap view's comments.
func (m Model) Describe() string {
	if m.written {
		return fmt.Sprintf("size model: instances as the CLASS DUMP gives them (Android object sizes, java.lang.Object %d bytes, not aligned); arrays: header %d, reference %d bytes, 8-byte alignment", m.objectSize, m.header+4, m.ref)
	}
	h := fmt.Sprint(m.header)
	if m.compact {
		h += " (compact object headers: jdk.internal.misc.Unsafe.ARRAY_BYTE_BASE_OFFSET is 12)"
	}
	return fmt.Sprintf("size model: reference %d bytes (%s), object header %s, array header %d, 8-byte alignment", m.ref, m.refWhy, h, m.header+4)
}
