package text

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
)

// Options tune Parse.
type Options struct {
	// Interval is the cpu=samples sampling interval (the agent's
	// interval= option; the file does not record it). Zero means
	// graph.DefaultCPUInterval.
	Interval time.Duration
	// Dump picks one dump of a multi-dump file (1-based). Zero applies
	// the default rules: CPU SAMPLES, CPU TIME and MONITOR TIME summed
	// over every dump, SITES, HEAP DUMP and MONITOR DUMP from the last
	// complete one.
	Dump int
}

// Parse decodes a text report or a cpu=old file into a graph.
//
// It returns an error for input that is not a text report (ErrNotText),
// for a malformed line (a *SyntaxError wrapping ErrSyntax, naming the
// line) and for an Options.Dump the file does not have (ErrNoDump). Input
// that ends early (a killed JVM: a section without END, a cut last line,
// no complete section at all) is not an error: the graph holds what was
// complete and Damage/Lost say what was not.
func Parse(r io.Reader, opts Options) (*graph.Graph, error) {
	if opts.Interval <= 0 {
		opts.Interval = graph.DefaultCPUInterval
	}
	if opts.Dump < 0 {
		return nil, fmt.Errorf("%w: dump %d", ErrNoDump, opts.Dump)
	}
	br := bufio.NewReaderSize(r, 64<<10)
	head, _ := br.Peek(512)
	if !Sniff(head) {
		return nil, ErrNotText
	}
	p := &parser{
		lr:          newLineReader(br),
		g:           graph.New(),
		opts:        opts,
		traces:      map[uint32]graph.StackID{},
		traceThread: map[uint32]uint32{},
		threadName:  map[uint32]string{},
		openWait:    map[uint32]string{},
		records:     map[string]int64{},
	}
	var err error
	if strings.HasPrefix(string(head), oldHeader) {
		err = p.parseOld()
	} else {
		err = p.parseReport(hasHeader(head))
	}
	if err != nil {
		return nil, err
	}
	p.g.Source.Bytes = p.lr.bytes
	p.g.Source.Records = p.records
	return p.g, nil
}

// parser holds the state of one Parse.
type parser struct {
	lr   *lineReader
	g    *graph.Graph
	opts Options

	traces      map[uint32]graph.StackID // trace serial → stack
	traceThread map[uint32]uint32        // trace serial → thread serial
	threadName  map[uint32]string        // thread serial → name
	threadIdx   map[uint32]int           // thread serial → g.Threads index
	openWait    map[uint32]string        // thread serial → monitor of an open WAIT
	records     map[string]int64

	sections []*section
	dump     int                   // current dump number
	seen     [numSectionKinds]bool // kinds seen in the current dump

	frames []graph.FrameID // scratch for the trace being read

	ex excerpt // what the input lacks compared with a whole report
}

// parseReport reads a text report: the header line and the prelude when
// the file has them, then the records. Without a header (an excerpt) or
// without a prelude, the records start at the first line that starts a
// record; lines before it are skipped and counted.
func (p *parser) parseReport(header bool) error {
	p.g.Source.Format = "hprof-text"
	p.g.Source.Writer = "hprof agent"
	p.ex.header = header
	if header {
		line, _ := p.lr.next()
		version, created, _ := strings.Cut(line, createdMark)
		p.g.Source.Version = version
		if t, ok := parseCTime(created); ok {
			p.g.Source.Time = t
		}
	}
	first, err := p.skipPrelude()
	if err != nil || p.g.Damage != nil {
		return err
	}
	if err := p.readRecords(first); err != nil {
		return err
	}
	p.g.StackBudget = graph.StackBudgetFor(p.lr.bytes)
	p.describe()
	if err := p.build(); err != nil {
		return err
	}
	p.describeTraces()
	return nil
}

// skipPrelude reads up to the separator line that ends the prelude, or
// up to the first record line when there is no separator; that line is
// returned for readRecords. A file with a header that ends inside its
// prelude was cut short (Damage); an excerpt that holds no record line
// is not hprof text.
func (p *parser) skipPrelude() (string, error) {
	for {
		line, ok := p.lr.next()
		if !ok {
			if p.lr.err != nil {
				return "", p.lr.err
			}
			if !p.ex.header {
				return "", fmt.Errorf("%w: no line starts an hprof record", ErrNotText)
			}
			p.g.Damage = fmt.Errorf("%w: the file ends inside the prelude, before the %q line", ErrTruncated, separator)
			p.g.Lost = "every record: the writer stopped before the first one"
			return "", nil
		}
		if line == separator {
			p.ex.separator = true
			return "", nil
		}
		if t := strings.TrimSpace(line); recordStart(t) {
			p.ex.firstRecord = p.lr.n
			return line, nil
		}
		if strings.TrimSpace(line) != "" {
			p.ex.skipped++
			p.ex.prelude(line)
		}
	}
}

