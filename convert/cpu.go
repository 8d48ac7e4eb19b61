package convert

import (
	"fmt"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
)

// The cpu view: CPU SAMPLES summed per trace, labelled with the
// thread and state=blocked.

// buildCPU adds the cpu view of the samples read so far to g.
func (d *binDecoder) buildCPU(g *graph.Graph) {
	if d.cpuRecords == 0 {
		return
	}
	v := graph.NewCPUView(d.opts.interval())
	v.Time = g.Source.Time
	v.Duration = usec(d.cpuTime)
	agg := graph.NewAggregator(v)
	for serial, count := range d.cpuByTrace {
		st := d.names.Stack(serial)
		agg.Add(st, d.cpuLabels(g, serial, st), count, count*v.Period)
	}
	g.SortSamples(v)
	v.Comments = append(v.Comments,
		fmt.Sprintf("CPU SAMPLES: %d records, total %d samples", d.cpuRecords, d.cpuTotal),
		fmt.Sprintf("cpu/nanoseconds = samples × interval %v (the file does not record the interval; set it with --interval)", d.opts.interval()))
	g.AddView(v)
}

// cpuLabels are the labels of a CPU sample of trace serial (graph stack
// st): the thread's name, and state=blocked for a blocking native leaf.
func (d *binDecoder) cpuLabels(g *graph.Graph, serial uint32, st graph.StackID) []graph.Label {
	var labels []graph.Label
	if t, ok := d.sym.Traces[serial]; ok {
		if name := d.threadName(t.ThreadSerial); name != "" {
			labels = append(labels, graph.Label{Key: graph.LabelThread, Str: name})
		}
	}
	if g.Blocked(st) {
		labels = append(labels, graph.BlockedState)
	}
	return labels
}
