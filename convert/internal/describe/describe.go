// Package describe writes what `info` says of a binary HPROF input
// beyond its records: which program wrote it, and the notes a reader
// must know (Android heaps, deobfuscation, classes named twice, several
// dumps, the reference size and why).
package describe

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/hprof"
	"github.com/hprof2pprof/hprof2pprof/convert/internal/heapdump"
)

// Facts are what the decoder read that the description draws on.
type Facts struct {
	Source  *graph.Source    // Writer and Notes are filled in
	Soft    graph.SoftCounts // the graph's soft failures
	Control *hprof.ControlSettings
	Sites   *hprof.AllocSites
	Summary *hprof.HeapSummary
	// Heap is the dump the heap view is taken from (nil: none; its size
	// model gives the reference size and why); Env names its heaps.
	Heap *heapdump.Dump
	Env  heapdump.Env
	// MappingClasses is the size of the --mapping (-1: none); Renamed
	// how many class names in the file it changed.
	MappingClasses int
	Renamed        int
	RepeatedLoads  int64
	ClassName      map[uint64]string
}

// Describe fills the writer guess and the notes `info` shows.
func Describe(d Facts) {
	s := d.Source
	rec := s.Records
	switch {
	case s.Version == "JAVA PROFILE 1.0.3":
		s.Writer = androidWriter(d)
	case d.Control != nil || (s.IDSize == 4 && rec[hprof.TagCPUSamples.String()]+rec[hprof.TagAllocSites.String()] > 0):
		s.Writer = "JDK hprof agent (format=b)"
		if d.Control != nil {
			s.Notes = append(s.Notes, fmt.Sprintf("CONTROL SETTINGS: flags 0x%x, stack depth %d", d.Control.Flags, d.Control.Depth))
		}
	case rec[hprof.TagHeapDump.String()] > 0 && rec[hprof.TagHeapDumpEnd.String()] == 0 && s.Version == "JAVA PROFILE 1.0.1":
		s.Writer = "HotSpot heap dumper of JDK 5 to 8 (jmap -dump, HeapDumpOnOutOfMemoryError): one HEAP DUMP record, no HEAP DUMP END"
	case rec[hprof.TagHeapDump.String()] > 0 && rec[hprof.TagHeapDumpEnd.String()] == 0:
		s.Writer = "HotSpot Serviceability Agent (jhsdb jmap): one HEAP DUMP record, no HEAP DUMP END"
	case rec[hprof.TagHeapDumpSegment.String()] > 0:
		s.Writer = "HotSpot heap dumper (jcmd GC.heap_dump, jmap -dump, HeapDumpOnOutOfMemoryError)"
	default:
		s.Writer = "unknown"
	}
	if d.Sites != nil {
		s.Notes = append(s.Notes, fmt.Sprintf("ALLOC SITES cutoff field reads %g as a float (the agent writes the low bits of a double there)", d.Sites.Cutoff))
	}
	if d.Summary != nil {
		s.Notes = append(s.Notes, fmt.Sprintf("HEAP SUMMARY: live %d bytes in %d instances; allocated %d bytes in %d instances",
			d.Summary.LiveBytes, d.Summary.LiveInstances, d.Summary.AllocBytes, d.Summary.AllocInstances))
	}
	if h := d.Heap; h != nil {
		s.Notes = append(s.Notes, h.Model.Describe())
	}
	describeQuirks(d)
}

// androidWriter names the Android writer: ART lists the object header
// words as java.lang.Object fields (shadow$_klass_, shadow$_monitor_),
// Dalvik does not.
func androidWriter(d Facts) string {
	h := d.Heap
	switch {
	case h == nil:
		return "Android (ART or Dalvik hprof writer; no heap dump to tell which)"
	case h.ART:
		return "Android ART (Android 5 or later)"
	}
	return "Android Dalvik (Android 4.4 or earlier)"
}

// describeQuirks adds notes for `info` about what the file does that a
// reader must know: Android heaps, deobfuscation, classes named twice,
// classes loaded but not dumped, unloaded classes, several dumps.
func describeQuirks(d Facts) {
	describeRecordQuirks(d)
	if d.Heap == nil {
		return
	}
	describeHeapQuirks(d)
}

