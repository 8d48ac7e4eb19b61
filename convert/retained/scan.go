package retained

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"

	"github.com/hprof2pprof/hprof2pprof/convert/hprof"
	"github.com/hprof2pprof/hprof2pprof/convert/internal/idnote"
	lay "github.com/hprof2pprof/hprof2pprof/convert/internal/layout"
	"github.com/hprof2pprof/hprof2pprof/convert/retained/internal/domtree"
	"github.com/hprof2pprof/hprof2pprof/convert/retained/internal/mem"
)

// classObjFlag marks an object that is a class object (CLASS DUMP): its
// class number is then the class it stands for.
const classObjFlag uint32 = 1 << 31

// layout is what the scanner needs of a class.
type layout struct {
	id       uint64
	name     string
	size     int64
	payload  int     // field bytes an instance of it carries
	refs     []int32 // byte offsets of the references to follow
	node     uint32  // dense number of its class object; noNode if none
	skipped  int64   // Reference.referent fields not followed
	referent int32   // byte offset of the referent field not followed; -1 for none
}

const noNode = math.MaxUint32

// referenceClasses are the classes whose `referent` field the oracle does
// not follow (nor their subclasses).
var referenceClasses = map[string]bool{
	"java.lang.ref.WeakReference":    true,
	"java.lang.ref.SoftReference":    true,
	"java.lang.ref.FinalReference":   true,
	"java.lang.ref.PhantomReference": true,
}

// scanner reads the dump twice: pass 1 collects object IDs (and an upper
// bound on references), pass 2 fills the graph.
type scanner struct {
	in     Input
	idSize int

	classes []layout
	classIx *classHash  // class object ID → class number (classes are sorted by ID)
	prim    [256]uint32 // element type → class number of its array class
	unknown uint32      // class number for objects of unknown class
	cls     classCache  // for classOf (pass 1)

	// Pass 1.
	ids      idnote.IDNotes
	maxEdges int64

	// Pass 2: by dense object number.
	ix       *idIndex
	obj      objWords        // class (| classObjFlag for class objects) and shallow size
	g        domtree.Graph   // references
	roots    []uint32        // root objects in dump order (may repeat)
	weak     []uint32        // objects whose last reference is a Reference.referent
	rootKind map[uint32]Root // the first root record of each root object (a thread object's own)
	starts   []uint32        // the roots' DFS numbers, ascending (number)
	hold     *holdTree       // Input.Paths: the breadth-first tree
	objByNum objWords        // Input.Paths: the words by object number, kept
	rev      *revGraph       // Input.Suspects: the strong graph reversed
	naming   chan error      // Input.Paths: the fields pass beside the analysis
	// ha is where the paths' arrays come from (Input.Paths; holdArena),
	// and rowsKeep says the caller asked for the per-object answers
	// itself (KeepIDs before Paths forced it).
	ha        *mem.Arena
	rowsKeep  bool
	keepOrder bool // the paths view or a report by class reads holdTree.order

	stats       Stats
	a           *mem.Arena // where the big arrays come from (nil: the heap)
	arenaChosen bool       // chooseArena has run
	spill       Spill
}

func newScanner(in Input) (*scanner, error) {
	s := &scanner{in: in, rootKind: map[uint32]Root{}, obj: objWords{wide: map[uint32]wideObj{}}, g: domtree.Graph{Wide: map[uint32]uint32{}}}
	var ids []uint64
	if in.Layouts != nil {
		ids = in.Layouts.IDs()
	}
	for _, id := range ids {
		s.classes = append(s.classes, layout{id: id, name: in.ClassNames[id], node: noNode, referent: -1})
	}
	s.classIx = newClassHash(ids)
	for i := range s.prim {
		s.prim[i] = noNode
	}
	byName := map[string]uint32{}
	for i, c := range s.classes {
		if _, dup := byName[c.name]; !dup {
			byName[c.name] = uint32(i)
		}
	}
	for _, t := range []hprof.BasicType{hprof.TypeBoolean, hprof.TypeChar, hprof.TypeFloat, hprof.TypeDouble,
		hprof.TypeByte, hprof.TypeShort, hprof.TypeInt, hprof.TypeLong} {
		name := t.JavaName() + "[]"
		i, ok := byName[name]
		if !ok {
			i = uint32(len(s.classes))
			s.classes = append(s.classes, layout{name: name, node: noNode, referent: -1})
		}
		s.prim[t] = i
	}
	s.unknown = uint32(len(s.classes))
	s.classes = append(s.classes, layout{name: "<class without CLASS DUMP>", node: noNode, referent: -1})
	if uint64(len(s.classes)) >= uint64(classObjFlag) {
		return nil, errf(ErrTooLarge, "%d classes", len(s.classes))
	}
	return s, nil
}

