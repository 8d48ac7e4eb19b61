// Package retained computes retained sizes of a binary heap dump: the
// object graph in compact CSR form, its GC roots, the dominator tree and,
// from it, the `retained` view — every reachable object contributes its
// shallow size once, on a stack that is its path in the dominator tree,
// so cumulative values in a flame graph are retained sizes.
//
// Semantics follow the test oracle (VisualVM's heap library; see
// docs/retained.md):
//   - GC roots: every ROOT sub-record of the dump.
//   - Edges: instance reference fields (own fields first, then the super
//     class's, as CLASS DUMP lays them out), object array elements and
//     static reference fields of class objects.
//   - A class object no reference reaches is still live when an object of
//     its class is: it then hangs from the virtual root (root kind "class
//     of a reachable object"), so it retains its statics but is retained
//     by none of its instances.
//   - The `referent` field of java.lang.ref.WeakReference, SoftReference,
//     FinalReference, PhantomReference and their subclasses is not an
//     edge: weakly reachable objects are retained by whatever else holds
//     them, or are unreachable.
//   - Objects no root reaches get no retained size and are not in the
//     view (its comments say how many there were).
//
// Sizes are taken in the caller's size model (Input.Model, the heap
// view's), over the dump's class layouts (Input.Layouts).
//
// Memory: the graph lives in flat arrays indexed by a dense object number
// (see docs/retained.md for the bytes per object and per reference).
//
// Layers: this package builds the graph from the dump's records and
// turns the dominator tree into the view; the graph algorithms, which
// know node numbers and edges only, are in internal/domtree, and where
// the big arrays come from (anonymous memory or mapped files) in
// internal/mem.
package retained

import (
	"context"
	"errors"
	"fmt"

	"github.com/hprof2pprof/hprof2pprof/convert/heapsize"
	"github.com/hprof2pprof/hprof2pprof/convert/hprof"
	"github.com/hprof2pprof/hprof2pprof/convert/internal/idnote"
	lay "github.com/hprof2pprof/hprof2pprof/convert/internal/layout"
	"github.com/hprof2pprof/hprof2pprof/convert/retained/internal/mem"
	"github.com/hprof2pprof/hprof2pprof/internal/sysmem"
)

// The retained view numbers objects, and the offsets of their
// references, in 32 bits: its arrays of object numbers (the graph's
// edges, the dominators, the DFS order) take half the memory of 64-bit
// ones. A dump past these limits is refused with ErrTooLarge before
// anything is allocated for it; the heap view and the heap tables count
// in 64 bits and have no such limit.
const (
	// MaxObjects is the most objects (class objects included) a dump
	// may have: object numbers are 32-bit, kept within a 32-bit
	// platform's int.
	MaxObjects = 1<<31 - 1
	// MaxReferences bounds the references of a dump, as the first pass
	// counts them (null ones too: the bound the edge array is sized by):
	// their offsets are 32-bit, one value kept free.
	MaxReferences = 1<<32 - 2
)

// Sentinel errors.
var (
	// ErrNoDump means the input holds no heap dump with the asked index.
	ErrNoDump = errors.New("retained: no such heap dump")
	// ErrTooLarge means the dump has more objects (MaxObjects), references
	// (MaxReferences) or classes than the view's 32-bit numbers hold.
	ErrTooLarge = errors.New("retained: heap dump too large for the retained view")
	// ErrChanged means the second read of the input did not match the
	// first (the file changed between passes).
	ErrChanged = errors.New("retained: input changed between passes")
)

