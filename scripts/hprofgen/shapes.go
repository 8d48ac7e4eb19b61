package main

import "fmt"

// The shapes: each is written bottom up (an object after those it
// refers to, so every ID is known when it is written) and held by one
// root of g.kind.

// instance starts an INSTANCE DUMP of class c; the caller writes its
// c.dataSize bytes of fields, its own class's first.
func (g *gen) instance(id uint64, c *class) {
	o := g.o
	o.sub(subInstance)
	o.id(id)
	o.u4(emptyPath)
	o.id(c.id)
	o.u4(uint32(c.dataSize))
}

// plain writes an instance of c with every field zero (null references).
func (g *gen) plain(c *class) uint64 {
	id := g.alloc(c, c.size)
	g.instance(id, c)
	g.o.zero(c.dataSize)
	g.o.done()
	return id
}

// text writes a Latin-1 java.lang.String of content s and its byte[].
func (g *gen) text(s []byte) uint64 {
	bc, sc := g.h.byName["[B"], g.h.byName["java/lang/String"]
	o := g.o
	b := g.alloc(bc, arraySize(int64(len(s)), 1))
	o.sub(subPrimArray)
	o.id(b)
	o.u4(emptyPath)
	o.u4(uint32(len(s)))
	o.u1(tByte)
	o.raw(s)
	o.done()
	id := g.alloc(sc, sc.size)
	g.instance(id, sc)
	o.id(b)
	o.u4(g.rng.Uint32()) // hash
	o.u1(0)              // coder: Latin-1
	o.u1(0)              // hashIsZero
	o.done()
	return id
}

// str writes a string of random characters, mostly short.
func (g *gen) str() uint64 {
	n := 1 + g.rng.IntN(48)
	if g.rng.IntN(32) == 0 {
		n = g.rng.IntN(2000)
	}
	at := g.rng.IntN(len(g.letters) - n)
	return g.text(g.letters[at : at+n])
}

// objArray writes an object array of class c holding elems, then nulls
// up to n elements.
func (g *gen) objArray(c *class, elems []uint64, n int) uint64 {
	o := g.o
	id := g.alloc(c, arraySize(int64(n), refSize))
	o.sub(subObjArray)
	o.id(id)
	o.u4(emptyPath)
	o.u4(uint32(n))
	o.id(c.id)
	for _, e := range elems {
		o.id(e)
	}
	o.zero(8 * (n - len(elems)))
	o.done()
	return id
}

// list: an ArrayList of strings, held by a thread's frame.
func (g *gen) list() {
	k := 1 + g.rng.IntN(48)
	capacity := k + g.rng.IntN(k/2+1)
	elems := g.scratch[:0]
	for range k {
		elems = append(elems, g.str())
	}
	arr := g.objArray(g.h.byName["[Ljava/lang/Object;"], elems, capacity)
	lc := g.h.byName["java/util/ArrayList"]
	id := g.alloc(lc, lc.size)
	g.instance(id, lc)
	g.o.id(arr)
	g.o.u4(uint32(k))     // size
	g.o.u4(uint32(k + 1)) // AbstractList.modCount
	g.o.done()
	g.scratch = elems
	g.root(id)
}

// hashMap: a HashMap of strings to generated objects, collisions
// chained through HashMap$Node.next.
func (g *gen) hashMap() {
	k := 1 + g.rng.IntN(64)
	capacity := 16
	for capacity*3/4 < k {
		capacity *= 2
	}
	heads := g.scratch[:0]
	for range capacity {
		heads = append(heads, 0)
	}
	nc := g.h.byName["java/util/HashMap$Node"]
	o := g.o
	for range k {
		key := g.str()
		val := g.plain(g.h.gen[g.rng.IntN(len(g.h.gen))])
		hash := g.rng.Uint32()
		b := int(hash) & (capacity - 1)
		id := g.alloc(nc, nc.size)
		g.instance(id, nc)
		o.u4(hash)
		o.id(key)
		o.id(val)
		o.id(heads[b])
		o.done()
		heads[b] = id
	}
	table := g.objArray(g.h.byName["[Ljava/util/HashMap$Node;"], heads, capacity)
	mc := g.h.byName["java/util/HashMap"]
	id := g.alloc(mc, mc.size)
	g.instance(id, mc)
	o.id(table)
	o.id(0) // entrySet
	o.u4(uint32(k))
	o.u4(uint32(k))
	o.u4(uint32(capacity * 3 / 4))
	o.u4(0x3f400000) // 0.75f
	o.id(0)          // AbstractMap.keySet
	o.id(0)          // AbstractMap.values
	o.done()
	g.scratch = heads
	g.root(id)
}