// setLayouts takes each class's reference slots and size from the
// dump's class layouts. The referent of a Reference (classes named in
// referenceClasses, and their subclasses) is set apart.
func (s *scanner) setLayouts() {
	for i := range s.classes {
		c := &s.classes[i]
		if c.id == 0 {
			continue
		}
		l := s.in.Layouts.Layout(s.in.Names, c.id)
		c.size, c.payload, c.refs = l.Instance(s.in.Model), l.Payload, l.Refs
		weak := false
		s.in.Layouts.Chain(c.id, func(id uint64, _ *lay.Class) bool {
			weak = referenceClasses[s.in.ClassNames[id]]
			return !weak
		})
		if !weak {
			continue
		}
		c.refs = nil
		for _, f := range l.Fields {
			switch {
			case f.Type != hprof.TypeObject:
			case f.Name == "referent":
				c.skipped++
				c.referent = f.Off
			default:
				c.refs = append(c.refs, f.Off)
			}
		}
	}
}

// classOf returns the class number of a class object ID.
func (s *scanner) classOf(id uint64) uint32 { return s.cls.get(s, id) }

// classCache answers classOf ahead of the class index. A few classes
// have most objects, interleaved in a dump: a small direct-mapped cache
// by the ID's low bits (above the alignment) spares most lookups. The
// zero value is ready. ID 0 (null) is the unknown class.
type classCache [64]struct {
	id  uint64
	idx uint32
}

func (c *classCache) get(s *scanner, id uint64) uint32 {
	if id == 0 {
		return s.unknown
	}
	e := &c[(id>>3)%uint64(len(c))]
	if e.id == id {
		return e.idx
	}
	i, ok := s.classIx.lookup(id)
	if !ok {
		i = s.unknown
	}
	e.id, e.idx = id, i
	return i
}

// pass reads the chosen dump once (hprof.File.Heap: damage ends the
// pass, keeping what was read, as the converter does).
func (s *scanner) pass(ctx context.Context, pass int) error {
	if pass == 1 {
		s.idSize = s.in.File.IDSize()
		s.setLayouts()
	}
	s.g.Edges = s.g.Edges[:cap(s.g.Edges)]
	f := s.newFiller(0, uint32(len(s.g.Edges)))
	var next int64
	found := false
	err := s.in.File.Heap(ctx, s.in.Dump, func(hr *hprof.HeapReader) error {
		found = true
		return s.record(ctx, pass, hr, f, &next)
	})
	switch {
	case errors.Is(err, hprof.ErrNoDump) || (err == nil && !found):
		return errf(ErrNoDump, "heap dump %d not found", s.in.Dump)
	case errors.Is(err, hprof.ErrChanged):
		return fmt.Errorf("%w: %w", ErrChanged, err)
	case err != nil:
		return err
	}
	if pass == 2 {
		s.g.Edges = s.g.Edges[:f.pos]
		s.merge(f)
	}
	return nil
}

