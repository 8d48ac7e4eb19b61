package main

import (
	"math/rand/v2"
)

// Root kinds as the converter's retained view names its root frames.
var rootNames = map[byte]string{
	subRootUnknown:     "ROOT UNKNOWN",
	subRootJNIGlobal:   "ROOT JNI GLOBAL",
	subRootJNILocal:    "ROOT JNI LOCAL",
	subRootJavaFrame:   "ROOT JAVA FRAME",
	subRootNativeStack: "ROOT NATIVE STACK",
	subRootStickyClass: "ROOT STICKY CLASS",
	subRootThreadBlock: "ROOT THREAD BLOCK",
	subRootMonitorUsed: "ROOT MONITOR USED",
	subRootThreadObj:   "ROOT THREAD OBJECT",
}

// tally is a count of objects and their heap bytes.
type tally struct{ count, bytes int64 }

// gen writes one dump: the heap it lays out (h), where the next object
// goes (addr: object IDs are their addresses, as in a JDK's dump), and
// what it wrote, per class and per root kind (each shape is held by one
// root and shares nothing, so a root kind retains exactly its shapes).
type gen struct {
	o        *out
	rng      *rand.Rand
	h        *heap
	addr     uint64
	perClass map[*class]*tally
	retained map[byte]*tally
	objects  int64
	threads  []thread
	letters  []byte // the characters strings are cut from

	kind        byte    // the root kind of the shape being written
	unreachable float64 // the share of objects written unreachable
	scratch     []uint64
}

type thread struct {
	serial, trace uint32
	depth         int
}

// unreachable is the kind of the objects no root holds.
const unreachable = 0

const (
	heapBase  = 0x0000000700000000 // the first object's address
	emptyPath = 1                  // the stack trace objects name: no frames
)

func newGen(o *out, seed uint64, nGen, nThreads int) *gen {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	g := &gen{o: o, rng: rng, addr: heapBase, perClass: map[*class]*tally{}, retained: map[byte]*tally{}}
	g.h = newHeap(rng, nGen)
	g.letters = make([]byte, 1<<16)
	for i := range g.letters {
		g.letters[i] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 _.-"[rng.IntN(66)]
	}
	g.threads = make([]thread, nThreads)
	return g
}

// alloc places an object of class c and size bytes, and counts it.
func (g *gen) alloc(c *class, size int64) uint64 {
	id := g.addr
	g.addr += uint64(size)
	t := g.perClass[c]
	if t == nil {
		t = &tally{}
		g.perClass[c] = t
	}
	t.count++
	t.bytes += size
	r := g.retained[g.kind]
	if r == nil {
		r = &tally{}
		g.retained[g.kind] = r
	}
	r.count++
	r.bytes += size
	g.objects++
	return id
}

// preamble writes the header, the symbols, the classes' LOAD CLASS
// records, and the threads' stacks.
func (g *gen) preamble() {
	o := g.o
	o.raw([]byte("JAVA PROFILE 1.0.2\x00"))
	o.u4(8)
	o.id(1700000000000) // a fixed time: the same seed, the same bytes
	// methods and source files for the threads' frames
	methods := make([]uint64, 64)
	for i := range methods {
		methods[i] = g.h.sym(g.h.gen[i%len(g.h.gen)].name[4:] + "_run" + string(rune('a'+i%26)))
	}
	sig, src := g.h.sym("()V"), g.h.sym("Gen.java")
	for _, s := range g.h.strs {
		r := o.begin(tagString)
		o.id(g.h.strIDs[s])
		o.raw([]byte(s))
		o.end(r)
	}
	g.kind = subRootStickyClass
	for _, c := range g.h.classes {
		c.id = g.alloc(g.h.byName["java/lang/Class"], c.mirror)
		r := o.begin(tagLoadClass)
		o.u4(c.serial)
		o.id(c.id)
		o.u4(emptyPath)
		o.id(c.nameID)
		o.end(r)
	}
	r := o.begin(tagStackTrace)
	o.u4(emptyPath)
	o.u4(0)
	o.u4(0)
	o.end(r)
	frameID := uint64(symBase + 0x10000000)
	for i := range g.threads {
		t := &g.threads[i]
		t.serial, t.trace, t.depth = uint32(i+1), uint32(i+2), 3+g.rng.IntN(40)
		frames := make([]uint64, t.depth)
		for d := range frames {
			frameID += 8
			frames[d] = frameID
			c := g.h.gen[g.rng.IntN(len(g.h.gen))]
			r := o.begin(tagFrame)
			o.id(frameID)
			o.id(methods[g.rng.IntN(len(methods))])
			o.id(sig)
			o.id(src)
			o.u4(c.serial)
			o.u4(uint32(1 + g.rng.IntN(900)))
			o.end(r)
		}
		r := o.begin(tagStackTrace)
		o.u4(t.trace)
		o.u4(t.serial)
		o.u4(uint32(t.depth))
		for _, f := range frames {
			o.id(f)
		}
		o.end(r)
	}
}

// classDumps writes every CLASS DUMP, each class a sticky root.
func (g *gen) classDumps() {
	o := g.o
	for _, c := range g.h.classes {
		o.sub(subClassDump)
		o.id(c.id)
		o.u4(emptyPath)
		if c.super != nil {
			o.id(c.super.id)
		} else {
			o.id(0)
		}
		o.zero(5 * 8) // loader, signers, protection domain, reserved ×2
		o.u4(0)       // instance size: HotSpot writes 0
		o.u2(0)       // constant pool
		o.u2(uint16(len(c.statics)))
		for _, s := range c.statics {
			o.id(g.h.strIDs[s.name])
			o.u1(s.typ)
			d, _ := typeSize(s.typ)
			for b := d - 1; b >= 0; b-- {
				o.u1(byte(s.val >> (8 * b)))
			}
		}
		o.u2(uint16(len(c.fields)))
		for _, f := range c.fields {
			o.id(g.h.strIDs[f.name])
			o.u1(f.typ)
		}
		o.done()
		o.sub(subRootStickyClass)
		o.id(c.id)
		o.done()
	}
}

// root writes a root of the shape's kind for object id.
func (g *gen) root(id uint64) {
	o := g.o
	o.sub(g.kind)
	o.id(id)
	t := g.threads[g.rng.IntN(len(g.threads))]
	switch g.kind {
	case subRootJNIGlobal:
		o.id(id + 0x10000000000) // the JNI handle
	case subRootJNILocal, subRootJavaFrame:
		o.u4(t.serial)
		o.u4(uint32(g.rng.IntN(t.depth)))
	case subRootNativeStack, subRootThreadBlock:
		o.u4(t.serial)
	}
	o.done()
}
