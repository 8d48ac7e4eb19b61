// Package frames names frames and stacks: it turns the STACK TRACE
// serials of a binary HPROF input into graph stacks of Java-named frames
// (class, method, descriptor, file, line), retraced through an
// R8/ProGuard mapping when one is given. This is the one place a frame
// gets its name. A Namer serves one input; Namer.Stacks builds the
// stacks of one graph (a file's, or one live window's).
//
// Deobfuscation (Options.Mapping): class names are mapped when LOAD
// CLASS names them (ClassName, the symbol tables' NameClass hook), so
// every view sees the original names; stack frames are retraced when a
// trace becomes a stack, which may turn one frame into several where R8
// inlined methods.
package frames

import (
	"fmt"
	"strconv"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/hprof"
	"github.com/hprof2pprof/hprof2pprof/convert/mapping"
)

// Namer names the classes and frames of one input from its symbol
// tables; Stacks builds them into one graph.
type Namer struct {
	sym      *hprof.Symbols
	m        *mapping.Map      // nil: names as the file gives them
	obfClass map[uint64]string // class object ID → obfuscated name (with a mapping)
	longest  map[uint32]uint32 // thread serial → its longest STACK TRACE serial
}

// Stacks builds the stacks of one graph (every view of it shares them),
// cached per trace serial: a trace is named, and what is wrong with it
// counted, once per graph.
type Stacks struct {
	*Namer
	g     *graph.Graph
	cache map[uint32]graph.StackID
	// pending, when not nil, counts references to traces not sent yet
	// instead of reporting them as soft failures (see Pending).
	pending *int64
}

// Pending switches how references to missing STACK TRACEs are taken: on,
// they are counted as traces still to come (a live stream's threads name
// traces the agent sends at its next dump) rather than reported as soft
// failures; off, it returns how many were counted while on.
func (n *Stacks) Pending(on bool) int64 {
	var count int64
	if n.pending != nil {
		count = *n.pending
	}
	n.pending = nil
	if on {
		n.pending = new(int64)
	}
	return count
}

// NewNamer names the classes and frames of sym, deobfuscated with m
// when it is not nil.
func NewNamer(sym *hprof.Symbols, m *mapping.Map) *Namer {
	return &Namer{sym: sym, m: m}
}

// Stacks starts the stacks of graph g (a live stream builds one graph
// per window, each with its own Stacks).
func (n *Namer) Stacks(g *graph.Graph) *Stacks {
	return &Stacks{Namer: n, g: g, cache: map[uint32]graph.StackID{}}
}

// Renamed is how many class names the mapping changed.
func (n *Namer) Renamed() int { return len(n.obfClass) }

// Frame resolves a STACK FRAME ID into a graph frame.
func (n *Stacks) Frame(id uint64) (graph.FrameID, bool) {
	f, ok := n.sym.Frames[id]
	if !ok {
		n.g.SoftFail(graph.SoftTraceMissingFrame)
		return n.g.Frame(graph.Frame{Kind: graph.KindMethod, Class: "unknown", Method: fmt.Sprintf("frame-0x%x", id)}), false
	}
	class := "unknown"
	if obj, ok := n.sym.ClassSerial[f.ClassSerial]; ok {
		class = n.sym.ClassName[obj]
	} else {
		n.g.SoftFail(graph.SoftFrameMissingClass)
	}
	method, ok := n.sym.Strings[f.MethodID]
	if !ok {
		n.g.SoftFail(graph.SoftFrameMissingString)
	}
	file := ""
	if f.SourceID != 0 {
		file = n.sym.Strings[f.SourceID]
	}
	return n.g.Frame(graph.Frame{
		Kind:      graph.KindMethod,
		Class:     class,
		Method:    method,
		Signature: n.sym.Strings[f.SignatureID],
		File:      file,
		Line:      f.Line,
	}), true
}

// NoTrace is the stack serial Dalvik writes on thread roots it has no
// trace for (LeakCanary's test dumps); like serial 0 it means "no trace",
// not a reference to a missing STACK TRACE.
const NoTrace = 0xFFFFFFFF

