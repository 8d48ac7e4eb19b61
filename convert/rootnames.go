package convert

import (
	"fmt"
	"strconv"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/hprof"
	"github.com/hprof2pprof/hprof2pprof/convert/internal/frames"
	"github.com/hprof2pprof/hprof2pprof/convert/retained"
)

// Where a GC root is named: the retained and paths views start their
// stacks at a root's frames, and `suspects` prints them.

// rootNamer names the roots of dump d: a thread by its name, a Java frame
// or JNI local root by the thread and the method frame of the thread's
// stack it lies in.
type rootNamer struct {
	d      *binData
	st     *frames.Stacks
	stacks map[uint32]graph.StackID // thread serial → its stack at dump time
}

func newRootNamer(d *binData, st *frames.Stacks) *rootNamer {
	n := &rootNamer{d: d, st: st, stacks: map[uint32]graph.StackID{}}
	if d.dump != nil {
		for _, t := range d.dump.ThreadRoots {
			if _, ok := n.stacks[t.ThreadSerial]; ok {
				continue
			}
			s := st.Stack(t.TraceSerial)
			if s == 0 {
				s = st.StackOfThread(t.ThreadSerial)
			}
			n.stacks[t.ThreadSerial] = s
		}
	}
	return n
}

// thread is the root frame naming thread serial (`thread "main"`).
func (n *rootNamer) thread(serial uint32) graph.Frame {
	name := threadName(n.d, serial)
	if name == "" {
		name = fmt.Sprintf("thread-serial-%d", serial)
	}
	return graph.Frame{Kind: graph.KindRoot, Class: "thread " + strconv.Quote(name)}
}

// frame is frame number k of thread serial's stack (0: the innermost),
// or a root frame saying its number when the stack has no such frame.
func (n *rootNamer) frame(g *graph.Graph, serial, k uint32) graph.FrameID {
	st, ok := n.stacks[serial]
	if !ok { // a thread with no thread object root: its own STACK TRACE
		st = n.st.StackOfThread(serial)
		n.stacks[serial] = st
	}
	if st != 0 && int(k) < len(g.Stacks[st]) {
		return g.Stacks[st][k]
	}
	return g.Frame(graph.Frame{Kind: graph.KindRoot, Class: fmt.Sprintf("frame %d", k)})
}

// noFrame is the frame number of a root whose frame is not known (-1).
const noFrame = 1<<32 - 1

// Frames is the retained.RootFrames of the dump's roots.
func (n *rootNamer) Frames(g *graph.Graph, r retained.Root) []graph.FrameID {
	if r.Kind == retained.SeveralRootsKind && r.Class != "" {
		return []graph.FrameID{g.Frame(graph.Frame{Kind: graph.KindRoot, Class: "class " + r.Class})}
	}
	if r.Kind == retained.SeveralRootsKind {
		first := r
		first.Kind = r.Via
		fs := n.Frames(g, first)
		head := g.Frames[fs[0]]
		head.Class = "several roots, first " + head.Function()
		if len(fs) == 1 && r.Thread == 0 {
			head.Class = "several roots, first " + retained.Root{Kind: r.Via}.Name()
		}
		return append([]graph.FrameID{g.Frame(head)}, fs[1:]...)
	}
	if r.Thread == 0 {
		return retained.KindFrame(g, r)
	}
	th := g.Frame(n.thread(r.Thread))
	switch r.Kind {
	case hprof.RootJavaFrame, hprof.RootJNILocal:
		if r.Frame == noFrame {
			// The writer knew the thread but not the frame.
			return []graph.FrameID{th, g.Frame(graph.Frame{Kind: graph.KindRoot, Class: r.Name() + " (frame unknown)"})}
		}
		return []graph.FrameID{th, n.frame(g, r.Thread, r.Frame)}
	case hprof.RootThreadObject:
		return []graph.FrameID{th}
	}
	return []graph.FrameID{th, g.Frame(graph.Frame{Kind: graph.KindRoot, Class: r.Name()})}
}

// Label is a root's frames as one line ("thread \"main\" at
// corpus.Oom.main (Oom.java:33)").
func (n *rootNamer) Label(g *graph.Graph, r retained.Root, norm func(string) string) string {
	fs := n.Frames(g, r)
	s := ""
	for i, id := range fs {
		f := g.Frames[id]
		if f.Kind == graph.KindMethod {
			f.Class = norm(f.Class)
		}
		switch {
		case i > 0 && f.Kind == graph.KindRoot:
			s += ", "
		case i > 0:
			s += " at "
		}
		s += f.Function()
		if f.Kind == graph.KindMethod && f.File != "" {
			if f.Line > 0 {
				s += fmt.Sprintf(" (%s:%d)", f.File, f.Line)
			} else {
				s += " (" + f.File + ")"
			}
		}
	}
	return s
}
