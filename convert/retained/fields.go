package retained

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/hprof"
	lay "github.com/hprof2pprof/hprof2pprof/convert/internal/layout"
	"github.com/hprof2pprof/hprof2pprof/convert/retained/internal/domtree"
	"github.com/hprof2pprof/hprof2pprof/convert/retained/internal/mem"
)

// Where the reference that holds an object is named: the graph keeps no
// field names (its edges are the non-null references of each object, in
// field order), so once the breadth-first tree is known the dump is read
// once more, and for each object that holds another on the tree the
// field (or array element, static field, class loader) that refers to it
// is noted as a slot.

// Slots of a holdTree: a field's byte offset in its object's field
// bytes (≥ 0), or one of these.
const (
	slotUnset   int32 = math.MinInt32
	slotElement int32 = -1 // an object array's element
	slotLoader  int32 = -2 // a class object's loader
	slotStatic0 int32 = -3 // static field i of a class object: slotStatic0 - i
)

// fieldsPass sets h.slot from the records of the dump, looking IDs up
// in ix.
func (s *scanner) fieldsPass(ctx context.Context, h *holdTree, ix *idIndex) error {
	n := len(h.parent)
	h.slot = mem.Alloc[int32](s.ha, n, n)
	for i := range h.slot {
		h.slot[i] = slotUnset
	}
	parents := domtree.NewBitset(nil, n)
	for _, p := range h.parent {
		if p != 0 {
			parents.Set(p - 1)
		}
	}
	var mu sync.Mutex
	h.statics = map[uint64]string{}
	rv := s.refVisitor(ix)
	rv.want = parents.Has
	rv.ref = func(v, j uint32, slot int32) bool {
		// An object's slot is written only by the one record of its
		// parent: no two workers write one slot.
		if h.parent[j] != v+1 || h.slot[j] != slotUnset {
			return false
		}
		h.slot[j] = slot
		return true
	}
	rv.static = func(cls uint32, i int, name string) {
		mu.Lock()
		h.statics[uint64(cls)<<32|uint64(i)] = name
		mu.Unlock()
	}
	return rv.run(ctx)
}

// refVisitor is a pass over the dump's references, looking IDs up in ix;
// the caller sets what it wants and takes.
func (s *scanner) refVisitor(ix *idIndex) refVisitor {
	return refVisitor{file: s.in.File, segs: s.in.Segments, dump: s.in.Dump, idSize: s.idSize, ix: ix,
		classes: s.classes, classIx: s.classIx, unknown: s.unknown, names: s.in.Names, sequential: s.stats.Duplicates > 0}
}

// refVisitor reads the dump once more and calls ref for each reference
// to an object of the index from an object want accepts, with its slot.
// It reads in-memory segments several at a time (ref and static must be
// safe for that), else the file (Input.File) in order.
type refVisitor struct {
	file       *hprof.File
	segs       Segments
	dump       int
	idSize     int
	ix         *idIndex
	classes    []layout
	classIx    *classHash
	unknown    uint32
	names      lay.Names
	sequential bool // one segment at a time (duplicate IDs: the last record wins)

	want func(v uint32) bool
	// ref reports whether it took the reference (for static).
	ref func(v, j uint32, slot int32) bool
	// static is told the name of static field i of class number cls
	// when ref took its reference (nil: not told).
	static func(cls uint32, i int, name string)
}

func (rv *refVisitor) run(ctx context.Context) error {
	if rv.segs != nil {
		return rv.segments(ctx)
	}
	var cls refClassCache
	var cur idCursor
	found := false
	err := rv.file.Heap(ctx, rv.dump, func(hr *hprof.HeapReader) error {
		found = true
		for {
			sub, err := hr.Next()
			if err != nil {
				return nil
			}
			var data []byte
			if sub.Tag == hprof.InstanceDump || sub.Tag == hprof.ObjArrayDump {
				if data, err = hr.Payload(); err != nil {
					return nil
				}
			}
			rv.record(sub, data, &cls, &cur)
		}
	})
	switch {
	case errors.Is(err, hprof.ErrNoDump) || (err == nil && !found):
		return errf(ErrNoDump, "heap dump %d not found", rv.dump)
	case errors.Is(err, hprof.ErrChanged):
		return fmt.Errorf("%w: %w", ErrChanged, err)
	}
	return err
}

