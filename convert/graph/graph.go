// Package graph is the intermediate model every decoder fills and every
// emitter reads: Java frames, stacks, threads and per-view samples.
//
// Data flows one way: bytes → records (convert/hprof, convert/text) →
// Graph (this package) → emitters (pprofout, otlp, parquet). Nothing here
// knows any output format.
//
// Tables use dense IDs. Index 0 of Frames and Stacks is reserved and empty,
// so a zero ID means "none" everywhere.
package graph

import (
	"strconv"
	"strings"
	"time"
)

// FrameID indexes Graph.Frames; 0 is "no frame".
type FrameID uint32

// StackID indexes Graph.Stacks; 0 is the empty stack.
type StackID uint32

// Line numbers as the HPROF format defines them for STACK FRAME records.
const (
	LineNone     int32 = 0  // no line information
	LineUnknown  int32 = -1 // unknown location
	LineCompiled int32 = -2 // compiled method
	LineNative   int32 = -3 // native method
)

// FrameKind says what a frame stands for.
type FrameKind uint8

const (
	// KindMethod is a Java method frame from a stack trace.
	KindMethod FrameKind = iota
	// KindClass is a synthetic leaf naming an allocated or live class
	// (`java.util.HashMap$Node`, `int[]`).
	KindClass
	// KindPackage is a synthetic frame naming a package prefix (`java.util`)
	// in the package-path stacks of heap views.
	KindPackage
	// KindRoot is a synthetic frame naming a GC root kind or another
	// grouping that is not code (retained view).
	KindRoot
	// KindField is a reference taken on a path from a GC root (paths
	// view): Class is the class that declares the field, Method the
	// field's name, or "[*]" for an element of the array class Class.
	KindField
)

func (k FrameKind) String() string {
	switch k {
	case KindMethod:
		return "method"
	case KindClass:
		return "class"
	case KindPackage:
		return "package"
	case KindRoot:
		return "root"
	case KindField:
		return "field"
	}
	return "unknown"
}

// Frame is one location in a Java stack. Names are Java source names:
// Class "java.util.HashMap$Node", "int[]"; Method "resize", "<init>".
type Frame struct {
	Kind      FrameKind
	Class     string // Java class name; for KindPackage the package; for KindRoot the label
	Method    string // method name; empty for synthetic frames
	Signature string // JVM method descriptor "(I)V"; empty when unknown
	File      string // source file "HashMap.java"; empty when unknown
	Line      int32  // >0 line, or one of the Line* constants
	// RawClass is the class name as the input wrote it when Class is
	// its run-independent form (NormalizeClasses); empty otherwise.
	RawClass string
}

// Function is the name a profile viewer shows for the frame:
// "java.util.HashMap.resize" for methods, the class or package name for
// synthetic frames.
func (f Frame) Function() string {
	switch {
	case f.Kind == KindField && f.Method == ElementField:
		return f.Class + " " + f.Method
	case (f.Kind != KindMethod && f.Kind != KindField) || f.Method == "":
		return f.Class
	}
	return f.Class + "." + f.Method
}

// ElementField is the KindField method of an array element.
const ElementField = "[*]"

// SystemName is the function's JVM-level name: the class and method with
// the descriptor, "java.util.HashMap.resize()[Ljava/util/HashMap$Node;".
// A normalised class keeps its exact name here
// ("Foo$$Lambda$42.0x00000007c00c1670.run()V").
func (f Frame) SystemName() string {
	class := f.Class
	if f.RawClass != "" {
		class = f.RawClass
	}
	switch {
	case f.Kind == KindField:
		f.Class = class
		return f.Function()
	case f.Kind != KindMethod || f.Method == "":
		return class
	}
	return class + "." + f.Method + f.Signature
}

// Stack is a list of frames, leaf (callee) first.
type Stack []FrameID

// Label is one key/value pair on a sample. Str is set for string labels;
// otherwise Num (with an optional Unit) is the value.
type Label struct {
	Key  string
	Str  string
	Num  int64
	Unit string
}

// Standard label keys.
const (
	LabelThread  = "thread" // thread name
	LabelState   = "state"  // thread state, "blocked" for RUNNABLE-but-blocked natives
	LabelClass   = "class"  // allocated / live class
	LabelHeap    = "heap"   // Android heap name (app, zygote, image)
	LabelMonitor = "monitor"
)

// ValueType names one sample value: type "inuse_space", unit "bytes".
type ValueType struct {
	Type string
	Unit string
}

// Sample is one row of a view: a stack, one value per View.SampleTypes,
// labels. Samples in a view are aggregated: two samples never share both
// stack and labels.
type Sample struct {
	Stack  StackID
	Values []int64
	Labels []Label
}

// View is one profile: CPU samples, allocation sites, live heap, threads…
type View struct {
	Name        string      // "cpu", "alloc", "heap", "threads", …
	SampleTypes []ValueType // one value per sample per type
	// DefaultSampleType is the type a viewer shows first ("" = last).
	DefaultSampleType string
	PeriodType        ValueType // e.g. cpu/nanoseconds
	Period            int64
	// Time is when the data starts (the file header time for HPROF);
	// Duration how long it covers, zero when unknown.
	Time     time.Time
	Duration time.Duration
	Comments []string // facts a reader should see: file totals, notes
	Samples  []Sample
}

// Totals sums each value column over all samples.
func (v *View) Totals() []int64 {
	t := make([]int64, len(v.SampleTypes))
	for _, s := range v.Samples {
		for i, x := range s.Values {
			if i < len(t) {
				t[i] += x
			}
		}
	}
	return t
}

// Index returns the column of the sample type named typ, or -1.
func (v *View) Index(typ string) int {
	for i, st := range v.SampleTypes {
		if st.Type == typ {
			return i
		}
	}
	return -1
}