// Input describes one heap dump to analyse.
type Input struct {
	// File is the input the dump is read from (hprof.File.Heap), as
	// often as what the caller's own first pass noted leaves needed: not
	// at all with Segments, once with Noted, twice with neither.
	File *hprof.File
	// Segments, when set, are the heap records of the dump in memory (a
	// mapped plain file), and SegmentObjects and SegmentRefs what the
	// caller's own pass over them found: then the ID index and the graph
	// are built from the segments, several at a time, and File is not
	// read. No object ID is kept on the heap for it.
	Segments Segments
	// SegmentObjects describe the objects (instances, arrays, class
	// objects) of each segment.
	SegmentObjects []idnote.IDRange
	// SegmentIDs, when set (one per segment), are the object IDs of each
	// segment as the caller's pass noted them: then the ID index is built
	// from them, without reading the segments for it.
	SegmentIDs []idnote.SegmentIDs
	// SegmentRefs bound the references of each segment: instance payload
	// bytes / ID size + object array elements + static fields + 1 per
	// class (its loader).
	SegmentRefs []int64
	// Noted, when set (and Segments not), is what the caller's own pass
	// over a stream found: then File is read once, to fill the graph.
	// Compute takes its sets (and sets them to nil), so they are freed
	// as they are indexed.
	Noted *idnote.NotedIDs
	// Dump is the 1-based index of the heap dump to read, counted as the
	// converter counts them (a HEAP DUMP record, or HEAP DUMP SEGMENTs up
	// to HEAP DUMP END).
	Dump int
	// Layouts are the dump's class layouts (every CLASS DUMP), Names
	// names their fields, and ClassNames names each of their classes
	// (Java names: "java.util.HashMap$Node").
	Layouts    *lay.Table
	Names      lay.Names
	ClassNames map[uint64]string
	// Model sizes the objects (the heap view's size model).
	Model heapsize.Model
	// KeepIDs keeps the object ID index after the analysis, so Retained
	// can answer per-object queries (tests; costs 8 bytes per object).
	KeepIDs bool
	// GarbageHolds counts a reference from an unreachable object as a
	// reference from outside the heap, as the oracle (VisualVM) does: an
	// object that garbage also points to then has the virtual root as
	// immediate dominator. Off (the default), garbage holds nothing and
	// the dominator tree is that of the live graph.
	GarbageHolds bool
	// Paths finds, besides the dominator tree, a shortest strong path
	// from a GC root to each reachable object and the field each of its
	// steps takes (Result.PathsView, Result.Suspects). It keeps the
	// object IDs (KeepIDs) and reads the dump once more.
	Paths bool
	// Suspects keeps, besides Paths, what Result.Suspects needs: the
	// strong graph reversed (4 bytes per object and per reference) and
	// the input, to read once more while it is open.
	Suspects bool
	// SuspectsByClass is Suspects for a report by class
	// (SuspectQuery.Class), which needs the walk's order of the objects
	// as the paths view does; without either, it is not kept.
	SuspectsByClass bool
	// NoView skips the retained view's class paths and the retained
	// sizes by class (Result.Paths, ByClass stay empty): only the paths
	// view or the suspects are wanted.
	NoView bool
	// MaxDepth caps the class frames of a stack (0: DefaultMaxDepth).
	MaxDepth int
	// MemoryBudget bounds the graph's arrays in memory (anonymous
	// mappings, or the Go heap without mmap): when their estimated peak
	// (docs/retained.md, Memory) is larger, they are files
	// in a temporary directory mapped into memory (unix), which the
	// kernel pages out to disk as memory runs short. 0: three quarters of
	// the available memory (linux; elsewhere no limit). Negative: always
	// spill (tests).
	MemoryBudget int64
	// BudgetGiven says MemoryBudget is the user's own (--retained-memory):
	// the arrays used at random that stay in memory when the rest
	// spills keep to it too, where under a cgroup they may otherwise
	// take more (mem.Arena.SetHotRoom).
	BudgetGiven bool
	// SpillDir is where the temporary directory is made ("": the
	// system's, os.TempDir, which TMPDIR sets). A tmpfs directory spills
	// to memory: pick one on a disk.
	SpillDir string
	// Progress, when set, is called now and then with the input bytes
	// read by the current pass and the pass number (1 or 2).
	Progress func(pass int, done int64)
	// Phase, when set, is called as each phase starts ("indexing IDs",
	// "filling the graph", "dominators", …).
	Phase func(phase string)
}

