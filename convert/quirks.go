package convert

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hprof2pprof/hprof2pprof/convert/hprof"
	"github.com/hprof2pprof/hprof2pprof/convert/internal/heapdump"
)

// androidWriter names the Android writer: ART lists the object header
// words as java.lang.Object fields (shadow$_klass_, shadow$_monitor_),
// Dalvik does not.
func (d *binDecoder) androidWriter() string {
	h := d.lastHeap
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
func (d *binDecoder) describeQuirks() {
	s := &d.g.Source
	note := func(format string, args ...any) { s.Notes = append(s.Notes, fmt.Sprintf(format, args...)) }
	if d.opts.Mapping != nil {
		note("deobfuscated with a mapping of %d classes: %d class names in this file renamed", d.opts.Mapping.Len(), d.names.Renamed())
	}
	if d.sym.RepeatedLoads > 0 {
		note("%d LOAD CLASS records repeat a class already loaded under the same ID and name (HotSpot can list a class again for each class loader that initiated loading it)", d.sym.RepeatedLoads)
	}
	if n := s.Records[hprof.TagUnloadClass.String()]; n > 0 {
		note("%d UNLOAD CLASS records: those classes keep their names for stack traces", n)
	}
	if s.Dumps > 1 {
		note("%d heap dumps in one file (the hprof agent writes one per dump request); the heap view uses dump %d, --dump N picks another", s.Dumps, s.Dump)
	}
	h := d.lastHeap
	if h == nil {
		return
	}
	if h.NewSizeModel() {
		note("CLASS DUMP instance sizes are object sizes (java.lang.Object: %d bytes), as Android writes them: instance sizes taken as written", h.ObjectSize)
	}
	if len(h.Heaps.NameIDs) > 0 {
		objs := make([]int64, len(h.Heaps.NameIDs)+1)
		h.Agg.Each(func(k heapdump.Key, a *heapdump.Acc) { objs[k.Heap] += a.Count })
		var parts []string
		for i := range h.Heaps.NameIDs {
			parts = append(parts, fmt.Sprintf("%s (%d objects)", h.Heaps.Name(d.env(), heapdump.HeapIndex(i+1)), objs[i+1]))
		}
		if h.Heaps.Overflow {
			parts = append(parts, "more than 16 heap IDs: the last ones share one label")
		}
		if objs[0] > 0 {
			parts = append(parts, fmt.Sprintf("before any HEAP DUMP INFO (%d objects)", objs[0]))
		}
		note("Android heaps: %s; the heap view labels samples heap=NAME", strings.Join(parts, ", "))
	}
	// Class names defined more than once (two class loaders), and LOAD
	// CLASS records without a CLASS DUMP.
	byName := map[string]int{}
	for id := range h.Classes {
		if n, ok := d.sym.ClassName[id]; ok {
			byName[n]++
		}
	}
	var twice []string
	for n, c := range byName {
		if c > 1 {
			twice = append(twice, n)
		}
	}
	if len(twice) > 0 {
		sort.Strings(twice)
		ex := twice[:min(len(twice), 3)]
		note("%d class names defined by more than one class loader (e.g. %s): their objects are summed under the one name", len(twice), strings.Join(ex, ", "))
	}
	undumped := 0
	for id := range d.sym.ClassName {
		if _, ok := h.Classes[id]; !ok {
			undumped++
		}
	}
	if undumped > 0 {
		note("%d LOAD CLASS records name classes without a CLASS DUMP in the heap dump used (unloaded or not dumped)", undumped)
	}
	if z := d.g.Soft["zero-length heap dump segment"]; z > 0 && strings.HasPrefix(s.Writer, "Android") {
		note("%d zero-length heap dump segments (ART writes them; harmless)", z)
	}
}