// readRecords reads every record after the prelude; first, when not
// empty, is the line skipPrelude stopped at.
func (p *parser) readRecords(first string) error {
	var cur *section // the open section, if any
	inTrace := false
	var traceSerial uint32
	cutLine := 0 // line the writer stopped in the middle of, if any
	for {
		line, ok := first, first != ""
		first = ""
		if !ok {
			line, ok = p.lr.next()
		}
		if !ok {
			if p.lr.err != nil {
				return p.lr.err
			}
			break
		}
		err := p.line(line, &cur, &inTrace, &traceSerial)
		if err != nil {
			var se *SyntaxError
			if p.lr.partial && errors.As(err, &se) {
				// The writer was killed mid-line: that is damage,
				// not a malformed file. The cut line is dropped.
				cutLine = p.lr.n
				break
			}
			return err
		}
	}
	if inTrace && cutLine == 0 {
		p.endTrace(traceSerial)
	}
	cut := ""
	if cutLine > 0 {
		cut = fmt.Sprintf(" (line %d is cut short)", cutLine)
	}
	switch {
	case cur != nil && !p.ex.header && cutLine == 0:
		// An excerpt may stop before a section's END line: its rows
		// are whole lines, so the section is used, and info says so.
		p.endSection(cur, cur.kind.String())
	case cur != nil:
		p.g.Damage = fmt.Errorf("%w: the %s section begun at line %d has no END line%s", ErrTruncated, cur.kind, cur.line, cut)
		p.g.Lost = fmt.Sprintf("the incomplete %s section of dump %d (%d rows read, not used) and anything the writer had not flushed",
			cur.kind, cur.dump, len(cur.rows)+len(cur.threads)+int(cur.heapRecs["OBJ"]+cur.heapRecs["ARR"]))
	case cutLine > 0:
		p.g.Damage = fmt.Errorf("%w: line %d is cut short", ErrTruncated, cutLine)
		p.g.Lost = fmt.Sprintf("the record on line %d and anything the writer had not flushed", cutLine)
	case p.lr.partial && p.ex.header:
		p.g.Damage = fmt.Errorf("%w: the last line has no newline", ErrTruncated)
		p.g.Lost = "possibly the end of the last record"
	}
	return nil
}

// line handles one line after the prelude. Records are recognised at
// any indentation (excerpts pasted into tickets and manuals are indented
// by spaces); a line of dots marks rows or records left out.
func (p *parser) line(line string, cur **section, inTrace *bool, traceSerial *uint32) error {
	n := p.lr.n
	t := strings.TrimSpace(line)
	if isEllipsis(t) {
		p.ex.elided(n)
		if *cur != nil {
			(*cur).elided = true
		}
		return nil
	}
	if *cur != nil {
		s := *cur
		switch {
		case t == s.kind.String()+" END":
			p.endSection(s, "")
			*cur = nil
			return nil
		case !p.ex.header && recordStart(t):
			// An excerpt that shows a table without its END line,
			// then the next record (the agent manual's examples).
			p.endSection(s, s.kind.String())
			*cur = nil
		default:
			return p.sectionLine(s, n, line)
		}
	}
	if *inTrace {
		done, err := p.traceLine(n, line, t)
		if done || err != nil {
			return err
		}
		p.endTrace(*traceSerial)
		*inTrace = false
	}
	switch {
	case t == "":
		return nil
	case strings.HasPrefix(t, "TRACE "):
		serial, thread, ok := parseTraceHeader(t)
		if !ok {
			return syntaxErr(n, "malformed TRACE header", line)
		}
		p.records["TRACE"]++
		*inTrace, *traceSerial = true, serial
		p.frames = p.frames[:0]
		if thread != 0 {
			p.traceThread[serial] = thread
		}
		return nil
	case strings.HasPrefix(t, "THREAD START "):
		return p.threadStart(n, t)
	case strings.HasPrefix(t, "THREAD END "):
		p.records["THREAD END"]++
		if _, ok := parseThreadEnd(t); !ok {
			return syntaxErr(n, "malformed THREAD END", line)
		}
		return nil
	case strings.HasPrefix(t, "WAIT: "), strings.HasPrefix(t, "WAITED: "),
		strings.HasPrefix(t, "SLEEP: "), strings.HasPrefix(t, "EXIT: "):
		return p.monitorEvent(n, t)
	}
	if kind, rest, ok := sectionBegin(t); ok {
		s, err := p.beginSection(n, kind, rest, line)
		if err != nil {
			return err
		}
		*cur = s
		return nil
	}
	p.g.SoftFail(graph.SoftUnknownLine)
	return nil
}

