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
	head, _ := br.Peek(64)
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
		err = p.parseReport()
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
}

// parseReport reads a JAVA PROFILE text report.
func (p *parser) parseReport() error {
	line, _ := p.lr.next()
	p.g.Source.Format = "hprof-text"
	p.g.Source.Writer = "hprof agent"
	version, created, _ := strings.Cut(line, createdMark)
	p.g.Source.Version = version
	if t, ok := parseCTime(created); ok {
		p.g.Source.Time = t
	}
	// The prelude: everything up to the separator line.
	for {
		line, ok := p.lr.next()
		if !ok {
			if p.lr.err != nil {
				return p.lr.err
			}
			p.g.Damage = fmt.Errorf("%w: the file ends inside the prelude, before the %q line", ErrTruncated, separator)
			p.g.Lost = "every record: the writer stopped before the first one"
			return nil
		}
		if line == separator {
			break
		}
	}
	if err := p.readRecords(); err != nil {
		return err
	}
	p.g.StackBudget = graph.StackBudgetFor(p.lr.bytes)
	return p.build()
}

// readRecords reads every record after the prelude.
func (p *parser) readRecords() error {
	var cur *section // the open section, if any
	inTrace := false
	var traceSerial uint32
	cutLine := 0 // line the writer stopped in the middle of, if any
	for {
		line, ok := p.lr.next()
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
	case cur != nil:
		p.g.Damage = fmt.Errorf("%w: the %s section begun at line %d has no END line%s", ErrTruncated, cur.kind, cur.line, cut)
		p.g.Lost = fmt.Sprintf("the incomplete %s section of dump %d (%d rows read, not used) and anything the writer had not flushed",
			cur.kind, cur.dump, len(cur.rows)+len(cur.threads)+int(cur.heapRecs["OBJ"]+cur.heapRecs["ARR"]))
	case cutLine > 0:
		p.g.Damage = fmt.Errorf("%w: line %d is cut short", ErrTruncated, cutLine)
		p.g.Lost = fmt.Sprintf("the record on line %d and anything the writer had not flushed", cutLine)
	case p.lr.partial:
		p.g.Damage = fmt.Errorf("%w: the last line has no newline", ErrTruncated)
		p.g.Lost = "possibly the end of the last record"
	}
	return nil
}

// line handles one line after the prelude.
func (p *parser) line(line string, cur **section, inTrace *bool, traceSerial *uint32) error {
	n := p.lr.n
	if *cur != nil {
		s := *cur
		if line == s.kind.String()+" END" {
			s.complete = true
			p.records[s.kind.String()]++
			*cur = nil
			return nil
		}
		return p.sectionLine(s, n, line)
	}
	if *inTrace {
		if rest, ok := strings.CutPrefix(line, "\t"); ok {
			if rest == "<empty>" {
				return nil
			}
			f, ok := parseFrame(rest)
			if !ok {
				return syntaxErr(n, "malformed frame", line)
			}
			p.frames = append(p.frames, p.g.Frame(f))
			return nil
		}
		p.endTrace(*traceSerial)
		*inTrace = false
	}
	switch {
	case line == "":
		return nil
	case strings.HasPrefix(line, "TRACE "):
		serial, thread, ok := parseTraceHeader(line)
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
	case strings.HasPrefix(line, "THREAD START "):
		return p.threadStart(n, line)
	case strings.HasPrefix(line, "THREAD END "):
		p.records["THREAD END"]++
		if _, ok := parseThreadEnd(line); !ok {
			return syntaxErr(n, "malformed THREAD END", line)
		}
		return nil
	case strings.HasPrefix(line, "WAIT: "), strings.HasPrefix(line, "WAITED: "),
		strings.HasPrefix(line, "SLEEP: "), strings.HasPrefix(line, "EXIT: "):
		return p.monitorEvent(n, line)
	}
	if kind, rest, ok := sectionBegin(line); ok {
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
