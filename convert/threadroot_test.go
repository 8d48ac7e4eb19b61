package convert

import (
	"strconv"
	"testing"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
)

// TestThreadsViewRootedAtThread: every stack of the threads view ends
// (at its root) in a frame naming the sample's thread, `thread "main"`,
// so a thread with no Java frames still shows in a flame graph by name;
// the thread label stays.
func TestThreadsViewRootedAtThread(t *testing.T) {
	for _, path := range []string{
		"../testdata/jdk17-zoo-live.hprof",                             // heap dump
		"../testdata/jdk17-zoo-jhsdb.hprof",                            // jhsdb heap dump
		"../testdata/heap-sites.allocwork.jdk17.hprof",                 // agent file
		"../testdata/combo-cpu-monitor-sites.monitorwork.jdk17.txt.gz", // text report's MONITOR DUMP
	} {
		t.Run(path, func(t *testing.T) {
			g := mustConvert(t, path, Options{Views: []string{graph.ViewThreads}})
			v := g.View(graph.ViewThreads)
			if v == nil || len(v.Samples) == 0 {
				t.Fatal("no threads view")
			}
			for _, s := range v.Samples {
				name := ""
				for _, l := range s.Labels {
					if l.Key == graph.LabelThread {
						name = l.Str
					}
				}
				if name == "" {
					t.Fatalf("sample without a thread label: %+v", s)
				}
				st := g.Stacks[s.Stack]
				if len(st) == 0 {
					t.Fatalf("thread %q: empty stack", name)
				}
				root := g.Frames[st[len(st)-1]]
				if want := "thread " + strconv.Quote(name); root.Kind != graph.KindRoot || root.Function() != want {
					t.Errorf("thread %q: root frame %q (%v), want %q", name, root.Function(), root.Kind, want)
				}
			}
		})
	}
}