// traceLine handles a line while a TRACE's frames are being read: a
// frame (tab- or space-indented as the agents and manuals print them, or
// flush left when it parses as one) or `<empty>`. done is false when the
// line is not part of the trace: a blank line or the next record.
func (p *parser) traceLine(n int, line, t string) (done bool, err error) {
	if t == "" || recordStart(t) {
		return false, nil
	}
	if t == "<empty>" {
		return true, nil
	}
	f, ok := parseFrame(t)
	if ok {
		if i := strings.IndexByte(t, '('); strings.IndexByte(t[:i], '/') >= 0 {
			p.ex.jvmpi = true // JVMPI-era names: sun/tools/java/Scanner.scan
		}
		p.frames = append(p.frames, p.g.Frame(f))
		return true, nil
	}
	if line[0] == '\t' || line[0] == ' ' {
		return true, syntaxErr(n, "malformed frame", line)
	}
	return false, nil
}

// endSection marks a section complete; noEnd names it when it had no END
// line (an excerpt).
func (p *parser) endSection(s *section, noEnd string) {
	s.complete = true
	p.records[s.kind.String()]++
	if noEnd != "" {
		p.ex.noEnd = noEnd
	}
}

// endTrace interns the frames read for a trace.
func (p *parser) endTrace(serial uint32) {
	p.traces[serial] = p.g.Stack(p.frames)
	p.frames = p.frames[:0]
}

// beginSection opens a section, starting a new dump when this kind was
// already seen in the current one.
func (p *parser) beginSection(n int, kind sectionKind, rest, line string) (*section, error) {
	if p.dump == 0 || p.seen[kind] {
		p.dump++
		p.seen = [numSectionKinds]bool{}
	}
	p.seen[kind] = true
	s := &section{kind: kind, line: n, dump: p.dump}
	// Header details: "(total = N)", "(total = N ms)", "(N objects, M bytes)",
	// "(ordered by …)", then the ctime date; MONITOR DUMP has none.
	if kind != secMonitorDump {
		inner, date, ok := parseParen(rest)
		if !ok {
			return nil, syntaxErr(n, "malformed "+kind.String()+" header", line)
		}
		if t, ok := parseCTime(date); ok {
			s.when = t
		}
		switch kind {
		case secCPUSamples, secCPUTime, secMonitorTime:
			v, okPrefix := strings.CutPrefix(inner, "total = ")
			v = strings.TrimSuffix(v, " ms")
			if s.total, ok = parseUint(v); !ok || !okPrefix {
				return nil, syntaxErr(n, "malformed total in "+kind.String()+" header", line)
			}
			s.hasTotal = true
		case secHeapDump:
			objs, bytes, ok := strings.Cut(inner, " objects, ")
			bytes, ok2 := strings.CutSuffix(bytes, " bytes")
			var ok3, ok4 bool
			s.total, ok3 = parseUint(objs)
			s.totalBytes, ok4 = parseUint(bytes)
			if !ok || !ok2 || !ok3 || !ok4 || objs == "" || bytes == "" {
				return nil, syntaxErr(n, "malformed HEAP DUMP header", line)
			}
			s.hasTotal = true
			s.heap = map[heapKey]int{}
			s.heapRecs = map[string]int64{}
		}
	} else {
		s.monitor = map[uint32]string{}
		s.openWait = make(map[uint32]string, len(p.openWait))
		for k, v := range p.openWait {
			s.openWait[k] = v
		}
	}
	p.sections = append(p.sections, s)
	return s, nil
}

// sectionLine handles one line inside a section.
func (p *parser) sectionLine(s *section, n int, line string) error {
	switch s.kind {
	case secCPUSamples, secCPUTime, secMonitorTime:
		return p.rankedRow(s, n, line)
	case secSites:
		return p.siteRow(s, n, line)
	case secHeapDump:
		return p.heapLine(s, n, line)
	case secMonitorDump:
		return p.monitorDumpLine(s, n, line)
	}
	return nil
}

// parseParen splits `(inner) rest` into inner and rest.
func parseParen(s string) (inner, rest string, ok bool) {
	if !strings.HasPrefix(s, "(") {
		return "", "", false
	}
	end := strings.IndexByte(s, ')')
	if end < 0 {
		return "", "", false
	}
	return s[1:end], strings.TrimSpace(s[end+1:]), true
}

// parseCTime parses a C ctime() date, `Sat Nov 21 22:43:29 2026`. The
// zone is the writer's local one, unknown here: the time is read as UTC.
func parseCTime(s string) (time.Time, bool) {
	t, err := time.Parse("Mon Jan _2 15:04:05 2006", strings.TrimSpace(s))
	return t, err == nil
}
