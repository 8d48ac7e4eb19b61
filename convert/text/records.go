package text

import (
	"strconv"
	"strings"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
)

// parseTraceHeader parses `TRACE 300001:`, optionally followed by
// ` (thread=200002)` and ` (from <phase> phase of JVM)`.
func parseTraceHeader(line string) (serial, thread uint32, ok bool) {
	rest := strings.TrimPrefix(line, "TRACE ")
	num, rest, found := strings.Cut(rest, ":")
	if !found {
		return 0, 0, false
	}
	if serial, ok = parseSerial(num); !ok {
		return 0, 0, false
	}
	rest = strings.TrimSpace(rest)
	if t, ok := strings.CutPrefix(rest, "(thread="); ok {
		num, after, found := strings.Cut(t, ")")
		if !found {
			return 0, 0, false
		}
		if thread, ok = parseSerial(num); !ok {
			return 0, 0, false
		}
		rest = strings.TrimSpace(after)
	}
	if rest != "" && !(strings.HasPrefix(rest, "(from ") && strings.HasSuffix(rest, ")")) {
		return 0, 0, false
	}
	return serial, thread, true
}

// threadStart parses
// `THREAD START (obj=5000033d, id = 200004, name="main", group="main")`.
func (p *parser) threadStart(n int, line string) error {
	p.records["THREAD START"]++
	bad := func() error { return syntaxErr(n, "malformed THREAD START", line) }
	rest, ok := strings.CutPrefix(line, "THREAD START (obj=")
	if !ok || !strings.HasSuffix(rest, "\")") {
		return bad()
	}
	obj, rest, ok := strings.Cut(rest, ", id = ")
	if !ok {
		return bad()
	}
	id, rest, ok := strings.Cut(rest, ", name=\"")
	if !ok {
		return bad()
	}
	// Names may hold quotes and commas: the group is after the last
	// `", group="`.
	const sep = "\", group=\""
	i := strings.LastIndex(rest, sep)
	if i < 0 || i+len(sep) > len(rest)-2 {
		return bad()
	}
	name, group := rest[:i], rest[i+len(sep):len(rest)-2]
	objID, err := strconv.ParseUint(obj, 16, 64)
	if err != nil {
		return bad()
	}
	serial, ok := parseSerial(id)
	if !ok {
		return bad()
	}
	if p.threadIdx == nil {
		p.threadIdx = map[uint32]int{}
	}
	p.threadName[serial] = name
	t := graph.Thread{Serial: serial, ObjectID: objID, Name: name, Group: group}
	if j, ok := p.threadIdx[serial]; ok {
		p.g.Threads[j] = t
		return nil
	}
	p.threadIdx[serial] = len(p.g.Threads)
	p.g.Threads = append(p.g.Threads, t)
	return nil
}

// parseThreadEnd parses `THREAD END (id = 200010)`.
func parseThreadEnd(line string) (uint32, bool) {
	rest, ok := strings.CutPrefix(line, "THREAD END (id = ")
	if !ok {
		return 0, false
	}
	num, ok := strings.CutSuffix(rest, ")")
	if !ok {
		return 0, false
	}
	return parseSerial(num)
}

