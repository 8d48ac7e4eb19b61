// Package convert decodes Java HPROF inputs — binary heap dumps and
// hprof agent files, and the agent's text reports — into the graph of
// package convert/graph, which every emitter reads.
//
// Where things happen:
//   - convert/hprof: the binary record reader (one record or heap
//     sub-record at a time, never the whole file)
//   - convert/text: the text report parser
//   - convert/names: class name rules
//   - binary.go, heapdump.go: binary records → graph views
//   - input.go: opening files, gzip/bzip2 by magic bytes, text vs binary
package convert

import (
	"slices"
	"strings"
	"time"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/mapping"
)

// Options tune decoding. The zero value is ready to use.
type Options struct {
	// Interval is the CPU sampling interval the agent used (the file
	// does not record it); 0 means the agent's default, 10ms.
	Interval time.Duration
	// Dump picks one dump (1-based) of a file holding several; 0 takes
	// the defaults: CPU samples summed over all dumps, heap and
	// allocation data from the last complete one.
	Dump int
	// Views limits decoding to these views (nil: all). Skipping the
	// threads view spares heap dumps the thread-name passes.
	Views []string
	// RefSize and HeaderSize override the heap size model: the size of
	// a reference (4 or 8) and of an object header (arrays add 4).
	RefSize    int
	HeaderSize int
	// Mapping, when set, is an R8/ProGuard mapping file: obfuscated
	// class and method names become the original ones.
	Mapping *mapping.Map
	// Progress, when set, is called now and then with the number of
	// input bytes read so far.
	Progress func(done int64)
	// Phase, when set, is called with what the converter does after it
	// has read the input ("retained: dominators"), and "" when that ends.
	Phase func(phase string)

	// sequential reads plain files as one stream, without the parallel
	// heap pass (tests compare the two paths).
	sequential bool

	probe *retainedProbe // tests: keep the retained analysis
	// MaxMemory, when positive, stops decoding with ErrMemoryLimit once
	// the process's Go heap holds more than this many bytes.
	MaxMemory int64
	// RetainedMemory bounds the retained view's object graph on the Go
	// heap: when its estimated peak is larger, its arrays are files in a
	// temporary directory in SpillDir, mapped into memory, which the
	// kernel pages out to disk (unix; docs/retained.md). 0: half of
	// MaxMemory when it is set, else 3/4 of the available memory;
	// negative: always spill.
	RetainedMemory int64
	// SpillDir is where the retained view spills ("": os.TempDir()).
	SpillDir string
}

func (o Options) interval() time.Duration {
	if o.Interval > 0 {
		return o.Interval
	}
	return graph.DefaultCPUInterval
}

func (o Options) wants(view string) bool {
	return len(o.Views) == 0 || slices.Contains(o.Views, view)
}

// sortSamples orders a view's samples by their first value, largest
// first, then by stack, so outputs are stable run to run.
func sortSamples(g *graph.Graph, v *graph.View) {
	slices.SortStableFunc(v.Samples, func(a, b graph.Sample) int {
		for i := len(a.Values) - 1; i >= 0; i-- {
			if a.Values[i] != b.Values[i] {
				if a.Values[i] > b.Values[i] {
					return -1
				}
				return 1
			}
		}
		if c := compareStacks(g, a.Stack, b.Stack); c != 0 {
			return c
		}
		return strings.Compare(labelKey(a.Labels), labelKey(b.Labels))
	})
}

func labelKey(ls []graph.Label) string {
	var b strings.Builder
	for _, l := range ls {
		b.WriteString(l.Key + "=" + l.Str + ";")
	}
	return b.String()
}

func sortThreads(ts []graph.Thread) {
	slices.SortStableFunc(ts, func(a, b graph.Thread) int {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		if a.Serial != b.Serial {
			if a.Serial < b.Serial {
				return -1
			}
			return 1
		}
		if a.ObjectID < b.ObjectID {
			return -1
		} else if a.ObjectID > b.ObjectID {
			return 1
		}
		return 0
	})
}
