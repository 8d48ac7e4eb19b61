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
// Every function here is pure: the decoders gather the facts (field
// counts, offsets, sizes written) and ask.
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

// Models are the size models a heap dump's arrays are summed in while
// it is read, before its classes say which one holds (Model): a
// reference of 4 or 8 bytes, with or without compact object headers.
const Models = 4

// Model numbers the size model of a reference size and header kind.
func Model(ref int, compact bool) int {
	m := 0
	if ref == 8 {
		m = 1
	}
	if compact {
		m += 2
	}
	return m
}

// ModelRef is the reference size of model m.
func ModelRef(m int) int { return 4 << (m & 1) }

// ModelCompact reports whether model m has compact object headers.
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
	n := int64(header)
	for _, c := range chain {
		n += int64(c.Refs*ref + c.Prims)
	}
	return Align8(n)
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

// Describe names the size model in one line, for the heap view's
// comments: written says the CLASS DUMP sizes are object sizes
// (WrittenSizes; java.lang.Object weighs objectSize), else references
// take oop bytes (why says how that was found) and headers hdr (compact
// says they are compact object headers, found as CompactFromArrayBase
// says).
func Describe(written bool, objectSize uint32, oop, hdr int, why string, compact bool) string {
	if written {
		return fmt.Sprintf("size model: instances as the CLASS DUMP gives them (Android object sizes, java.lang.Object %d bytes, not aligned); arrays: header %d, reference %d bytes, 8-byte alignment", objectSize, hdr+4, oop)
	}
	h := fmt.Sprint(hdr)
	if compact {
		h += " (compact object headers: jdk.internal.misc.Unsafe.ARRAY_BYTE_BASE_OFFSET is 12)"
	}
	return fmt.Sprintf("size model: reference %d bytes (%s), object header %s, array header %d, 8-byte alignment", oop, why, h, hdr+4)
}
