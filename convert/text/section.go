package text

import (
	"strings"
	"time"
)

// sectionKind is one kind of BEGIN … END section.
type sectionKind uint8

const (
	secCPUSamples sectionKind = iota
	secCPUTime
	secSites
	secHeapDump
	secMonitorTime
	secMonitorDump
	numSectionKinds
)

// sectionNames are the words before BEGIN/END, as the agent prints them.
var sectionNames = [numSectionKinds]string{
	secCPUSamples:  "CPU SAMPLES",
	secCPUTime:     "CPU TIME (ms)",
	secSites:       "SITES",
	secHeapDump:    "HEAP DUMP",
	secMonitorTime: "MONITOR TIME",
	secMonitorDump: "MONITOR DUMP",
}

func (k sectionKind) String() string {
	if k < numSectionKinds {
		return sectionNames[k]
	}
	return "unknown section"
}

// sectionBegin recognises a BEGIN line and returns its kind and the rest
// of the line after "BEGIN".
func sectionBegin(line string) (sectionKind, string, bool) {
	for k, name := range sectionNames {
		if rest, ok := strings.CutPrefix(line, name+" BEGIN"); ok {
			if rest == "" || rest[0] == ' ' {
				return sectionKind(k), strings.TrimSpace(rest), true
			}
		}
	}
	return 0, "", false
}

// row is one ranked line of CPU SAMPLES, CPU TIME, SITES or MONITOR TIME.
type row struct {
	trace uint32
	pct   int64 // self percentage in hundredths of a percent
	accum int64 // accum percentage in hundredths of a percent
	count int64 // count column (CPU, MONITOR TIME)
	// method is the method column of CPU SAMPLES and CPU TIME rows: the
	// stack's leaf when the file lacks the trace (an excerpt).
	method string
	// SITES columns.
	liveBytes, liveObjs, allocBytes, allocObjs int64
	name                                       string // SITES class, MONITOR TIME monitor
}

// heapKey groups heap dump objects by allocation trace and class.
type heapKey struct {
	trace uint32
	class string
}

// heapCell sums the objects of one heapKey.
type heapCell struct {
	objects, bytes int64
}

// dumpThread is a THREAD line of a MONITOR DUMP.
type dumpThread struct {
	serial uint32
	trace  uint32
	status string
}

// section is one BEGIN … END block as read.
type section struct {
	kind     sectionKind
	line     int // line of BEGIN
	dump     int // 1-based dump this section belongs to
	when     time.Time
	complete bool
	elided   bool // holds a `...` line: rows were left out

	total      int64 // header total: samples, ms, heap objects
	totalBytes int64 // HEAP DUMP header bytes
	hasTotal   bool

	rows []row

	heap     map[heapKey]int // index into cells
	cells    []heapCell
	keys     []heapKey
	heapRecs map[string]int64 // ROOT, CLS, OBJ, ARR counts

	threads  []dumpThread
	monitor  map[uint32]string // thread serial → monitor it waits on
	curMon   string            // monitor of the MONITOR line being read
	openWait map[uint32]string // WAIT without WAITED when the dump began
}
