package main

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// The heap this generator lays out is a 64-bit HotSpot's of JDK 21 with
// compressed oops and compressed class pointers, and its sizes are
// worked out here from HotSpot's layout rules, on their own:
//
//   - object header 12 bytes (mark word, compressed class pointer);
//     references 4 bytes; every object aligned to 8;
//   - instance: header + the fields of its class and super classes;
//   - array: header + 4-byte length + elements;
//   - the JVM adds fields no class file declares: java.lang.Class gets
//     3 references (protection domain, source file, signers), 2 words
//     (klass, array klass) and 2 ints (oop size, static oop field
//     count); java.lang.Thread, since JDK 19, 15 bytes;
//   - a class object (the java.lang.Class mirror of a CLASS DUMP):
//     java.lang.Class's instance, then the class's static fields.
//
// The dump says so itself, as a JDK's does: jdk.internal.misc.Unsafe's
// ARRAY_INT_BASE_OFFSET is 16 and ARRAY_OBJECT_INDEX_SCALE 4, and
// java.lang.Class declares classData (JDK 15+).
const (
	header    = 12
	refSize   = 4
	arrayBase = header + 4
)

func align8(n int64) int64 { return (n + 7) &^ 7 }

// arraySize is the heap size of an array of n elements of heap size elem.
func arraySize(n, elem int64) int64 { return align8(arrayBase + n*elem) }

type field struct {
	name string
	typ  byte
}

type static struct {
	name string
	typ  byte
	val  uint64
}

// class is one class of the dump: its CLASS DUMP and LOAD CLASS, and
// the sizes of its instances (in the heap and in the dump).
type class struct {
	name    string // as LOAD CLASS names it: java/lang/String, [B
	java    string // as the manifest names it: java.lang.String, byte[]
	id      uint64
	serial  uint32
	nameID  uint64
	super   *class
	fields  []field // its own instance fields, in declared order
	statics []static
	jvmAdds int64 // heap bytes the JVM adds to each instance

	size     int64 // an instance's heap size
	dataSize int   // an instance's field bytes in the dump
	mirror   int64 // its class object's heap size
	elem     byte  // arrays: the element type
}

// javaName turns a LOAD CLASS name into the Java name.
func javaName(n string) string {
	dims := strings.Count(n, "[")
	n = n[dims:]
	prim := map[string]string{"B": "byte", "C": "char", "D": "double", "F": "float", "I": "int", "J": "long", "S": "short", "Z": "boolean"}
	if dims > 0 {
		if p, ok := prim[n]; ok {
			n = p
		} else {
			n = strings.TrimSuffix(strings.TrimPrefix(n, "L"), ";")
		}
	}
	return strings.ReplaceAll(n, "/", ".") + strings.Repeat("[]", dims)
}

// layout works out the instance sizes of c (its super classes first).
func (c *class) layout() {
	var refs, prims int64
	data := 0
	for k := c; k != nil; k = k.super {
		for _, f := range k.fields {
			d, h := typeSize(f.typ)
			data += d
			if f.typ == tObject {
				refs++
			} else {
				prims += int64(h)
			}
		}
	}
	c.size = align8(header + refs*refSize + prims + c.jvmAdds)
	c.dataSize = data
}

// heap is the dump's classes and the symbols they name.
type heap struct {
	classes []*class
	byName  map[string]*class
	gen     []*class // the generated classes gen/C0000…
	strs    []string // STRING records, in ID order
	strIDs  map[string]uint64
}

const symBase = 0x7f0000000000 // symbol IDs: apart from object IDs

func (h *heap) sym(s string) uint64 {
	if id, ok := h.strIDs[s]; ok {
		return id
	}
	id := symBase + uint64(len(h.strs)+1)*8
	h.strs = append(h.strs, s)
	h.strIDs[s] = id
	return id
}

func (h *heap) add(name, super string, fields []field, statics []static) *class {
	c := &class{name: name, java: javaName(name), super: h.byName[super], fields: fields, statics: statics}
	c.serial = uint32(len(h.classes) + 1)
	c.nameID = h.sym(name)
	for _, f := range fields {
		h.sym(f.name)
	}
	for _, s := range statics {
		h.sym(s.name)
	}
	h.classes = append(h.classes, c)
	h.byName[name] = c
	return c
}

func refs(names ...string) []field {
	fs := make([]field, len(names))
	for i, n := range names {
		fs[i] = field{n, tObject}
	}
	return fs
}

