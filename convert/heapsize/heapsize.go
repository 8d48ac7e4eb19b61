// Package heapsize is the shallow size model of heap dump objects: HPROF
// records no object sizes, so they are computed from the JVM's own layout
// rules, with the JVM's GC.class_histogram as the ground truth.
//
//   - reference size: 4 for ID size 4; for ID size 8, the JDK's own
//     jdk.internal.misc.Unsafe.ARRAY_OBJECT_INDEX_SCALE (sun.misc.Unsafe
//     before JDK 9), else inferred from two static field offsets the JDK
//     keeps (RefFromOffsets), else 8;
//   - array header (the bytes before the elements): Unsafe's
//     ARRAY_INT_BASE_OFFSET: 16 with compressed class pointers, 12 with
//     compact object headers (JDK 24+), 20 or 24 with uncompressed class
//     pointers; without it, the ID size plus the reference size plus 4;
//   - object header: the array header less the 4-byte length (ID size
//     plus reference size without Unsafe's word), at most two words: 12
//     with compressed class pointers, which JDK 15+ keeps when oops are
//     not compressed (ZGC, heaps of 32 GB or more), 16 without them, 8
//     with compact headers;
//   - instance: align8(header + Σ field sizes over the class and its
//     super classes, references at the reference size), plus the fields
//     the JVM injects into its own classes and the @Contended padding it
//     gives some of them (Injected), which a heap dump does not list;
//   - array: align8(array header + length × element size);
//   - class object (a java.lang.Class mirror): java.lang.Class's
//     instance size, then the class's static fields (Mirror);
//   - Android writes each class's real instance size in its CLASS DUMP
//     (java.lang.Object's is non-zero): instances take that size as
//     written, unaligned; arrays keep the header model; class objects
//     are not sized, as before.
//
// Every rule here is a pure function of the evidence: the decoders
// gather it (Evidence), Decide turns it and the user's overrides into one
// Model per dump, and every consumer sizes through that Model.
package heapsize

// Align8 rounds n up to a multiple of 8, as the JVM aligns objects.
func Align8(n int64) int64 { return (n + 7) &^ 7 }

// Array is the size of an array of n elements of elem bytes each after
// an array header of base bytes (the object header and the 4-byte
// length), aligned to 8.
func Array(base, n, elem int64) int64 { return Align8(base + n*elem) }

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

// ArrayBase checks an array base offset the JDK's Unsafe gives
// (ARRAY_INT_BASE_OFFSET) for a JVM of ID size idSize: the header and
// the 4-byte length, a multiple of 4 from 12 (8-byte header) to 24 (two
// words, the elements aligned to 8).
func ArrayBase(idSize int, base int64) (int, bool) {
	if base < 12 || base > 24 || base%4 != 0 || (idSize == 4 && base != 12) {
		return 0, false
	}
	return int(base), true
}

// HeaderFromBase is the object header of a JVM whose arrays' elements
// start at base: the base less the 4-byte length, at most two words
// (before JDK 22, uncompressed class pointers align the elements to 8, so
// the base is 24 after a 16-byte header).
func HeaderFromBase(idSize, base int) int { return min(base-4, 2*idSize) }

// WrittenSizes reports whether a dump's CLASS DUMP instance sizes are
// object sizes, as Android writes them: java.lang.Object's (objectSize)
// is non-zero. HotSpot and the hprof agent write 0 there. Then an
// instance's size is its class's size as written, unless the user set
// the header or reference size.
func WrittenSizes(objectSize uint32, headerOverride, refOverride int) bool {
	return objectSize != 0 && headerOverride == 0 && refOverride == 0
}
