package retained

import (
	"cmp"
	"slices"

	"github.com/hprof2pprof/hprof2pprof/convert/hprof"
)

// Root is what a GC root record says of its object: its kind and, for
// the kinds tied to a thread, the thread's serial and the frame (or
// monitor depth). Roots that are no ROOT sub-record have kinds of their
// own: ClassRootKind, SeveralRootsKind (Via is then the kind of the
// first root the object was found from, with its thread and frame).
type Root struct {
	Kind   hprof.SubTag
	Via    hprof.SubTag // SeveralRootsKind only
	Thread uint32       // thread serial (0: none)
	Frame  uint32       // frame number (JAVA FRAME, JNI LOCAL), depth (JNI MONITOR)
	Framed bool         // Frame is set
	// Class names the class of a class object that several roots reach
	// (SeveralRootsKind): it is named by its class, whose statics are what
	// it holds, rather than by the first root.
	Class string
}

// Exported kinds that are no ROOT sub-record.
const (
	// ClassRootKind is a class object nothing references, live because
	// an object of its class is.
	ClassRootKind = classRootKind
	// SeveralRootsKind is an object no single object dominates: paths
	// from several roots reach it.
	SeveralRootsKind = severalRootsKind
)

// rootOf is the Root a ROOT sub-record says.
func rootOf(sub *hprof.SubRecord) Root {
	r := Root{Kind: sub.Tag}
	switch sub.Tag {
	case hprof.RootJavaFrame, hprof.RootJNILocal, hprof.RootJNIMonitor:
		r.Thread, r.Frame, r.Framed = sub.ThreadSerial, sub.Frame, true
	case hprof.RootNativeStack, hprof.RootThreadBlock, hprof.RootThreadObject:
		r.Thread = sub.ThreadSerial
	}
	return r
}

// Name is the root kind's name ("JNI global", "several roots").
func (r Root) Name() string { return rootKindName(r.Kind) }

// rootNames are the names of the ROOT sub-record kinds, as a Java user
// says them.
var rootNames = map[hprof.SubTag]string{
	hprof.RootUnknown:          "unknown root",
	hprof.RootJNIGlobal:        "JNI global",
	hprof.RootJNILocal:         "JNI local",
	hprof.RootJavaFrame:        "Java frame",
	hprof.RootNativeStack:      "native stack",
	hprof.RootStickyClass:      "sticky class",
	hprof.RootThreadBlock:      "thread block",
	hprof.RootMonitorUsed:      "monitor",
	hprof.RootThreadObject:     "thread object",
	hprof.RootInternedString:   "interned string",
	hprof.RootFinalizing:       "finalizing",
	hprof.RootDebugger:         "debugger",
	hprof.RootReferenceCleanup: "reference cleanup",
	hprof.RootVMInternal:       "VM internal",
	hprof.RootJNIMonitor:       "JNI monitor",
}

// rootRank orders root kinds from the most telling to the least: a
// thread's frame says the most of why an object is live, a sticky class
// the least. Paths start from roots in this order, so that of two
// equally short ones the more telling is kept, and an object several
// roots reach is named by the most telling of them.
func rootRank(k hprof.SubTag) int {
	switch k {
	case hprof.RootJavaFrame:
		return 0
	case hprof.RootJNILocal:
		return 1
	case hprof.RootNativeStack, hprof.RootThreadBlock, hprof.RootJNIMonitor:
		return 2
	case hprof.RootThreadObject:
		return 3
	case hprof.RootJNIGlobal:
		return 4
	case hprof.RootMonitorUsed:
		return 5
	case hprof.RootStickyClass, classRootKind:
		return 9
	}
	return 6
}

// sortRoots orders root objects by the rank of their first record's
// kind, keeping the dump's order within a kind.
func sortRoots(roots []uint32, kind map[uint32]Root) {
	slices.SortStableFunc(roots, func(a, b uint32) int {
		return cmp.Compare(rootRank(kind[a].Kind), rootRank(kind[b].Kind))
	})
}

// severalOf is the root of an object several roots reach, named by
// first, the root it was first found from.
func severalOf(first Root) Root {
	if first.Kind == severalRootsKind {
		return first
	}
	first.Via, first.Kind = first.Kind, severalRootsKind
	return first
}
