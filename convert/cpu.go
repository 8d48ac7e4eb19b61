package convert

import (
	"fmt"
	"time"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/internal/frames"
)

// The cpu view: CPU SAMPLES summed per trace, labelled with the
// thread and state=blocked.

// buildCPU adds the cpu view of the samples d.cpu to g, each sample
// weighing interval.
func buildCPU(g *graph.Graph, st *frames.Stacks, d *binData, interval time.Duration) {
	c := &d.cpu
	if c.records == 0 {
		return
	}
	v := graph.NewCPUView(interval)
	v.Time = g.Source.Time
	v.Duration = usec(c.time)
	agg := graph.NewAggregator(v)
	for serial, count := range c.byTrace {
		stack := st.Stack(serial)
		agg.Add(stack, cpuLabels(g, d, serial, stack), count, count*v.Period)
	}
	g.SortSamples(v)
	v.Comments = append(v.Comments,
		fmt.Sprintf("CPU SAMPLES: %d records, total %d samples", c.records, c.total),
		fmt.Sprintf("cpu/nanoseconds = samples × interval %v (the file does not record the interval; set it with --interval)", interval))
	g.AddView(v)
}

// cpuLabels are the labels of a CPU sample of trace serial (graph stack
// st): the thread's name, and state=blocked for a blocking native leaf.
func cpuLabels(g *graph.Graph, d *binData, serial uint32, st graph.StackID) []graph.Label {
	var labels []graph.Label
	if t, ok := d.sym.Traces[serial]; ok {
		if name := threadName(d, t.ThreadSerial); name != "" {
			labels = append(labels, graph.Label{Key: graph.LabelThread, Str: name})
		}
	}
	if g.Blocked(st) {
		labels = append(labels, graph.BlockedState)
	}
	return labels
}