// readable reports whether the dump can be had: from the noted segments
// or by reading File again.
func (in *Input) readable() bool {
	return in.File != nil && (in.Segments != nil || in.File.CanReread())
}

// Segments are heap dump records held in memory.
type Segments interface {
	// Len is the number of segments.
	Len() int
	// Body calls fn with segment i: its record and its body (the bytes
	// the input holds, fewer than the record's length when the input
	// ends inside it). body is valid only during fn. buf is a buffer the
	// caller keeps per goroutine, for when the body must be copied.
	Body(i int, buf *[]byte, fn func(rec hprof.Record, body []byte)) error
	// SegmentOffset is the input offset of segment i, for progress.
	SegmentOffset(i int) int64
}

// DefaultMaxDepth is the default cap on class frames per stack (after
// runs of one class are collapsed).
const DefaultMaxDepth = 64

// Stats are counts about the analysed dump.
type Stats struct {
	Objects     int   // objects in the dump, class objects included
	Duplicates  int   // object records repeating an ID (the last one wins)
	References  int64 // non-null references to known objects
	Dangling    int64 // references to IDs with no object in the dump
	Roots       int   // distinct root objects
	RootRecords int64 // ROOT sub-records
	Reachable   int   // objects reached from the roots
	Unreachable int   // objects not reached
	// UnreachableBytes is the shallow size of unreachable objects.
	UnreachableBytes int64
	// ReachableBytes is the shallow size of reachable objects: the sum of
	// the roots' retained sizes.
	ReachableBytes int64
	// ReferentsSkipped counts Reference.referent fields not followed.
	ReferentsSkipped int64
}

// Result is the dominator tree of one heap dump, reduced to what the
// view and the queries need.
type Result struct {
	Stats Stats
	// Paths are the nodes of the class-level dominator paths, parents
	// before children (index 0 is the virtual root). See Path.
	Paths []Path
	// ClassNames are the names Path.Class indexes.
	ClassNames []string
	// Roots are the roots Path.Class indexes at depth 1: a kind, with
	// the thread and frame of the kinds tied to a thread.
	Roots []Root
	// ByClass is the retained size of each class ID: the sum of the
	// retained sizes of its reachable objects that no other object of
	// the same class dominates (the oracle's "retained size by class").
	ByClass map[uint64]int64

	// Spill says whether and where the graph spilled to disk.
	Spill Spill

	holds    *holds   // nil unless Input.Paths
	ids      *idIndex // nil unless Input.KeepIDs
	retained []int64  // by dense object number, when KeepIDs
	idom     []uint32 // immediate dominator's dense number + 1 (0: the virtual root), when KeepIDs
	maxDepth int
}

// CanSpill reports whether this platform can spill the graph to disk
// (mapped files need unix).
const CanSpill = mem.CanSpill

// Spill describes the decision to keep the graph on the heap or to map
// it from files.
type Spill struct {
	GraphBytes int64  // estimated peak bytes of the graph's arrays
	Budget     int64  // the budget it was held against (0: none)
	Dir        string // the spill directory (removed by now); "" when not spilled
	Mapped     int64  // bytes mapped from files in all
	Peak       int64  // most bytes mapped at once
	// InMemory is the most bytes of arrays used at random (mem.AllocHot)
	// kept in anonymous memory at once while the rest spilled.
	InMemory int64
	// Err is why arrays went to the heap after all (making or mapping a
	// file failed), nil when none did.
	Err error
}

// String is a one-line note for the view's comments and `info`.
func (sp Spill) String() string {
	gb := func(n int64) string {
		if n >= 1e9 {
			return fmt.Sprintf("%.1f GB", float64(n)/1e9)
		}
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	}
	over := "spilling forced"
	if sp.Budget > 0 {
		over = "over the memory budget of " + gb(sp.Budget)
	}
	switch {
	case sp.Dir == "" && sp.Err != nil:
		return fmt.Sprintf("retained graph: %s (estimated), %s, but kept on the heap: %v", gb(sp.GraphBytes), over, sp.Err)
	case sp.Dir == "":
		return ""
	}
	t := fmt.Sprintf("retained graph: %s (estimated), %s: spilled to %s (%s mapped from files, at most %s at once",
		gb(sp.GraphBytes), over, sp.Dir, gb(sp.Mapped), gb(sp.Peak))
	if sp.InMemory > 0 {
		t += fmt.Sprintf("; arrays used at random in memory, at most %s at once", gb(sp.InMemory))
	}
	t += ")"
	if sp.Err != nil {
		t += fmt.Sprintf("; some arrays on the heap: %v", sp.Err)
	}
	return t
}

