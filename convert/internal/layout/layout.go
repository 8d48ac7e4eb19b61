// Package layout is the class-layout table of one heap dump: what its
// CLASS DUMPs say of each class's instances, flattened over the super
// class chain once per class — every field's offset in an instance's
// field bytes (the class's own fields first, then its super class's, as
// HPROF writes them), the reference slots, named-field lookup and the
// instance size under a heapsize.Model — and the one decoder of
// java.lang.String values (strings.go). The histogram, the thread names,
// the heap tables and the retained graph all read classes through it.
package layout

import (
	"encoding/binary"
	"slices"

	"github.com/hprof2pprof/hprof2pprof/convert/heapsize"
	"github.com/hprof2pprof/hprof2pprof/convert/hprof"
)

// MaxSuperChain bounds every walk up a super class chain: a cycle in a
// damaged dump must not hang a pass. Java's deepest real hierarchies are
// a few dozen classes.
const MaxSuperChain = 256

// Names resolves the names a layout carries: fields by their name
// string ID. heapdump.Env is one.
type Names interface {
	String(id uint64) string
}

// Class is what one CLASS DUMP says of its class's instances.
type Class struct {
	Super  uint64
	Loader uint64
	Fields []hprof.FieldDecl // own instance fields, in dump order
	Refs   int               // own reference fields
	Prims  int               // bytes of own primitive fields
	Size   uint32            // the CLASS DUMP's instance size field
	JVM                      // what the JVM adds that the CLASS DUMP does not say
}

// JVM is what the JVM gives a class that its CLASS DUMP does not list:
// the fields it injects into its own classes and their @Contended
// padding (heapsize.Injected), counted in every instance's size, and
// the static fields its class object (mirror) holds.
type JVM struct {
	Injected    heapsize.Layout
	Contended   bool // the injected bytes include @Contended padding
	StaticRefs  int
	StaticPrims int
}

// ownFields are one class's own fields in a flattened chain.
type ownFields struct {
	heapsize.Layout
	contended bool
}

// instanceAfterContended sizes an instance of a class below one with
// @Contended padding: HotSpot places a subclass's fields after such a
// class's padding, on an 8-byte boundary, instead of in its holes.
func (l *Layout) instanceAfterContended(m heapsize.Model) int64 {
	end, ref := int64(m.Header()), int64(m.Ref())
	for i := len(l.chain) - 1; i >= 0; i-- {
		c := l.chain[i]
		end += int64(c.Refs)*ref + int64(c.Prims)
		if c.contended && i > 0 {
			end = heapsize.Align8(end)
		}
	}
	return heapsize.Align8(end)
}

// Field is one instance field of a flattened layout.
type Field struct {
	Name  string
	Off   int32 // byte offset in the instance's field bytes
	Type  hprof.BasicType
	Class uint64 // the class that declares it
}

// Layout is one class's instance layout, flattened over its super chain.
type Layout struct {
	ID     uint64
	Fields []Field // every instance field, the class's own first
	// Refs are the offsets of the reference fields, in field order: the
	// slots the object graph follows.
	Refs []int32
	// Payload is the field bytes an instance carries.
	Payload int
	// RefCount and PrimBytes sum the chain's reference fields and the
	// bytes of its primitive fields; Written is the class's CLASS DUMP
	// instance size (the size model's inputs).
	RefCount  int
	PrimBytes int
	// Injected sums what the JVM adds to the chain's classes
	// (Class.Injected); it counts where the model is HotSpot's.
	Injected heapsize.Layout
	// chain is each class's own fields (injected ones included), the
	// class first, and contended whether one of its super classes has
	// @Contended padding (Class.Contended): then the fields are summed
	// class by class (instanceAfterContended).
	chain     []ownFields
	contended bool
	Written   uint32
	// SuperMissing says the chain ends at a super class without a CLASS
	// DUMP (the fields above it are unknown).
	SuperMissing bool

	idSize int
}

// Table is the class layouts of one heap dump. Classes are added as
// their CLASS DUMPs are read; a layout is flattened on first use and
// kept once its whole chain is known. A Table is not safe for
// concurrent use.
type Table struct {
	idSize  int
	classes map[uint64]*Class
	flat    map[uint64]*Layout
	// classClass is java.lang.Class's ID (SetClassClass): its instances'
	// size starts every class object's (Mirror).
	classClass uint64
}

// NewTable starts the table of a dump with IDs of idSize bytes.
func NewTable(idSize int) *Table {
	return &Table{idSize: idSize, classes: map[uint64]*Class{}, flat: map[uint64]*Layout{}}
}

// Add records the CLASS DUMP c, with what the JVM adds to it (j); it
// reports whether the class had one already (the later one wins).
func (t *Table) Add(c *hprof.ClassRecord, j JVM) (dup bool) {
	_, dup = t.classes[c.ID]
	def := &Class{Super: c.SuperID, Loader: c.LoaderID, Size: c.InstanceSize, Fields: slices.Clone(c.Fields), JVM: j}
	for _, f := range c.Fields {
		if f.Type == hprof.TypeObject {
			def.Refs++
		} else {
			def.Prims += f.Type.Size(t.idSize)
		}
	}
	t.classes[c.ID] = def
	if dup {
		clear(t.flat) // layouts flattened through the old one
	}
	return dup
}

