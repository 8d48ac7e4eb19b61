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

// fieldsPass sets h.slot from the records of the dump.
func (s *scanner) fieldsPass(ctx context.Context, h *holdTree) error {
	n := len(h.parent)
	h.slot = make([]int32, n)
	for i := range h.slot {
		h.slot[i] = slotUnset
	}
	parents := domtree.NewBitset(nil, n)
	for _, p := range h.parent {
		if p != 0 {
			parents.Set(p - 1)
		}
	}
	nm := &slotNamer{s: s, h: h, parents: parents, statics: map[uint64]string{}}
	if s.in.Segments != nil {
		return nm.segments(ctx)
	}
	var cls classCache
	var cur idCursor
	found := false
	err := s.in.File.Heap(ctx, s.in.Dump, func(hr *hprof.HeapReader) error {
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
			nm.record(sub, data, &cls, &cur)
		}
	})
	switch {
	case errors.Is(err, hprof.ErrNoDump) || (err == nil && !found):
		return errf(ErrNoDump, "heap dump %d not found", s.in.Dump)
	case err != nil:
		return err
	}
	h.statics = nm.statics
	return nil
}

// slotNamer notes the slots of one pass.
type slotNamer struct {
	s       *scanner
	h       *holdTree
	parents domtree.Bitset // objects that hold another on the tree
	mu      sync.Mutex
	statics map[uint64]string // class number << 32 | static index → the static's name
}

// segments is the pass over in-memory segments, several at a time: an
// object's slot is written only by the one record of its parent.
func (nm *slotNamer) segments(ctx context.Context) error {
	s := nm.s
	segs := s.in.Segments
	ns := segs.Len()
	workers := max(1, min(runtime.GOMAXPROCS(0), ns))
	if s.stats.Duplicates > 0 {
		workers = 1
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			var buf []byte
			var cls classCache
			var cur idCursor
			for i := range next {
				_ = segs.Body(i, &buf, func(rec hprof.Record, body []byte) {
					hb := hprof.NewHeapBytes(body, rec, s.idSize)
					for {
						sub, err := hb.Next()
						if err != nil {
							return
						}
						data, err := hb.Payload()
						if err != nil {
							return
						}
						nm.record(sub, data, &cls, &cur)
					}
				})
			}
		})
	}
	var err error
	for i := range ns {
		if err = ctx.Err(); err != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	nm.h.statics = nm.statics
	return err
}

// record notes the slots of one sub-record's references.
func (nm *slotNamer) record(sub *hprof.SubRecord, data []byte, cls *classCache, cur *idCursor) {
	s := nm.s
	I := s.idSize
	switch sub.Tag {
	case hprof.InstanceDump:
		v, ok := s.ix.lookupNext(sub.ID, cur)
		if !ok || !nm.parents.Has(v) {
			return
		}
		c := &s.classes[cls.get(s, sub.ClassID)]
		if len(data) < c.payload {
			return
		}
		for _, off := range c.refs {
			nm.hold(v, readID(data[off:], I), off)
		}
	case hprof.ObjArrayDump:
		v, ok := s.ix.lookupNext(sub.ID, cur)
		if !ok || !nm.parents.Has(v) {
			return
		}
		for k := 0; k+I <= len(data); k += I {
			nm.hold(v, readID(data[k:], I), slotElement)
		}
	case hprof.ClassDump:
		v, ok := s.ix.lookup(sub.Class.ID)
		if !ok || !nm.parents.Has(v) {
			return
		}
		for i, st := range sub.Class.Statics {
			if st.Type == hprof.TypeObject && nm.hold(v, st.Value, slotStatic0-int32(i)) {
				c := cls.get(s, sub.Class.ID)
				nm.mu.Lock()
				nm.statics[uint64(c)<<32|uint64(i)] = s.in.Names.String(st.NameID)
				nm.mu.Unlock()
			}
		}
		nm.hold(v, sub.Class.LoaderID, slotLoader)
	}
}

// hold notes slot for the object id refers to when v holds it on the
// tree and no earlier reference of v did; it reports whether it did.
func (nm *slotNamer) hold(v uint32, id uint64, slot int32) bool {
	if id == 0 {
		return false
	}
	j, ok := nm.s.ix.lookup(id)
	if !ok || nm.h.parent[j] != v+1 || nm.h.slot[j] != slotUnset {
		return false
	}
	nm.h.slot[j] = slot
	return true
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
	case slot == slotElement:
		field = graph.ElementField
	case slot == slotLoader:
		field = "<classloader>"
	case slot <= slotStatic0:
		field = fn.statics[uint64(cls&^classObjFlag)<<32|uint64(slotStatic0-slot)]
	case slot == slotUnset:
		field = "<reference>"
	default:
		class, field = fn.declared(c, slot)
	}
	fn.cache[k] = [2]string{class, field}
	return class, field
}

// declared names the instance field at byte offset off of class c by the
// class that declares it.
func (fn *fieldNames) declared(c *layout, off int32) (class, field string) {
	at := int32(0)
	size := fn.layouts.IDSize()
	fn.layouts.Chain(c.id, func(id uint64, k *lay.Class) bool {
		for _, f := range k.Fields {
			if at == off && f.Type == hprof.TypeObject {
				class, field = fn.classNames[id], fn.names.String(f.NameID)
				return false
			}
			at += int32(f.Type.Size(size))
		}
		return true
	})
	if field == "" {
		return c.name, fmt.Sprintf("<field at %d>", off)
	}
	return class, field
}