// Path is one node of the class-level dominator tree: objects whose
// dominator path, as a list of class names with runs of one class merged
// and capped at the depth limit, is the same share one Path.
type Path struct {
	Parent int32 // index in Result.Paths; -1 for the virtual root
	// Class indexes Result.Roots at depth 1 (a root kind frame) and
	// Result.ClassNames below.
	Class   int32
	Depth   int32
	Objects int64 // objects whose own stack ends here
	Bytes   int64 // their shallow bytes
	// MaxRun is the longest run of objects of this class merged into
	// this node along one dominator chain (1 when none were merged).
	MaxRun int64
	// Capped marks a node past the depth limit that also holds objects
	// dominated by its objects whose class is on its stack already.
	Capped bool
}

// Retained returns the retained size of the object with this ID and
// whether it is a reachable object of the dump. It needs Input.KeepIDs.
func (r *Result) Retained(id uint64) (int64, bool) {
	if r.ids == nil {
		return 0, false
	}
	i, ok := r.ids.lookup(id)
	if !ok || r.retained[i] < 0 {
		return 0, false
	}
	return r.retained[i], true
}

// Compute builds the object graph of the dump from what the caller
// noted and from in.File (see Input.File) and computes the dominator
// tree and the class-level paths.
func Compute(ctx context.Context, in Input) (*Result, error) {
	if !in.readable() {
		return nil, errors.New("retained: the input cannot be read again (standard input?)")
	}
	if in.MaxDepth <= 0 {
		in.MaxDepth = DefaultMaxDepth
	}
	rowsKeep := in.KeepIDs
	keepOrder := in.Paths || in.SuspectsByClass
	if in.SuspectsByClass {
		in.Suspects = true
	}
	if in.Suspects {
		in.Paths = true
	}
	if in.Paths {
		in.KeepIDs = true
	}
	s, err := newScanner(in)
	if err != nil {
		return nil, err
	}
	s.rowsKeep, s.keepOrder = rowsKeep, keepOrder
	defer s.closeArena()
	ok := false
	defer func() {
		if !ok && s.ha != nil {
			_ = s.ha.Close()
		}
	}()
	if in.Segments != nil {
		err = s.graphFromSegments(ctx)
	} else {
		err = s.graphFromNotes(ctx)
	}
	if err != nil {
		return nil, err
	}
	if err := s.finishGraph(); err != nil {
		return nil, err
	}
	if !in.KeepIDs {
		// The lookups are done: the index goes back to the system with
		// what the first pass left behind, as the analysis starts.
		s.freeIndex()
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res, err := s.analyse(ctx)
	if err != nil {
		return nil, err
	}
	if in.Paths {
		if err := s.keepHolds(ctx, res); err != nil {
			return nil, err
		}
	}
	if err := s.closeArena(); err != nil {
		return nil, err
	}
	res.Spill = s.spill
	ok = true
	return res, nil
}

// graphFromSegments builds the object graph from the in-memory segments
// of Input.Segments and what the caller noted of them.
func (s *scanner) graphFromSegments(ctx context.Context) error {
	in := s.in
	if in.Segments.Len() != len(in.SegmentObjects) || len(in.SegmentObjects) != len(in.SegmentRefs) {
		return errors.New("retained: segments, object counts and reference bounds differ in number")
	}
	s.idSize = in.File.IDSize()
	s.setLayouts()
	for _, r := range in.SegmentRefs {
		s.maxEdges += r
	}
	s.phase("indexing IDs")
	if err := s.indexSegments(ctx); err != nil {
		return err
	}
	s.phase("filling the graph")
	return s.segments(ctx)
}

// graphFromNotes builds the object graph from Input.Noted, or without
// notes from a first pass over the dump, and a second pass that fills it.
func (s *scanner) graphFromNotes(ctx context.Context) error {
	var ids idnote.IDNotes
	if noted := s.in.Noted; noted != nil {
		if len(noted.IDs.Ranges) != len(noted.IDs.Sets) {
			return errors.New("retained: noted ID ranges and sets differ in number")
		}
		s.idSize, s.maxEdges = s.in.File.IDSize(), noted.Refs
		s.setLayouts()
		ids, noted.IDs = noted.IDs, idnote.IDNotes{}
	} else {
		s.phase("reading IDs")
		if err := s.pass(ctx, 1); err != nil {
			return err
		}
		ids, s.ids = s.ids, idnote.IDNotes{}
	}
	s.phase("indexing IDs")
	// The notes are freed as they are indexed.
	if err := s.indexSets(ids.Ranges, ids.Sets, nil); err != nil {
		return err
	}
	s.phase("filling the graph")
	return s.pass(ctx, 2)
}

// phase reports a phase to Input.Phase.
func (s *scanner) phase(p string) {
	if s.in.Phase != nil {
		s.in.Phase(p)
	}
}

// chooseArena decides, once the object and reference counts are known,
// whether the graph's arrays come from memory or from mapped files.
func (s *scanner) chooseArena(n int) {
	s.arenaChosen = true
	budget := s.in.MemoryBudget
	if budget == 0 {
		budget = spillBudget()
	}
	// Under a cgroup limit memory cannot be paged out (no swap): keep
	// the graph's arrays in memory to a quarter of the limit, whatever the
	// caller's budget (the rest holds the converter's own heap, the
	// object IDs and the page cache the mapped files work through). Once
	// they spill, the arrays used at random stay in memory while they
	// fit (mem.Arena.SetHotRoom).
	cg := sysmem.CgroupLimit()
	if cg > 0 && budget >= 0 && (budget == 0 || budget > cg/4) {
		budget = cg / 4
	}
	s.spill.GraphBytes = graphBytes(n, s.maxEdges)
	s.spill.Budget = max(budget, 0)
	if budget == 0 || s.spill.GraphBytes <= budget {
		s.a = mem.NewMemArena()
		return
	}
	s.a = mem.NewArena(s.in.SpillDir)
	if s.a == nil {
		s.spill.Err = errors.New("this platform cannot map files")
		return
	}
	s.a.SetHotRoom(budget, cg, s.in.BudgetGiven)
	if cg > 0 {
		s.a.FlushAbove(sysmem.CgroupDirty(), cg/16)
	}
}

// closeArena unmaps the arena's arrays and removes its directory; the
// scanner's arrays must not be used afterwards.
func (s *scanner) closeArena() error {
	a := s.a
	if a == nil {
		return nil
	}
	s.a = nil
	if a.Anon() {
		return a.Close()
	}
	st := a.Stats()
	s.spill.Dir, s.spill.Mapped, s.spill.Peak = st.Dir, st.Mapped, st.Peak
	s.spill.InMemory = st.InMemory
	if s.spill.Err == nil {
		s.spill.Err = st.Err
	}
	return a.Close()
}

// rootKindName names a root kind as a Java user says it (rootNames).
func rootKindName(t hprof.SubTag) string {
	switch t {
	case classRootKind:
		return "class of a reachable object"
	case severalRootsKind:
		return "several roots"
	}
	if n, ok := rootNames[t]; ok {
		return n
	}
	return t.String()
}

// Root kinds that are no ROOT sub-record: a class object reached only as
// the class of a reachable object, and an object that is no root itself
// but that no single object dominates (paths from several roots reach
// it).
const (
	classRootKind    hprof.SubTag = 0x00
	severalRootsKind hprof.SubTag = 0xF0
)

func errf(sentinel error, format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{sentinel}, args...)...)
}