// record handles the sub-records of one heap record of the chosen dump:
// pass 1 counts them, pass 2 fills the graph through f. Damage ends the
// record (hr's error) and a record the graph cannot take ends the pass
// (hprof.ErrStop): the rest of the input is left.
func (s *scanner) record(ctx context.Context, pass int, hr *hprof.HeapReader, f *filler, next *int64) error {
	if pass == 1 {
		defer s.ids.Flush() // a part ends with its record
	}
	n := 0
	for {
		sub, err := hr.Next()
		if err != nil {
			return nil // io.EOF, or damage
		}
		if n++; n&0xFFFF == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
			if off := hr.Offset(); s.in.Progress != nil && off >= *next {
				s.in.Progress(pass, off)
				*next = off + 16<<20
			}
		}
		if pass == 1 {
			s.count(sub)
			continue
		}
		var data []byte
		if sub.Tag == hprof.InstanceDump || sub.Tag == hprof.ObjArrayDump {
			if data, err = hr.Payload(); err != nil {
				return nil
			}
		}
		if err := f.fill(sub, data); err != nil {
			return hprof.ErrStop
		}
	}
}

// count is pass 1: object IDs and the reference bound.
func (s *scanner) count(sub *hprof.SubRecord) {
	switch sub.Tag {
	case hprof.InstanceDump:
		s.ids.Add(sub.ID)
		s.maxEdges += int64(len(s.classes[s.classOf(sub.ClassID)].refs)) + 1
	case hprof.ObjArrayDump:
		s.ids.Add(sub.ID)
		s.maxEdges += int64(sub.Length) + 1
	case hprof.PrimArrayDump, hprof.PrimArrayNoData:
		s.ids.Add(sub.ID)
		s.maxEdges++
	case hprof.ClassDump:
		s.ids.Add(sub.ID)
		s.maxEdges += int64(len(sub.Class.Statics)) + 1 // + the loader
	}
}

// segments is pass 2 over in-memory segments (Input.Segments), several
// at a time. Segment i writes its references to edges[base[i]:base[i+1]]
// (Input.SegmentRefs bounds them), so workers need no coordination; the
// gaps between segments are never touched. Roots and counts are merged
// in segment order, so the result is that of a sequential pass.
func (s *scanner) segments(ctx context.Context) error {
	segs := s.in.Segments
	ns := segs.Len()
	base := make([]uint32, ns+1)
	for i := range ns {
		base[i+1] = base[i] + uint32(s.in.SegmentRefs[i])
	}
	s.g.Edges = s.g.Edges[:base[ns]]
	fillers := make([]*filler, ns)
	workers := max(1, min(runtime.GOMAXPROCS(0), ns))
	if s.stats.Duplicates > 0 {
		workers = 1 // the last record of an ID wins: keep the file's order
	}
	next := make(chan int)
	errs := make([]error, ns)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf []byte
			for i := range next {
				f := s.newFiller(base[i], base[i+1])
				fillers[i] = f
				errs[i] = segs.Body(i, &buf, func(rec hprof.Record, body []byte) {
					hb := hprof.NewHeapBytes(body, rec, s.idSize)
					for {
						sub, err := hb.Next()
						if err != nil {
							return // damaged: keep what was read, as the converter does
						}
						data, err := hb.Payload()
						if err != nil || f.fill(sub, data) != nil {
							return
						}
					}
				})
			}
		}()
	}
	var err error
	for i := range ns {
		if err = ctx.Err(); err != nil {
			break
		}
		next <- i
		if s.in.Progress != nil && i%16 == 0 {
			s.in.Progress(2, s.in.Segments.SegmentOffset(i))
		}
	}
	close(next)
	wg.Wait()
	if err != nil {
		return err
	}
	for i, f := range fillers {
		if errs[i] != nil {
			return errs[i]
		}
		s.merge(f)
	}
	return nil
}