// segments is run over in-memory segments, several at a time.
func (rv *refVisitor) segments(ctx context.Context) error {
	workers := max(1, min(runtime.GOMAXPROCS(0), rv.segs.Len()))
	if rv.sequential {
		workers = 1
	}
	return overSegments(ctx, rv.segs, rv.idSize, workers, func() subVisit {
		var cls refClassCache
		var cur idCursor
		return func(_ int, sub *hprof.SubRecord, data []byte) { rv.record(sub, data, &cls, &cur) }
	})
}

// refClassCache is a small cache of class numbers by class object ID.
type refClassCache map[uint64]uint32

func (rv *refVisitor) classOf(c *refClassCache, id uint64) uint32 {
	if *c == nil {
		*c = refClassCache{}
	}
	if i, ok := (*c)[id]; ok {
		return i
	}
	i, ok := rv.classIx.lookup(id)
	if !ok {
		i = rv.unknown
	}
	(*c)[id] = i
	return i
}

// record visits the references of one sub-record.
func (rv *refVisitor) record(sub *hprof.SubRecord, data []byte, cls *refClassCache, cur *idCursor) {
	I := rv.idSize
	switch sub.Tag {
	case hprof.InstanceDump:
		v, ok := rv.ix.lookupNext(sub.ID, cur)
		if !ok || !rv.want(v) {
			return
		}
		c := &rv.classes[rv.classOf(cls, sub.ClassID)]
		if len(data) < c.payload {
			return
		}
		for _, off := range c.refs {
			rv.take(v, readID(data[off:], I), off)
		}
	case hprof.ObjArrayDump:
		v, ok := rv.ix.lookupNext(sub.ID, cur)
		if !ok || !rv.want(v) {
			return
		}
		for k := 0; k+I <= len(data); k += I {
			rv.take(v, readID(data[k:], I), slotElement)
		}
	case hprof.ClassDump:
		v, ok := rv.ix.lookup(sub.Class.ID)
		if !ok || !rv.want(v) {
			return
		}
		for i, st := range sub.Class.Statics {
			if st.Type == hprof.TypeObject && rv.take(v, st.Value, slotStatic0-int32(i)) && rv.static != nil {
				rv.static(rv.classOf(cls, sub.Class.ID), i, rv.names.String(st.NameID))
			}
		}
		rv.take(v, sub.Class.LoaderID, slotLoader)
	}
}

// take passes one reference of v to ref.
func (rv *refVisitor) take(v uint32, id uint64, slot int32) bool {
	if id == 0 {
		return false
	}
	j, ok := rv.ix.lookup(id)
	return ok && rv.ref(v, j, slot)
}

// fieldNames names the slots as the declaring class and the field:
// ("java.util.ArrayList", "elementData"), ("java.lang.Object[]", "[*]"),
// ("corpus.Oom", "LEAK") for a static, ("corpus.Oom", "<classloader>").
type fieldNames struct {
	layouts    *lay.Table
	names      lay.Names
	classes    []layout // by class number
	statics    map[uint64]string
	classNames map[uint64]string
	cache      map[uint64][2]string
}

// name names slot of an object of class number cls (flagged for class
// objects).
func (fn *fieldNames) name(cls uint32, slot int32) (class, field string) {
	k := uint64(cls)<<32 | uint64(uint32(slot))
	if n, ok := fn.cache[k]; ok {
		return n[0], n[1]
	}
	c := &fn.classes[cls&^classObjFlag]
	class = c.name
	switch {
	case slot == slotUnset: // before the statics: it is below them too
		field = "<reference>"
	case slot == slotElement:
		field = graph.ElementField
	case slot == slotLoader:
		field = "<classloader>"
	case slot <= slotStatic0:
		field = fn.statics[uint64(cls&^classObjFlag)<<32|uint64(slotStatic0-slot)]
	default:
		class, field = fn.declared(c, slot)
	}
	fn.cache[k] = [2]string{class, field}
	return class, field
}

// declared names the instance field at byte offset off of class c by the
// class that declares it.
func (fn *fieldNames) declared(c *layout, off int32) (class, field string) {
	if l := fn.layouts.Layout(fn.names, c.id); l != nil {
		for _, f := range l.Fields {
			if f.Off == off && f.Type == hprof.TypeObject {
				return fn.classNames[f.Class], f.Name
			}
		}
	}
	return c.name, fmt.Sprintf("<field at %d>", off)
}