// Class is the CLASS DUMP of class id, nil if none.
func (t *Table) Class(id uint64) *Class { return t.classes[id] }

// Has reports whether class id has a CLASS DUMP.
func (t *Table) Has(id uint64) bool { _, ok := t.classes[id]; return ok }

// Len is the number of classes with a CLASS DUMP.
func (t *Table) Len() int { return len(t.classes) }

// IDs are the class IDs with a CLASS DUMP, in increasing order.
func (t *Table) IDs() []uint64 {
	ids := make([]uint64, 0, len(t.classes))
	for id := range t.classes {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// Chain calls fn with class id and each of its super classes in turn
// (at most MaxSuperChain of them) while fn returns true and the CLASS
// DUMPs go on. It reports whether the chain was known to its end: every
// class met had a CLASS DUMP (the walk also ends well when fn stops it or
// the limit is reached).
func (t *Table) Chain(id uint64, fn func(id uint64, c *Class) bool) bool {
	for i := 0; id != 0 && i < MaxSuperChain; i++ {
		c := t.classes[id]
		if c == nil {
			return false
		}
		if !fn(id, c) {
			return true
		}
		id = c.Super
	}
	return true
}

// Known reports whether the CLASS DUMPs of id and all its super classes
// have been read.
func (t *Table) Known(id uint64) bool {
	return t.Chain(id, func(uint64, *Class) bool { return true })
}

// Extends reports whether class id is ancestor or one of its subclasses,
// as far as the CLASS DUMPs read so far tell.
func (t *Table) Extends(id, ancestor uint64) bool {
	found := false
	t.Chain(id, func(c uint64, _ *Class) bool {
		found = c == ancestor
		return !found
	})
	return found || (id == ancestor && id != 0)
}

// Layout is the flattened layout of class id, nil when it has no CLASS
// DUMP. names names the fields.
func (t *Table) Layout(names Names, id uint64) *Layout {
	if l, ok := t.flat[id]; ok {
		return l
	}
	c := t.classes[id]
	if c == nil {
		return nil
	}
	l := &Layout{ID: id, Written: c.Size, idSize: t.idSize}
	off := 0
	known := t.Chain(id, func(cid uint64, k *Class) bool {
		for _, f := range k.Fields {
			l.Fields = append(l.Fields, Field{Name: names.String(f.NameID), Off: int32(off), Type: f.Type, Class: cid})
			if f.Type == hprof.TypeObject {
				l.Refs = append(l.Refs, int32(off))
			}
			off += f.Type.Size(t.idSize)
		}
		l.RefCount += k.Refs
		l.PrimBytes += k.Prims
		l.Injected.Refs += k.Injected.Refs
		l.Injected.Prims += k.Injected.Prims
		l.chain = append(l.chain, ownFields{heapsize.Layout{Refs: k.Refs + k.Injected.Refs, Prims: k.Prims + k.Injected.Prims}, k.Contended})
		l.contended = l.contended || (k.Contended && len(l.chain) > 1)
		return true
	})
	l.Payload, l.SuperMissing = off, !known
	if known {
		t.flat[id] = l
	}
	return l
}

// SetClassClass names java.lang.Class's ID (Mirror sizes class objects
// from its instances).
func (t *Table) SetClassClass(id uint64) { t.classClass = id }

// Mirror is the size of class id's class object under model m:
// java.lang.Class's instance size (the header alone without its CLASS
// DUMP), then the class's static fields (heapsize.Model.Mirror).
func (t *Table) Mirror(names Names, m heapsize.Model, id uint64) int64 {
	c := t.classes[id]
	if c == nil || !m.HotSpot() {
		return 0
	}
	size := m.Instance(0, 0, 0)
	if l := t.Layout(names, t.classClass); l != nil {
		size = l.Instance(m)
	}
	return m.Mirror(size, c.StaticRefs, c.StaticPrims)
}

// Instance is the size of an instance of the class under model m.
func (l *Layout) Instance(m heapsize.Model) int64 {
	if m.HotSpot() && l.contended && !m.Written() {
		return l.instanceAfterContended(m)
	}
	refs, prims := l.RefCount, l.PrimBytes
	if m.HotSpot() {
		refs, prims = refs+l.Injected.Refs, prims+l.Injected.Prims
	}
	return m.Instance(refs, prims, l.Written)
}

// Field finds the first field named name (the class's own before its
// super classes').
func (l *Layout) Field(name string) (Field, bool) {
	for _, f := range l.Fields {
		if f.Name == name {
			return f, true
		}
	}
	return Field{}, false
}

// Value reads field f of an instance's field bytes data: primitives
// sign-extended, references (IDs) as they are. ok is false when data
// ends before the field (the hprof agent writes instances without field
// values).
func (l *Layout) Value(data []byte, f Field) (int64, bool) {
	sz := f.Type.Size(l.idSize)
	if int(f.Off)+sz > len(data) {
		return 0, false
	}
	b := data[f.Off:]
	switch sz {
	case 1:
		return int64(int8(b[0])), true
	case 2:
		return int64(int16(binary.BigEndian.Uint16(b))), true
	case 4:
		if f.Type == hprof.TypeObject {
			return int64(binary.BigEndian.Uint32(b)), true
		}
		return int64(int32(binary.BigEndian.Uint32(b))), true
	}
	return int64(binary.BigEndian.Uint64(b)), true
}