// note adds one note to the source.
func note(s *graph.Source, format string, args ...any) {
	s.Notes = append(s.Notes, fmt.Sprintf(format, args...))
}

// describeRecordQuirks notes what the top-level records show:
// deobfuscation, classes loaded twice or unloaded, several dumps.
func describeRecordQuirks(d Facts) {
	s := d.Source
	if d.MappingClasses >= 0 {
		note(s, "deobfuscated with a mapping of %d classes: %d class names in this file renamed", d.MappingClasses, d.Renamed)
	}
	if d.RepeatedLoads > 0 {
		note(s, "%d LOAD CLASS records repeat a class already loaded under the same ID and name (HotSpot can list a class again for each class loader that initiated loading it)", d.RepeatedLoads)
	}
	if n := s.Records[hprof.TagUnloadClass.String()]; n > 0 {
		note(s, "%d UNLOAD CLASS records: those classes keep their names for stack traces", n)
	}
	if s.Dumps > 1 {
		note(s, "%d heap dumps in one file (the hprof agent writes one per dump request); the heap view uses dump %d, --dump N picks another", s.Dumps, s.Dump)
	}
}

// describeHeapQuirks notes what the heap dump used shows: Android's
// size model and heaps, class names defined twice, classes loaded but
// not dumped, ART's empty segments.
func describeHeapQuirks(d Facts) {
	s, h := d.Source, d.Heap
	if h.Model.SizesInDump() {
		note(s, "CLASS DUMP instance sizes are object sizes (java.lang.Object: %d bytes), as Android writes them: instance sizes taken as written", h.Model.ObjectSize())
	}
	if len(h.Heaps.NameIDs) > 0 {
		note(s, "Android heaps: %s; the heap view labels samples heap=NAME", strings.Join(androidHeaps(d), ", "))
	}
	if twice := namesDefinedTwice(d); len(twice) > 0 {
		ex := twice[:min(len(twice), 3)]
		note(s, "%d class names defined by more than one class loader (e.g. %s): their objects are summed under the one name", len(twice), strings.Join(ex, ", "))
	}
	if undumped := undumpedClasses(d); undumped > 0 {
		note(s, "%d LOAD CLASS records name classes without a CLASS DUMP in the heap dump used (unloaded or not dumped)", undumped)
	}
	if z := d.Soft.Count(graph.SoftZeroLengthSegment); z > 0 && strings.HasPrefix(s.Writer, "Android") {
		note(s, "%d zero-length heap dump segments (ART writes them; harmless)", z)
	}
}

// androidHeaps names each Android heap of the dump with its object
// count, then what does not fit a heap of its own.
func androidHeaps(d Facts) []string {
	h := d.Heap
	objs := make([]int64, len(h.Heaps.NameIDs)+1)
	h.Agg.Each(func(k heapdump.Key, a *heapdump.Acc) { objs[k.Heap] += a.Count })
	var parts []string
	for i := range h.Heaps.NameIDs {
		parts = append(parts, fmt.Sprintf("%s (%d objects)", h.Heaps.Name(d.Env, heapdump.HeapIndex(i+1)), objs[i+1]))
	}
	if h.Heaps.Overflow {
		parts = append(parts, "more than 16 heap IDs: the last ones share one label")
	}
	if objs[0] > 0 {
		parts = append(parts, fmt.Sprintf("before any HEAP DUMP INFO (%d objects)", objs[0]))
	}
	return parts
}

// namesDefinedTwice returns, sorted, the class names more than one
// dumped class carries (two class loaders).
func namesDefinedTwice(d Facts) []string {
	byName := map[string]int{}
	for _, id := range d.Heap.Classes.IDs() {
		if n, ok := d.ClassName[id]; ok {
			byName[n]++
		}
	}
	var twice []string
	for n, c := range byName {
		if c > 1 {
			twice = append(twice, n)
		}
	}
	sort.Strings(twice)
	return twice
}

// undumpedClasses counts the LOAD CLASS records without a CLASS DUMP.
func undumpedClasses(d Facts) int {
	undumped := 0
	for id := range d.ClassName {
		if !d.Heap.Classes.Has(id) {
			undumped++
		}
	}
	return undumped
}