// Stack returns the graph stack of a STACK TRACE serial (0 when the
// serial is unknown or the trace is empty, or is 0 or NoTrace).
func (n *Stacks) Stack(serial uint32) graph.StackID {
	if id, ok := n.cache[serial]; ok {
		return id
	}
	t, ok := n.sym.Traces[serial]
	if !ok {
		switch {
		case serial == 0, serial == NoTrace:
		case n.pending != nil:
			*n.pending++
		default:
			n.g.SoftFailDetail(graph.SoftMissingTrace, strconv.FormatUint(uint64(serial), 10))
		}
		n.cache[serial] = 0
		return 0
	}
	ids := make([]graph.FrameID, 0, len(t.Frames))
	for _, f := range t.Frames {
		if n.m != nil {
			ids = n.retrace(ids, f)
			continue
		}
		id, _ := n.Frame(f)
		ids = append(ids, id)
	}
	s := n.g.Stack(ids)
	n.cache[serial] = s
	return s
}

// Deobfuscation with an R8/ProGuard mapping (Options.Mapping): class
// names are mapped when LOAD CLASS names them, so every view sees the
// original names; stack frames are retraced when a trace becomes a
// stack, which may turn one frame into several where R8 inlined methods.

// ClassName returns the original name of a class (Java form) and
// remembers the obfuscated one for retracing its methods.
func (n *Namer) ClassName(id uint64, name string) string {
	m := n.m
	if m == nil {
		return name
	}
	orig := m.Class(name)
	if orig != name {
		if n.obfClass == nil {
			n.obfClass = map[uint64]string{}
		}
		n.obfClass[id] = name
	}
	return orig
}

// retrace appends the graph frames of STACK FRAME id to ids, retraced
// through the mapping: innermost first, as the trace lists them.
func (n *Stacks) retrace(ids []graph.FrameID, id uint64) []graph.FrameID {
	f, ok := n.sym.Frames[id]
	obj, known := n.sym.ClassSerial[f.ClassSerial]
	if !ok || !known {
		fid, _ := n.Frame(id)
		return append(ids, fid)
	}
	obf, renamed := n.obfClass[obj]
	if !renamed {
		obf = n.sym.ClassName[obj] // kept its name; its methods may not have
	}
	frames, ok := n.m.Frames(obf, n.sym.Strings[f.MethodID], int(f.Line))
	if !ok {
		fid, _ := n.Frame(id)
		return append(ids, fid)
	}
	for i, mf := range frames {
		gf := graph.Frame{Kind: graph.KindMethod, Class: mf.Class, Method: mf.Method, File: mf.File, Line: int32(mf.Line)}
		if gf.File == "" && f.SourceID != 0 {
			gf.File = n.sym.Strings[f.SourceID]
		}
		if i == 0 && len(frames) == 1 {
			gf.Signature = n.m.Descriptor(n.sym.Strings[f.SignatureID])
		}
		ids = append(ids, n.g.Frame(gf))
	}
	return ids
}

// longestTrace is the serial of the longest non-empty STACK TRACE naming
// the thread serial (the lowest serial among equals). The index is built
// on first use, after every record is read, so that a file with many
// threads and many traces costs one pass over each.
func (n *Namer) longestTrace(thread uint32) (uint32, bool) {
	if n.longest == nil {
		n.longest = map[uint32]uint32{}
		for s, t := range n.sym.Traces {
			if len(t.Frames) == 0 {
				continue
			}
			best, ok := n.longest[t.ThreadSerial]
			if !ok {
				n.longest[t.ThreadSerial] = s
				continue
			}
			if fl, bl := len(t.Frames), len(n.sym.Traces[best].Frames); fl > bl || fl == bl && s < best {
				n.longest[t.ThreadSerial] = s
			}
		}
	}
	s, ok := n.longest[thread]
	return s, ok
}

// StackOfThread is the stack of the longest STACK TRACE naming the
// thread serial, 0 when none.
func (n *Stacks) StackOfThread(serial uint32) graph.StackID {
	if serial == 0 {
		return 0
	}
	if best, ok := n.longestTrace(serial); ok {
		return n.Stack(best)
	}
	return 0
}
