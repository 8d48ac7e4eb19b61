package heapdump

import (
	"strings"

	"github.com/hprof2pprof/hprof2pprof/convert/heapsize"
	"github.com/hprof2pprof/hprof2pprof/convert/hprof"
	"github.com/hprof2pprof/hprof2pprof/convert/internal/layout"
)

// The size model's evidence, as the CLASS DUMPs bring it: the JDK's
// Unsafe array offsets, the static offsets that tell the reference size,
// java.lang.Object's written size, and what the JVM adds to each class.

// classJVM is what the JVM gives class c (named name) beyond its CLASS
// DUMP: injected fields and padding, and the static fields its class
// object holds (HotSpot lists pseudo-statics named "<…>", such as the
// constant pool's resolved references, which live elsewhere).
func (h *Dump) classJVM(e Env, name string, c *hprof.ClassRecord) layout.JVM {
	var j layout.JVM
	j.Injected, j.Contended = heapsize.Injected(h.IDSize, name, func(field string) bool {
		for _, f := range c.Fields {
			if e.String(f.NameID) == field {
				return true
			}
		}
		return false
	})
	for _, s := range c.Statics {
		if strings.HasPrefix(e.String(s.NameID), "<") {
			continue
		}
		if s.Type == hprof.TypeObject {
			j.StaticRefs++
		} else {
			j.StaticPrims += s.Type.Size(h.IDSize)
		}
	}
	return j
}

// noteEvidence notes what the CLASS DUMP of class name tells of the
// size model.
func (h *Dump) noteEvidence(e Env, name string, c *hprof.ClassRecord) {
	switch name {
	case "java.lang.Class":
		h.Classes.SetClassClass(c.ID)
		for _, f := range c.Fields {
			if e.String(f.NameID) == "classData" {
				h.Evidence.JDK15 = true
			}
		}
	case "java.lang.Object":
		h.noteObjectClass(e, c)
	case "java.lang.Class$Atomic":
		h.guessOop(e, c, "annotationTypeOffset", "annotationDataOffset", "java.lang.Class$Atomic")
	case "java.util.concurrent.FutureTask":
		if h.Evidence.RefGuess == 0 {
			h.guessOop(e, c, "waitersOffset", "runnerOffset", "java.util.concurrent.FutureTask")
		}
	case "jdk.internal.misc.Unsafe", "sun.misc.Unsafe":
		h.noteUnsafe(e, name, c)
	}
}

// noteUnsafe reads the JDK's Unsafe array offsets (JDK 9+ keeps them in
// jdk.internal.misc.Unsafe and copies them into sun.misc.Unsafe, which
// JDK 5 to 8 have alone): ints up to JDK 24, longs since.
func (h *Dump) noteUnsafe(e Env, name string, c *hprof.ClassRecord) {
	if h.Evidence.Unsafe == "jdk.internal.misc.Unsafe" {
		return
	}
	read := func(field string) int64 {
		f, ok := static(e, c, field)
		switch {
		case ok && f.Type == hprof.TypeInt:
			return int64(int32(f.Value))
		case ok && f.Type == hprof.TypeLong:
			return int64(f.Value)
		}
		return 0
	}
	ev := &h.Evidence
	ev.IntBase, ev.ByteBase, ev.ObjScale = read("ARRAY_INT_BASE_OFFSET"), read("ARRAY_BYTE_BASE_OFFSET"), read("ARRAY_OBJECT_INDEX_SCALE")
	if ev.IntBase != 0 || ev.ByteBase != 0 || ev.ObjScale != 0 {
		ev.Unsafe = name
	}
}

// static finds a class's static field by name (the last of that name).
func static(e Env, c *hprof.ClassRecord, name string) (hprof.StaticField, bool) {
	var f hprof.StaticField
	found := false
	for _, s := range c.Statics {
		if e.String(s.NameID) == name {
			f, found = s, true
		}
	}
	return f, found
}

// guessOop infers the reference size from two adjacent reference-field
// offsets the JDK keeps in static longs, as VisualVM's heap library does.
func (h *Dump) guessOop(e Env, c *hprof.ClassRecord, hi, lo, from string) {
	a, ha := static(e, c, hi)
	b, hb := static(e, c, lo)
	if !ha || !hb || a.Type != hprof.TypeLong || b.Type != hprof.TypeLong {
		return
	}
	if ref, ok := heapsize.RefFromOffsets(int64(a.Value), int64(b.Value)); ok {
		h.Evidence.RefGuess, h.Evidence.RefFrom = ref, from
	}
}

// noteObjectClass reads what java.lang.Object's CLASS DUMP says about the
// writer: its instance size (non-zero from Android) and whether it lists
// ART's shadow$_klass_ field.
func (h *Dump) noteObjectClass(e Env, c *hprof.ClassRecord) {
	h.Evidence.ObjectSize = c.InstanceSize
	for _, f := range c.Fields {
		if e.String(f.NameID) == "shadow$_klass_" {
			h.ART = true
		}
	}
}