// Thread is a Java thread known from the input.
type Thread struct {
	Serial   uint32 // HPROF thread serial number; 0 when unknown
	ObjectID uint64 // thread object ID; 0 when unknown
	Name     string
	Group    string
	Class    string  // class of the thread object, when known
	State    string  // state when known ("runnable", "waiting", …)
	Stack    StackID // the thread's stack at dump time; 0 when none
}

// Source describes the input a graph came from.
type Source struct {
	Path    string    // as given by the user ("-" for stdin)
	Format  string    // "hprof-binary", "hprof-text", "hprof-cpu-old"
	Version string    // "JAVA PROFILE 1.0.2"
	IDSize  int       // identifier size in bytes (binary only)
	Time    time.Time // header time
	Writer  string    // best guess at the writer ("HotSpot heap dumper", "hprof agent", "Android ART")
	Bytes   int64     // bytes read (uncompressed)
	// Compression of the input file: "", "gzip", "bzip2".
	Compression string
	// Records counts top-level records (and heap sub-records, and text
	// sections) by name.
	Records map[string]int64
	// Dumps is the number of complete dumps found (heap dumps, or text
	// report dumps); Dump the one the heap/alloc views were taken from
	// (1-based; 0 none).
	Dumps int
	Dump  int
	// Notes are facts about the writer and its quirks, for `info`.
	Notes []string
}

// Graph is everything decoded from one input.
type Graph struct {
	Source  Source
	Frames  []Frame // Frames[0] is reserved
	Stacks  []Stack // Stacks[0] is the empty stack
	Threads []Thread
	Views   []*View
	// Suspects is the leak suspects report asked for (convert.Options.Suspects).
	Suspects *SuspectReport
	// RetainedByClass, sorted by class, is set when the retained view
	// was computed (nil otherwise): per-class totals for emitters that
	// tabulate classes.
	RetainedByClass []ClassRetained

	// Soft counts inconsistencies that did not stop decoding, by kind
	// (SoftTraceMissingFrame, SoftSiteMissingClass, …) and detail.
	Soft SoftCounts

	// Damage, when not nil, is why decoding stopped early: everything
	// before it is in the graph, and Lost says what was not read.
	Damage error
	Lost   string

	// StackBudget bounds the frames all stacks hold together (0: no
	// bound); see WithLeaf. Decoders set it from the input size.
	StackBudget int64

	frameIdx    map[Frame]FrameID
	stackIdx    map[string]StackID
	stackFrames int64 // frames held by all stacks
}

// New returns an empty graph with the reserved zero entries in place.
func New() *Graph {
	return &Graph{
		Frames:   []Frame{{}},
		Stacks:   []Stack{nil},
		Soft:     SoftCounts{},
		frameIdx: map[Frame]FrameID{},
		stackIdx: map[string]StackID{},
	}
}

// Frame interns f and returns its ID.
func (g *Graph) Frame(f Frame) FrameID {
	if id, ok := g.frameIdx[f]; ok {
		return id
	}
	id := FrameID(len(g.Frames))
	g.Frames = append(g.Frames, f)
	g.frameIdx[f] = id
	return id
}

// Stack interns a stack (leaf first) and returns its ID. The slice is
// copied.
func (g *Graph) Stack(frames []FrameID) StackID {
	if len(frames) == 0 {
		return 0
	}
	key := stackKey(frames)
	if id, ok := g.stackIdx[key]; ok {
		return id
	}
	id := StackID(len(g.Stacks))
	g.Stacks = append(g.Stacks, append(Stack(nil), frames...))
	g.stackIdx[key] = id
	g.stackFrames += int64(len(frames))
	return id
}

// lookup finds an interned stack without adding it.
func (g *Graph) lookup(frames []FrameID) (StackID, bool) {
	id, ok := g.stackIdx[stackKey(frames)]
	return id, ok
}

func stackKey(frames []FrameID) string {
	var b strings.Builder
	b.Grow(len(frames) * 4)
	for _, f := range frames {
		b.WriteByte(byte(f))
		b.WriteByte(byte(f >> 8))
		b.WriteByte(byte(f >> 16))
		b.WriteByte(byte(f >> 24))
	}
	return b.String()
}

// View returns the view named name, or nil.
func (g *Graph) View(name string) *View {
	for _, v := range g.Views {
		if v.Name == name {
			return v
		}
	}
	return nil
}

// AddView appends v, replacing a view of the same name.
func (g *Graph) AddView(v *View) {
	for i, old := range g.Views {
		if old.Name == v.Name {
			g.Views[i] = v
			return
		}
	}
	g.Views = append(g.Views, v)
}

// SoftFail counts one soft failure of the given kind (one that takes
// no detail).
func (g *Graph) SoftFail(kind SoftKind) { g.Soft.Add(kind, "", 1) }

// SoftFailDetail counts one soft failure of a kind that takes a detail.
func (g *Graph) SoftFailDetail(kind SoftKind, detail string) { g.Soft.Add(kind, detail, 1) }

// SoftTotal is the number of soft failures of every kind.
func (g *Graph) SoftTotal() int64 { return g.Soft.Total() }

// ThreadRoot returns st with a synthetic root frame naming its thread
// (`thread "main"`) added at the root end, so that a flame graph shows
// each thread by name, even one with no Java frames.
func (g *Graph) ThreadRoot(st StackID, thread string) StackID {
	root := g.Frame(Frame{Kind: KindRoot, Class: "thread " + strconv.Quote(thread)})
	frames := make([]FrameID, 0, len(g.Stacks[st])+1)
	frames = append(append(frames, g.Stacks[st]...), root)
	return g.Stack(frames)
}
