package parquet

import (
	"time"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
)

// Hand-built graphs shaped like what the binary HPROF decoder produces:
// cpu samples on Java method stacks with thread labels, allocation sites
// (trace plus class leaf), a heap view of classes under their package
// path with class labels, and threads with their stacks.

type method struct {
	class, name, sig, file string
	line                   int32
}

var (
	mMain     = method{"com.example.Main", "main", "([Ljava/lang/String;)V", "Main.java", 12}
	mWork     = method{"com.example.Worker", "run", "()V", "Worker.java", 40}
	mResize   = method{"java.util.HashMap", "resize", "()[Ljava/util/HashMap$Node;", "HashMap.java", 704}
	mPut      = method{"java.util.HashMap", "putVal", "(ILjava/lang/Object;Ljava/lang/Object;ZZ)Ljava/lang/Object;", "HashMap.java", 631}
	mInit     = method{"com.example.Cache$Entry", "<init>", "(Ljava/lang/String;)V", "Cache.java", 88}
	mCopyOf   = method{"java.util.Arrays", "copyOf", "([BI)[B", "Arrays.java", graph.LineCompiled}
	mRead0    = method{"java.io.FileInputStream", "readBytes", "([BII)I", "FileInputStream.java", graph.LineNative}
	mWait     = method{"java.lang.Object", "wait", "(J)V", "", graph.LineNative}
	mMainLoop = method{"com.example.Server", "loop", "()V", "Server.java", 77}
)

func stackOf(g *graph.Graph, ms ...method) graph.StackID {
	ids := make([]graph.FrameID, len(ms))
	for i, m := range ms {
		ids[i] = g.Frame(graph.Frame{Kind: graph.KindMethod, Class: m.class, Method: m.name, Signature: m.sig, File: m.file, Line: m.line})
	}
	return g.Stack(ids)
}

type heapClass struct {
	class        string
	count, bytes int64
}

// testGraph builds one dump; scale multiplies the heap so two graphs
// differ the way a before/after pair does.
func testGraph(path string, scale int64) *graph.Graph {
	g := graph.New()
	g.Source = graph.Source{
		Path: path, Format: "hprof-binary", Version: "JAVA PROFILE 1.0.2", IDSize: 8,
		Time:   time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC).Add(time.Duration(scale) * time.Hour),
		Writer: "hprof agent", Bytes: 123456 * scale,
		Records: map[string]int64{"UTF8": 900, "LOAD CLASS": 120, "STACK TRACE": 14, "CPU SAMPLES": 1, "HEAP DUMP": 1},
		Dumps:   1, Dump: 1,
		Notes: []string{"cpu interval not recorded; assumed 10ms"},
	}
	t0 := g.Source.Time

	work := stackOf(g, mResize, mPut, mWork)
	copyOf := stackOf(g, mCopyOf, mRead0, mWork)
	mainStack := stackOf(g, mPut, mMain)
	waiting := stackOf(g, mWait, mMainLoop, mMain)

	cpu := graph.NewCPUView(graph.DefaultCPUInterval)
	cpu.Time = t0
	cpu.Duration = 3 * time.Second
	cpu.Comments = []string{"CPU SAMPLES total 310"}
	ms := int64(graph.DefaultCPUInterval)
	a := graph.NewAggregator(cpu)
	thr := func(name string) []graph.Label { return []graph.Label{{Key: graph.LabelThread, Str: name}} }
	a.Add(work, thr("worker-1"), 120, 120*ms)
	a.Add(work, thr("worker-2"), 95*scale, 95*scale*ms)
	a.Add(copyOf, thr("worker-1"), 60, 60*ms)
	a.Add(mainStack, thr("main"), 35, 35*ms)
	g.AddView(cpu)

	alloc := graph.NewAllocView()
	alloc.Time = t0
	aa := graph.NewAggregator(alloc)
	cls := func(c string) []graph.Label { return []graph.Label{{Key: graph.LabelClass, Str: c}} }
	aa.Add(g.WithLeaf(work, "java.util.HashMap$Node[]"), cls("java.util.HashMap$Node[]"), 40, 40*4112, 10, 10*4112)
	aa.Add(g.WithLeaf(mainStack, "java.util.HashMap$Node"), cls("java.util.HashMap$Node"), 5000*scale, 5000*32*scale, 4000, 4000*32)
	aa.Add(g.WithLeaf(copyOf, "byte[]"), cls("byte[]"), 700, 700*8208, 3, 3*8208)
	aa.Add(g.WithLeaf(stackOf(g, mInit, mPut, mWork), "com.example.Cache$Entry"), cls("com.example.Cache$Entry"), 2500, 2500*24, 2500, 2500*24)
	g.AddView(alloc)

	heap := graph.NewHeapView()
	heap.Time = t0
	ha := graph.NewAggregator(heap)
	for _, c := range []heapClass{
		{"java.util.HashMap$Node", 4000 * scale, 4000 * 32 * scale},
		{"java.util.HashMap$Node[]", 10, 10 * 4112},
		{"byte[]", 1500, 1500 * 300},
		{"java.lang.String", 3000 * scale, 3000 * 24 * scale},
		{"com.example.Cache$Entry", 2500, 2500 * 24},
		{"java.lang.Object[]", 12, 12 * 80},
	} {
		ha.Add(g.ClassStack(c.class), cls(c.class), c.count, c.bytes)
	}
	if scale > 1 { // a class that only the later dump has
		ha.Add(g.ClassStack("com.example.Leak"), cls("com.example.Leak"), 777, 777*48)
	}
	g.AddView(heap)

	mon := graph.NewMonitorView()
	mon.Time = t0
	ma := graph.NewAggregator(mon)
	lock := func(c string) []graph.Label { return []graph.Label{{Key: graph.LabelMonitor, Str: c}} }
	ma.Add(mainStack, lock("java.lang.Object"), 12, 4_500_000)
	ma.Add(work, lock("java.lang.Object"), 3*scale, 800_000*scale)
	ma.Add(work, lock("com.example.Cache"), 40, 9_100_000)
	g.AddView(mon)

	g.Threads = []graph.Thread{
		{Serial: 1, ObjectID: 0x7f0001000, Name: "main", Group: "main", Class: "java.lang.Thread", State: "waiting", Stack: waiting},
		{Serial: 2, ObjectID: 0x7f0002000, Name: "worker-1", Group: "main", Class: "java.lang.Thread", State: "runnable", Stack: work},
		{Serial: 3, ObjectID: 0x7f0003000, Name: "worker-2", Group: "main", Class: "java.lang.Thread", State: "runnable", Stack: copyOf},
		{Serial: 4, Name: "Reference Handler", Group: "system"},
	}
	threads := graph.NewThreadsView()
	ta := graph.NewAggregator(threads)
	for _, th := range g.Threads {
		ta.Add(th.Stack, []graph.Label{{Key: graph.LabelThread, Str: th.Name}, {Key: graph.LabelState, Str: th.State}}, 1)
	}
	g.AddView(threads)
	g.SoftFail(graph.SoftTraceMissingFrame)
	return g
}