// filler fills the graph from the sub-records of one segment (or of the
// whole dump when streaming). Several fillers may run at once: each
// writes only its objects' entries and its own part of the reference
// array.
type filler struct {
	s        *scanner
	first    uint32             // start of this filler's part of s.g.Edges
	pos, lim uint32             // next free and end of this filler's part of s.g.Edges
	cls      classCache         // for classOf
	cur      idCursor           // the last object's place in the ID index
	wide     map[uint32]wideObj // objects whose words did not hold them
	deg      map[uint32]uint32  // objects with wideDeg references
	roots    []rootRef
	weak     []uint32 // objects whose last reference is a Reference.referent
	stats    Stats    // RootRecords, Dangling, ReferentsSkipped
}

type rootRef struct {
	obj  uint32
	root Root
}

func (s *scanner) newFiller(pos, lim uint32) *filler {
	return &filler{s: s, first: pos, pos: pos, lim: lim}
}

// merge adds what a filler found, in the order fillers are merged.
func (s *scanner) merge(f *filler) {
	if f == nil {
		return
	}
	for _, r := range f.roots {
		old, dup := s.rootKind[r.obj]
		switch {
		case !dup:
			s.rootKind[r.obj] = r.root
			s.roots = append(s.roots, r.obj)
		case r.root.Kind == hprof.RootThreadObject && old.Kind != hprof.RootThreadObject:
			// A thread object is named as the thread it is, whatever
			// other root (a frame's local) holds it too.
			s.rootKind[r.obj] = r.root
		}
	}
	s.weak = append(s.weak, f.weak...)
	for i, o := range f.wide {
		s.obj.wide[i] = o
	}
	for i, d := range f.deg {
		s.g.Wide[i] = d
	}
	s.stats.References += int64(f.pos - f.first)
	s.stats.RootRecords += f.stats.RootRecords
	s.stats.Dangling += f.stats.Dangling
	s.stats.ReferentsSkipped += f.stats.ReferentsSkipped
}

// classOf returns the class number of a class object ID (each filler
// has its own cache: fillers run at once).
func (f *filler) classOf(id uint64) uint32 { return f.cls.get(f.s, id) }

// object starts object id and returns its number.
func (f *filler) object(id uint64, cls uint32, size int64) (uint32, bool) {
	s := f.s
	i, ok := s.ix.lookupNext(id, &f.cur)
	if !ok {
		return 0, false
	}
	w, ok := packObj(cls, size)
	if !ok {
		if f.wide == nil {
			f.wide = map[uint32]wideObj{}
		}
		f.wide[i] = wideObj{cls, size}
	}
	s.obj.w[i] = w
	s.g.Start[i] = f.pos
	return i, true
}

// ref adds a reference to the object with this ID.
func (f *filler) ref(id uint64) {
	if id == 0 {
		return
	}
	j, ok := f.s.ix.lookup(id)
	if !ok {
		f.stats.Dangling++
		return
	}
	if f.pos == f.lim {
		return // more than the first pass counted: the input changed; checked later
	}
	f.s.g.Edges[f.pos] = j
	f.pos++
}

// fill is pass 2: one sub-record into the graph. data is the payload of
// an instance or object array.
func (f *filler) fill(sub *hprof.SubRecord, data []byte) error {
	switch sub.Tag {
	case hprof.InstanceDump:
		return f.instance(sub, data)
	case hprof.ObjArrayDump:
		return f.objArray(sub, data)
	case hprof.PrimArrayDump, hprof.PrimArrayNoData:
		return f.primArray(sub)
	case hprof.ClassDump:
		return f.classObject(sub)
	}
	if sub.Tag.IsRoot() {
		f.root(sub)
	}
	return nil
}