// monitorEvent handles the monitor=y event lines:
//
//	WAIT: MONITOR Ljava/lang/Thread;, timeout=0, thread 200001
//	WAITED: MONITOR Ljava/lang/Thread;, time_waited=3726, thread 200001
//	SLEEP: timeout=100, thread 200008
//	EXIT: MONITOR Lfoo;, thread 200001
//
// with `<unknown thread>` in place of `thread N` when the agent had none.
// An open WAIT (no WAITED yet) tells the threads view what a thread waits
// on.
func (p *parser) monitorEvent(n int, line string) error {
	kind, rest, _ := strings.Cut(line, ": ")
	p.records[kind]++
	i := strings.LastIndex(rest, ", ")
	if i < 0 {
		return syntaxErr(n, "malformed "+kind+" line", line)
	}
	who := rest[i+2:]
	var thread uint32
	if who != "<unknown thread>" {
		num, prefixed := strings.CutPrefix(who, "thread ")
		var ok bool
		if thread, ok = parseSerial(num); !prefixed || !ok || num == "" {
			return syntaxErr(n, "malformed thread in "+kind+" line", line)
		}
	}
	var monitor string
	if kind != "SLEEP" {
		m, ok := strings.CutPrefix(rest, "MONITOR ")
		if !ok {
			return syntaxErr(n, "malformed "+kind+" line", line)
		}
		m, _, _ = strings.Cut(m, ", ")
		monitor = javaClassName(m)
	}
	if thread == 0 {
		return nil
	}
	switch kind {
	case "WAIT":
		p.openWait[thread] = monitor
	case "WAITED":
		delete(p.openWait, thread)
	}
	return nil
}

// rankedRow parses a CPU SAMPLES / CPU TIME / MONITOR TIME row
// `   1 16.71% 16.71%     124 300094 sun.nio.ch.Net.accept`; the header
// `rank   self  accum   count trace method` is skipped.
func (p *parser) rankedRow(s *section, n int, line string) error {
	f := strings.Fields(line)
	if len(f) == 0 || f[0] == "rank" {
		return nil
	}
	if len(f) < 6 {
		return syntaxErr(n, "short "+s.kind.String()+" row", line)
	}
	var r row
	var ok1, ok2, ok3, ok4, ok5 bool
	_, ok1 = parseUint(f[0])
	r.pct, ok2 = parsePercent(f[1])
	_, ok3 = parsePercent(f[2])
	r.count, ok4 = parseUint(f[3])
	r.trace, ok5 = parseSerial(f[4])
	if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 {
		return syntaxErr(n, "malformed "+s.kind.String()+" row", line)
	}
	if s.kind == secMonitorTime {
		r.name = strings.Join(f[5:], " ")
		if cls, ok := strings.CutSuffix(r.name, " (Java)"); ok {
			r.name = javaClassName(cls)
		}
	}
	s.rows = append(s.rows, r)
	return nil
}

// siteRow parses a SITES row
// ` 1 31.59% 31.59%   3904160 3754   8320000  8000 300169 byte[]`; the two
// header lines are skipped.
func (p *parser) siteRow(s *section, n int, line string) error {
	f := strings.Fields(line)
	if len(f) == 0 || f[0] == "rank" || f[0] == "percent" {
		return nil
	}
	if len(f) != 9 {
		return syntaxErr(n, "SITES row needs 9 columns", line)
	}
	var r row
	ok := true
	check := func(good bool) { ok = ok && good }
	_, good := parseUint(f[0])
	check(good)
	r.pct, good = parsePercent(f[1])
	check(good)
	_, good = parsePercent(f[2])
	check(good)
	r.liveBytes, good = parseUint(f[3])
	check(good)
	r.liveObjs, good = parseUint(f[4])
	check(good)
	r.allocBytes, good = parseUint(f[5])
	check(good)
	r.allocObjs, good = parseUint(f[6])
	check(good)
	r.trace, good = parseSerial(f[7])
	check(good)
	if !ok {
		return syntaxErr(n, "malformed SITES row", line)
	}
	r.name = javaClassName(f[8])
	s.rows = append(s.rows, r)
	return nil
}

