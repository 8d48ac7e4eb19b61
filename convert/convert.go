package convert

import (
	"github.com/hprof2pprof/hprof2pprof/convert/retained"
	"slices"
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
	// VisualVMSizes sizes heap objects as VisualVM and Eclipse MAT do
	// (heapsize.Overrides.VisualVM), to compare with them.
	VisualVMSizes bool
	// Mapping, when set, is an R8/ProGuard mapping file: obfuscated
	// class and method names become the original ones.
	Mapping *mapping.Map
	// RawNames keeps hidden and lambda class names as the input wrote
	// them ("Foo$$Lambda$42.0x00000007c00c1670.run"). By default method
	// and class frames and class labels name them run-independently
	// ("Foo$$Lambda.run", graph.Graph.NormalizeClasses), the exact name
	// kept as the frame's system name (graph.Frame.RawClass).
	RawNames bool
	// Progress, when set, is called now and then with the number of
	// input bytes read so far.
	Progress func(done int64)
	// Phase, when set, is called with what the converter does after it
	// has read the input ("retained: dominators"), and "" when that ends.
	Phase func(phase string)

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
	// SpillDir is where the retained view spills ("": os.TempDir()),
	// and where a bzip2 or single-stream gzip input is kept decompressed
	// when the retained view or Rows read it again (source.Copy).
	SpillDir string
	// Rows says the caller reads the heap rows after decoding
	// (Decoded.Rows): a compressed input is kept decompressed for it.
	Rows bool
	// ObjectRetained keeps each object's retained size and immediate
	// dominator when the retained view is computed, for the objects rows
	// (Decoded.Rows): 8 bytes and more per object until Close.
	ObjectRetained bool
	// Suspects, when set, asks for the leak suspects report of the heap
	// dump (graph.Graph.Suspects): it computes the retained analysis with
	// shortest paths, whatever Views says; with no Views, no view is
	// built beside it.
	Suspects *retained.SuspectQuery
}

func (o Options) interval() time.Duration {
	if o.Interval > 0 {
		return o.Interval
	}
	return graph.DefaultCPUInterval
}

func (o Options) wants(view string) bool {
	if len(o.Views) == 0 {
		return o.Suspects == nil // a report alone builds no view
	}
	return slices.Contains(o.Views, view)
}