// instance fills an instance: its size from its class, and its
// references from the field bytes in data at the class's reference
// offsets, the Reference.referent last.
func (f *filler) instance(sub *hprof.SubRecord, data []byte) error {
	s := f.s
	I := s.idSize
	cls := f.classOf(sub.ClassID)
	c := &s.classes[cls]
	i, ok := f.object(sub.ID, cls, c.size)
	if !ok {
		return errf(ErrChanged, "object 0x%x at byte %d", sub.ID, sub.Offset)
	}
	f.stats.ReferentsSkipped += c.skipped
	if len(data) >= c.payload { // the hprof agent writes no field values
		if I == 8 {
			for _, off := range c.refs {
				f.ref(binary.BigEndian.Uint64(data[off:]))
			}
		} else {
			for _, off := range c.refs {
				f.ref(uint64(binary.BigEndian.Uint32(data[off:])))
			}
		}
		if c.referent >= 0 {
			// The referent goes last; analyse follows it only to
			// objects a strong path reaches (see weak).
			p := f.pos
			if f.ref(readID(data[c.referent:], I)); f.pos > p {
				f.weak = append(f.weak, i)
			}
		}
	}
	s.g.SetEnd(i, f.pos, &f.deg)
	return nil
}

// objArray fills an object array: its size from the model, and a
// reference per element ID in data.
func (f *filler) objArray(sub *hprof.SubRecord, data []byte) error {
	s := f.s
	I := s.idSize
	cls := f.classOf(sub.ClassID)
	i, ok := f.object(sub.ID, cls, s.in.Model.RefArray(int64(sub.Length)))
	if !ok {
		return errf(ErrChanged, "object 0x%x at byte %d", sub.ID, sub.Offset)
	}
	for k := 0; k+I <= len(data); k += I {
		f.ref(readID(data[k:], I))
	}
	s.g.SetEnd(i, f.pos, &f.deg)
	return nil
}

// primArray fills a primitive array, which has no references: its class
// is its element type's (or the unknown class for a type with none).
func (f *filler) primArray(sub *hprof.SubRecord) error {
	s := f.s
	cls := s.prim[sub.ElemType]
	if cls == noNode {
		cls = s.unknown
	}
	i, ok := f.object(sub.ID, cls, s.in.Model.Array(int64(sub.Length), int64(sub.ElemType.Size(s.idSize))))
	if !ok {
		return errf(ErrChanged, "object 0x%x at byte %d", sub.ID, sub.Offset)
	}
	s.g.SetEnd(i, f.pos, &f.deg)
	return nil
}

// classObject fills a class object. It weighs what the model says
// (its class mirror): it retains its statics and, through the loader edge, may
// hold its loader.
func (f *filler) classObject(sub *hprof.SubRecord) error {
	s := f.s
	cls := f.classOf(sub.Class.ID)
	i, ok := f.object(sub.Class.ID, cls|classObjFlag, s.in.Layouts.Mirror(s.in.Names, s.in.Model, sub.Class.ID))
	if !ok {
		return errf(ErrChanged, "class 0x%x at byte %d", sub.Class.ID, sub.Offset)
	}
	for _, st := range sub.Class.Statics {
		if st.Type == hprof.TypeObject {
			f.ref(st.Value)
		}
	}
	f.ref(sub.Class.LoaderID) // the VM's Class.classLoader, which HPROF omits from the fields
	s.g.SetEnd(i, f.pos, &f.deg)
	return nil
}

// root notes a GC root record: a root naming no object of the index is
// counted as dangling (but for ID 0).
func (f *filler) root(sub *hprof.SubRecord) {
	f.stats.RootRecords++
	j, ok := f.s.ix.lookup(sub.ID)
	if !ok {
		if sub.ID != 0 {
			f.stats.Dangling++
		}
		return
	}
	f.roots = append(f.roots, rootRef{j, rootOf(sub)})
}

// finishGraph checks pass 2 against pass 1.
func (s *scanner) finishGraph() error {
	missing := 0
	for _, d := range s.g.Deg {
		if d == 0 { // see domtree.Graph
			missing++
		}
	}
	if missing > 0 {
		return fmt.Errorf("%w: %d objects of the first pass not found in the second", ErrChanged, missing)
	}

	s.stats.Roots = len(s.roots)
	return nil
}

func readID(b []byte, size int) uint64 {
	if size == 4 {
		return uint64(binary.BigEndian.Uint32(b))
	}
	return binary.BigEndian.Uint64(b)
}
