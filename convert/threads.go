package convert

import (
	"fmt"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/internal/frames"
)

// The threads view: one sample per thread with its stack at dump time
// (from the heap dump's thread roots or the agent's START THREAD records),
// rooted at a frame naming the thread.

// threadName is the name of a thread serial from START THREAD records,
// or the name found in the heap dump's thread objects.
func threadName(d *binData, serial uint32) string {
	if serial == 0 {
		return ""
	}
	if t, ok := d.sym.Threads[serial]; ok {
		return d.sym.Strings[t.NameID]
	}
	if d.dump == nil {
		return ""
	}
	return d.dump.RootName(serial)
}

// buildThreads adds the threads view, and the threads, to g.
func buildThreads(g *graph.Graph, st *frames.Stacks, d *binData) {
	v := graph.NewThreadsView()
	v.Time = g.Source.Time
	if h := d.dump; h != nil && len(h.ThreadRoots) > 0 {
		for _, t := range h.ThreadRoots {
			stack := st.Stack(t.TraceSerial)
			if stack == 0 {
				// jhsdb points every thread root at the empty dummy
				// trace; the thread's own STACK TRACE names its serial.
				stack = st.StackOfThread(t.ThreadSerial)
			}
			th := graph.Thread{Serial: t.ThreadSerial, ObjectID: t.ObjectID, Name: t.Name, Class: t.Class, Stack: stack}
			if start, ok := d.sym.Threads[t.ThreadSerial]; ok {
				// The agent names its threads in START THREAD records;
				// its heap dumps carry no field values to read names from.
				if th.Name == "" {
					th.Name = d.sym.Strings[start.NameID]
				}
				th.Group = d.sym.Strings[start.GroupID]
			}
			g.Threads = append(g.Threads, th)
		}
	} else {
		for serial, t := range d.sym.Threads {
			if d.sym.Ended[serial] {
				continue
			}
			th := graph.Thread{Serial: serial, ObjectID: t.ObjectID, Name: d.sym.Strings[t.NameID], Group: d.sym.Strings[t.GroupID],
				Stack: st.Stack(t.TraceSerial)}
			if th.Stack == 0 {
				th.Stack = st.StackOfThread(serial)
			}
			g.Threads = append(g.Threads, th)
		}
	}
	if len(g.Threads) == 0 {
		return
	}
	graph.SortThreads(g.Threads)
	agg := graph.NewAggregator(v)
	for _, th := range g.Threads {
		name := th.Name
		if name == "" {
			name = fmt.Sprintf("thread-serial-%d", th.Serial)
		}
		agg.Add(g.ThreadRoot(th.Stack, name), []graph.Label{{Key: graph.LabelThread, Str: name}}, 1)
	}
	v.Comments = append(v.Comments, fmt.Sprintf("%d threads", len(g.Threads)))
	g.AddView(v)
}
