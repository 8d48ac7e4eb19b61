package graph

import (
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/hprof2pprof/hprof2pprof/convert/javaname"
)

// View names. Every decoder that produces one of these uses the matching
// constructor below, so the same view has the same sample types whatever
// the input.
const (
	ViewCPU      = "cpu"      // CPU SAMPLES
	ViewCPUTime  = "cputime"  // text CPU TIME (cpu=times)
	ViewCPUOld   = "cpuold"   // text cpu=old caller/callee rows
	ViewAlloc    = "alloc"    // ALLOC SITES / SITES
	ViewHeap     = "heap"     // HEAP DUMP objects
	ViewThreads  = "threads"  // threads and their stacks
	ViewMonitor  = "monitor"  // text MONITOR TIME
	ViewRetained = "retained" // dominator tree
	ViewPaths    = "paths"    // shortest paths from GC roots
)

// DefaultCPUInterval is the hprof agent's default sampling interval; the
// file does not record the one used.
const DefaultCPUInterval = 10 * time.Millisecond

// NewCPUView: samples/count and cpu/nanoseconds (= count × interval).
func NewCPUView(interval time.Duration) *View {
	return &View{
		Name:              ViewCPU,
		SampleTypes:       []ValueType{{"samples", "count"}, {"cpu", "nanoseconds"}},
		DefaultSampleType: "cpu",
		PeriodType:        ValueType{"cpu", "nanoseconds"},
		Period:            int64(interval),
	}
}

// NewAllocView: allocation sites, cumulative and live.
func NewAllocView() *View {
	return &View{
		Name: ViewAlloc,
		SampleTypes: []ValueType{
			{"alloc_objects", "count"}, {"alloc_space", "bytes"},
			{"inuse_objects", "count"}, {"inuse_space", "bytes"},
		},
		DefaultSampleType: "alloc_space",
		PeriodType:        ValueType{"space", "bytes"},
	}
}

// NewHeapView: live objects in a heap dump.
func NewHeapView() *View {
	return &View{
		Name:              ViewHeap,
		SampleTypes:       []ValueType{{"inuse_objects", "count"}, {"inuse_space", "bytes"}},
		DefaultSampleType: "inuse_space",
		PeriodType:        ValueType{"space", "bytes"},
	}
}

// NewThreadsView: one sample per distinct thread stack, like Go's goroutine
// profile.
func NewThreadsView() *View {
	return &View{
		Name:        ViewThreads,
		SampleTypes: []ValueType{{"threads", "count"}},
		PeriodType:  ValueType{"threads", "count"},
		Period:      1,
	}
}

// Aggregator adds values into a view, merging samples with the same
// stack and labels. Labels are compared after sorting by key.
type Aggregator struct {
	v   *View
	idx map[string]int
	key []byte
}

// NewAggregator aggregates into v (which may already hold samples).
func NewAggregator(v *View) *Aggregator {
	a := &Aggregator{v: v, idx: map[string]int{}}
	for i, s := range v.Samples {
		a.idx[a.keyOf(s.Stack, s.Labels)] = i
	}
	return a
}

func (a *Aggregator) keyOf(stack StackID, labels []Label) string {
	k := a.key[:0]
	k = strconv.AppendUint(k, uint64(stack), 10)
	for _, l := range labels {
		k = append(k, 0)
		k = append(k, l.Key...)
		k = append(k, 1)
		k = append(k, l.Str...)
		k = append(k, 1)
		k = strconv.AppendInt(k, l.Num, 10)
		k = append(k, 1)
		k = append(k, l.Unit...)
	}
	a.key = k
	return string(k)
}

// Add adds values (one per sample type) to the sample with this stack and
// these labels, creating it if needed. labels is copied and sorted.
func (a *Aggregator) Add(stack StackID, labels []Label, values ...int64) {
	if len(labels) > 1 {
		labels = append([]Label(nil), labels...)
		sort.SliceStable(labels, func(i, j int) bool { return labels[i].Key < labels[j].Key })
	}
	k := a.keyOf(stack, labels)
	if i, ok := a.idx[k]; ok {
		s := a.v.Samples[i].Values
		for j, x := range values {
			s[j] += x
		}
		return
	}
	vals := make([]int64, len(a.v.SampleTypes))
	copy(vals, values)
	a.idx[k] = len(a.v.Samples)
	a.v.Samples = append(a.v.Samples, Sample{Stack: stack, Values: vals, Labels: append([]Label(nil), labels...)})
}

// ClassStack returns the stack for a live class in a heap view with no
// allocation trace: the class as leaf under its package path
// (java → java.util → java.util.HashMap$Node), so a flame graph is a
// heap treemap by package. Array classes sit under the package of their
// element type; primitive arrays directly at the top.
func (g *Graph) ClassStack(class string) StackID {
	leaf := g.Frame(Frame{Kind: KindClass, Class: class})
	// A hidden class's address suffix (".0x…") is not a package.
	elem := strings.TrimRight(javaname.Normalize(class), "[]")
	pkgs := strings.Split(elem, ".")
	pkgs = pkgs[:len(pkgs)-1]
	if len(pkgs) > maxPackageDepth {
		// Each level's frame names the whole prefix, so a class name of
		// n dots would cost n² bytes; no real package is this deep.
		pkgs = pkgs[:maxPackageDepth]
	}
	stack := make([]FrameID, 0, len(pkgs)+1)
	stack = append(stack, leaf)
	for i := len(pkgs); i > 0; i-- {
		stack = append(stack, g.Frame(Frame{Kind: KindPackage, Class: strings.Join(pkgs[:i], ".")}))
	}
	return g.Stack(stack)
}

// maxPackageDepth bounds the package frames of a class stack.
const maxPackageDepth = 32

// WithLeaf returns the stack with a class frame pushed as the new leaf:
// an allocation site's trace plus the allocated class.
//
// Every distinct (trace, class) pair stores a copy of the trace, so a
// small file naming one deep trace from many sites could make the stack
// table huge. Once the table holds StackBudget frames, new stacks keep
// only their TruncatedDepth frames nearest the leaf under a
// "(truncated)" root frame, counted as a soft failure.
func (g *Graph) WithLeaf(stack StackID, class string) StackID {
	leaf := g.Frame(Frame{Kind: KindClass, Class: class})
	base := g.Stacks[stack]
	frames := make([]FrameID, 0, min(len(base), TruncatedDepth+1)+1)
	frames = append(frames, leaf)
	if g.StackBudget > 0 && len(base) > TruncatedDepth && g.stackFrames+int64(len(base)) > g.StackBudget {
		frames = append(frames, base[:TruncatedDepth]...)
		frames = append(frames, g.Frame(Frame{Kind: KindRoot, Class: "(truncated)"}))
		if id, ok := g.lookup(frames); ok {
			return id
		}
		g.SoftFail(SoftStackTruncated)
		return g.Stack(frames)
	}
	frames = append(frames, base...)
	return g.Stack(frames)
}

// TruncatedDepth is how many frames a stack keeps when the stack table
// is over its budget (see WithLeaf).
const TruncatedDepth = 64

// StackBudgetFor is the default stack budget for an input of n bytes:
// far more than real files need (their stacks hold fewer frames than
// 1/50 of their bytes), small enough that a hostile 1 MB file cannot
// make the stack table exceed a few tens of megabytes.
func StackBudgetFor(n int64) int64 { return 1<<20 + n }