// chain: a linked list of n gen/Chain nodes, written tail first.
func (g *gen) chain(n int) {
	c := g.h.byName["gen/Chain"]
	next := uint64(0)
	for i := n - 1; i >= 0; i-- {
		id := g.alloc(c, c.size)
		g.instance(id, c)
		g.o.id(next)
		g.o.id(uint64(i))
		g.o.done()
		next = id
	}
	g.root(next)
}

// tree: a binary tree of depth n: a spine of n gen/Tree nodes, each
// with the next as its left child and a leaf as its right.
func (g *gen) tree(n int) {
	c := g.h.byName["gen/Tree"]
	left := uint64(0)
	for i := n - 1; i >= 0; i-- {
		leaf := g.treeNode(c, 0, 0, 2*i+1)
		left = g.treeNode(c, left, leaf, 2*i)
	}
	g.root(left)
}

func (g *gen) treeNode(c *class, left, right uint64, key int) uint64 {
	id := g.alloc(c, c.size)
	g.instance(id, c)
	g.o.id(left)
	g.o.id(right)
	g.o.u4(uint32(key))
	g.o.done()
	return id
}

// bigArray: an Object[] of n generated objects, every tenth slot null.
func (g *gen) bigArray(n int) {
	elems := g.scratch[:0]
	first := g.rng.IntN(len(g.h.gen))
	for i := range n {
		if i%10 == 9 {
			elems = append(elems, 0)
			continue
		}
		elems = append(elems, g.plain(g.h.gen[(first+i)%len(g.h.gen)]))
	}
	g.root(g.objArray(g.h.byName["[Ljava/lang/Object;"], elems, n))
	g.scratch = elems
}

var primArrayClasses = map[byte]string{tBoolean: "[Z", tChar: "[C", tFloat: "[F", tDouble: "[D", tByte: "[B", tShort: "[S", tInt: "[I", tLong: "[J"}

// primArray: an array of a primitive type, up to 16 KB of elements.
func (g *gen) primArray() {
	t := primTypes[g.rng.IntN(len(primTypes))]
	d, hs := typeSize(t)
	n := g.rng.IntN(16384 / d)
	id := g.alloc(g.h.byName[primArrayClasses[t]], arraySize(int64(n), int64(hs)))
	o := g.o
	o.sub(subPrimArray)
	o.id(id)
	o.u4(emptyPath)
	o.u4(uint32(n))
	o.u1(t)
	at := g.rng.IntN(len(g.letters) - n*d)
	o.raw(g.letters[at : at+n*d])
	o.done()
	g.root(id)
}

// threads writes a java.lang.Thread for each thread, named by a String,
// held by its ROOT THREAD OBJECT.
func (g *gen) writeThreads() {
	g.kind = subRootThreadObj
	tc := g.h.byName["java/lang/Thread"]
	o := g.o
	for i, t := range g.threads {
		name := g.text([]byte(fmt.Sprintf("gen-worker-%d", i)))
		id := g.alloc(tc, tc.size)
		g.instance(id, tc)
		o.id(0x7f0000100000 + uint64(i)*0x1000) // eetop
		o.id(uint64(i + 1))                     // tid
		o.id(name)
		o.u1(0)
		o.id(0) // contextClassLoader
		o.id(0) // holder
		o.done()
		o.sub(subRootThreadObj)
		o.id(id)
		o.u4(t.serial)
		o.u4(t.trace)
		o.done()
	}
}

// garbage writes n java.lang.Object instances no root reaches, as a dump
// of all objects (not only live ones) has: the smallest records (25
// bytes each), so the cheapest way to a count of objects.
func (g *gen) garbage(n int64) {
	g.kind = unreachable
	c := g.h.byName["java/lang/Object"]
	for range n {
		g.instance(g.alloc(c, c.size), c)
		g.o.done()
	}
}

// round writes one of each frequent shape and, now and then (always in
// the first round), a long chain, a deep tree and a big array; then
// unreachable objects, to make their share of the dump's objects.
func (g *gen) round(first bool) {
	before := g.objects
	defer func() {
		if g.unreachable > 0 {
			g.garbage(int64(float64(g.objects-before) * g.unreachable / (1 - g.unreachable)))
		}
	}()
	g.kind = subRootJNIGlobal
	g.hashMap()
	g.kind = subRootJavaFrame
	for range 4 {
		g.list()
	}
	g.kind = subRootUnknown
	g.primArray()
	g.primArray()
	g.kind = subRootMonitorUsed
	g.root(g.plain(g.h.gen[g.rng.IntN(len(g.h.gen))]))
	if first || g.rng.IntN(64) == 0 {
		g.kind = subRootJNILocal
		g.chain(1000 + g.rng.IntN(50000))
	}
	if first || g.rng.IntN(64) == 0 {
		g.kind = subRootNativeStack
		g.tree(100 + g.rng.IntN(10000))
	}
	if first || g.rng.IntN(64) == 0 {
		g.kind = subRootThreadBlock
		g.bigArray(1000 + g.rng.IntN(50000))
	}
}