// newHeap declares the JDK's classes the shapes use and nGen generated
// ones, each with fields and statics drawn from rng.
func newHeap(rng *rand.Rand, nGen int) *heap {
	h := &heap{byName: map[string]*class{}, strIDs: map[string]uint64{}}
	h.add("java/lang/Object", "", nil, nil)
	cls := h.add("java/lang/Class", "java/lang/Object", append(refs("cachedConstructor", "name", "module", "classLoader", "classData", "packageName", "componentType", "reflectionData"),
		field{"classRedefinedCount", tInt}, field{"genericInfo", tObject}, field{"enumConstants", tObject},
		field{"enumConstantDirectory", tObject}, field{"annotationData", tObject}, field{"annotationType", tObject},
		field{"classValueMap", tObject}), nil)
	cls.jvmAdds = 3*refSize + 2*8 + 2*4
	h.add("jdk/internal/misc/Unsafe", "java/lang/Object", nil, []static{
		{"theUnsafe", tObject, 0}, {"ADDRESS_SIZE", tInt, 8},
		{"ARRAY_BYTE_BASE_OFFSET", tInt, arrayBase}, {"ARRAY_INT_BASE_OFFSET", tInt, arrayBase},
		{"ARRAY_LONG_BASE_OFFSET", tInt, arrayBase}, {"ARRAY_OBJECT_BASE_OFFSET", tInt, arrayBase},
		{"ARRAY_OBJECT_INDEX_SCALE", tInt, refSize}, {"ARRAY_INT_INDEX_SCALE", tInt, 4},
	})
	h.add("java/lang/String", "java/lang/Object", []field{{"value", tObject}, {"hash", tInt}, {"coder", tByte}, {"hashIsZero", tBoolean}},
		[]static{{"COMPACT_STRINGS", tBoolean, 1}, {"serialVersionUID", tLong, 0xa0f0a4387a3bb342}})
	h.add("java/util/AbstractMap", "java/lang/Object", refs("keySet", "values"), nil)
	h.add("java/util/HashMap", "java/util/AbstractMap", append(refs("table", "entrySet"),
		field{"size", tInt}, field{"modCount", tInt}, field{"threshold", tInt}, field{"loadFactor", tFloat}),
		[]static{{"DEFAULT_INITIAL_CAPACITY", tInt, 16}, {"TREEIFY_THRESHOLD", tInt, 8}})
	h.add("java/util/HashMap$Node", "java/lang/Object", []field{{"hash", tInt}, {"key", tObject}, {"value", tObject}, {"next", tObject}}, nil)
	h.add("java/util/AbstractCollection", "java/lang/Object", nil, nil)
	h.add("java/util/AbstractList", "java/util/AbstractCollection", []field{{"modCount", tInt}}, nil)
	h.add("java/util/ArrayList", "java/util/AbstractList", []field{{"elementData", tObject}, {"size", tInt}},
		[]static{{"DEFAULT_CAPACITY", tInt, 10}, {"EMPTY_ELEMENTDATA", tObject, 0}})
	th := h.add("java/lang/Thread", "java/lang/Object", []field{{"eetop", tLong}, {"tid", tLong}, {"name", tObject},
		{"interrupted", tBoolean}, {"contextClassLoader", tObject}, {"holder", tObject}}, nil)
	th.jvmAdds = 15
	h.add("gen/Chain", "java/lang/Object", []field{{"next", tObject}, {"value", tLong}}, nil)
	h.add("gen/Tree", "java/lang/Object", []field{{"left", tObject}, {"right", tObject}, {"key", tInt}}, nil)
	for _, a := range []string{"[Ljava/lang/Object;", "[Ljava/util/HashMap$Node;", "[B", "[C", "[D", "[F", "[I", "[J", "[S", "[Z"} {
		c := h.add(a, "java/lang/Object", nil, nil)
		c.elem = tObject
		if len(a) == 2 {
			c.elem = map[byte]byte{'B': tByte, 'C': tChar, 'D': tDouble, 'F': tFloat, 'I': tInt, 'J': tLong, 'S': tShort, 'Z': tBoolean}[a[1]]
		}
	}
	h.addGenerated(rng, nGen)
	for _, c := range h.classes {
		c.layout()
	}
	for _, c := range h.classes {
		c.mirror = cls.size
		var sr, sp int64
		for _, s := range c.statics {
			if _, hs := typeSize(s.typ); s.typ == tObject {
				sr++
			} else {
				sp += int64(hs)
			}
		}
		c.mirror = align8(cls.size + sr*refSize + sp)
	}
	return h
}

var primTypes = []byte{tBoolean, tChar, tFloat, tDouble, tByte, tShort, tInt, tLong}

// addGenerated declares gen/C0000…: up to 4 references and 6 primitive
// fields each, a fifth of them extending an earlier one, some with
// static fields.
func (h *heap) addGenerated(rng *rand.Rand, n int) {
	for i := range n {
		super := "java/lang/Object"
		if i > 0 && rng.IntN(5) == 0 {
			super = h.gen[rng.IntN(i)].name
		}
		var fs []field
		for j := range rng.IntN(5) {
			fs = append(fs, field{fmt.Sprintf("ref%d", j), tObject})
		}
		for j := range rng.IntN(7) {
			fs = append(fs, field{fmt.Sprintf("p%d", j), primTypes[rng.IntN(len(primTypes))]})
		}
		var ss []static
		for j := range rng.IntN(3) {
			ss = append(ss, static{fmt.Sprintf("S%d", j), primTypes[rng.IntN(len(primTypes))], uint64(rng.Uint32())})
		}
		h.gen = append(h.gen, h.add(fmt.Sprintf("gen/C%04d", i), super, fs, ss))
	}
}