// heapLine handles a HEAP DUMP line. OBJ and ARR records are counted by
// allocation trace and class; ROOT and CLS records are counted; the
// tab-indented field and element lines are skipped.
//
//	OBJ 50000345 (sz=24, trace=300005, class=java.lang.String@5000032f)
//	ARR 50000344 (sz=16, trace=300004, nelems=16, elem type=byte[])
//	ARR 5000034b (sz=80, trace=300008, nelems=14, elem type=java.lang.Object[]@5000025b)
func (p *parser) heapLine(s *section, n int, line string) error {
	if line == "" || line[0] == '\t' {
		return nil
	}
	kind, rest, _ := strings.Cut(line, " ")
	switch kind {
	case "ROOT", "CLS":
		s.heapRecs[kind]++
		return nil
	case "OBJ", "ARR":
	default:
		p.g.SoftFail(graph.SoftUnknownHeapDumpRecord)
		return nil
	}
	_, rest, _ = strings.Cut(rest, " ")
	inner, _, ok := parseParen(rest)
	if !ok {
		return syntaxErr(n, "malformed "+kind+" record", line)
	}
	var size int64
	var trace uint32
	var class string
	var haveSize, haveTrace bool
	for _, field := range strings.Split(inner, ", ") {
		k, v, _ := strings.Cut(field, "=")
		switch k {
		case "sz":
			size, haveSize = parseUint(v)
		case "trace":
			trace, haveTrace = parseSerial(v)
		case "class", "elem type":
			if at := strings.LastIndexByte(v, '@'); at >= 0 {
				v = v[:at]
			}
			class = javaClassName(v)
		}
	}
	if !haveSize || !haveTrace || class == "" {
		return syntaxErr(n, "malformed "+kind+" record", line)
	}
	s.heapRecs[kind]++
	key := heapKey{trace, class}
	i, ok := s.heap[key]
	if !ok {
		i = len(s.cells)
		s.heap[key] = i
		s.cells = append(s.cells, heapCell{})
		s.keys = append(s.keys, key)
	}
	s.cells[i].objects++
	s.cells[i].bytes += size
	return nil
}

// monitorDumpLine handles a MONITOR DUMP line:
//
//	    THREAD 200001, trace 300000, status: ZO
//	    MONITOR Ljava/lang/Object;        (or `… unowned`)
//		owner: thread 200002, entry count: 1
//		waiting to enter: thread 200003, thread 200004
//		waiting to be notified: thread 200005
func (p *parser) monitorDumpLine(s *section, n int, line string) error {
	t := strings.TrimSpace(line)
	switch {
	case t == "":
		return nil
	case strings.HasPrefix(t, "THREAD "):
		parts := strings.SplitN(strings.TrimPrefix(t, "THREAD "), ", ", 3)
		if len(parts) != 3 || !strings.HasPrefix(parts[1], "trace ") || !strings.HasPrefix(parts[2], "status:") {
			return syntaxErr(n, "malformed MONITOR DUMP thread line", line)
		}
		serial, ok1 := parseSerial(parts[0])
		trace, ok2 := parseSerial(strings.TrimPrefix(parts[1], "trace "))
		if !ok1 || !ok2 {
			return syntaxErr(n, "malformed MONITOR DUMP thread line", line)
		}
		status := strings.TrimSpace(strings.TrimPrefix(parts[2], "status:"))
		s.threads = append(s.threads, dumpThread{serial, trace, status})
	case strings.HasPrefix(t, "MONITOR "):
		m := strings.TrimPrefix(t, "MONITOR ")
		m = strings.TrimSuffix(m, " unowned")
		s.curMon = javaClassName(m)
	case strings.HasPrefix(t, "owner:"):
		// The owner holds the monitor; it does not wait on it.
	case strings.HasPrefix(t, "waiting to enter:"), strings.HasPrefix(t, "waiting to be notified:"):
		_, list, _ := strings.Cut(t, ":")
		for _, w := range strings.Split(list, ",") {
			w = strings.TrimSpace(w)
			if w == "" {
				continue
			}
			num, ok := strings.CutPrefix(w, "thread ")
			serial, ok2 := parseSerial(num)
			if !ok || !ok2 {
				return syntaxErr(n, "malformed thread list in MONITOR DUMP", line)
			}
			s.monitor[serial] = s.curMon
		}
	default:
		p.g.SoftFail(graph.SoftUnknownMonitorLine)
	}
	return nil
}
