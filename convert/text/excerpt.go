package text

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
)

// maxListed bounds the line numbers and trace serials a note lists.
const maxListed = 8

// excerpt records what an input lacks compared with a whole report, and
// which agent's syntax it uses, for info (Source.Notes).
type excerpt struct {
	header    bool // starts with the `JAVA PROFILE` header line
	separator bool // has the `--------` line that ends the prelude
	// skipped counts the non-blank lines before the first record: the
	// prelude, or other text in an excerpt.
	skipped     int
	firstRecord int // line of the first record when there is no separator

	elisions    int   // `...` lines
	elisionAt   []int // their line numbers, the first maxListed
	noEnd       string
	missing     map[uint32]bool // trace serials rows name that the file lacks
	jvmpi       bool            // the prelude names the JVMPI-era agent
	jvmti       bool            // the prelude names the JVMTI agent
	rowsMissing int             // rows naming a missing trace
}

// elided notes a `...` line.
func (e *excerpt) elided(line int) {
	e.elisions++
	if len(e.elisionAt) < maxListed {
		e.elisionAt = append(e.elisionAt, line)
	}
}

// isExcerpt reports whether the input is a part of a report: no header,
// or rows or records left out. A missing trace is then expected, not a
// soft failure.
func (e *excerpt) isExcerpt() bool {
	return !e.header || e.elisions > 0 || e.noEnd != ""
}

// missingTrace notes a row naming a trace the file does not hold.
func (p *parser) missingTrace(trace uint32) {
	if !p.ex.isExcerpt() {
		p.g.SoftFail(graph.SoftRowMissingTrace)
		return
	}
	if p.ex.missing == nil {
		p.ex.missing = map[uint32]bool{}
	}
	p.ex.missing[trace] = true
	p.ex.rowsMissing++
}

// prelude looks at a prelude line for the agent that wrote it.
func (e *excerpt) prelude(line string) {
	switch {
	case strings.Contains(line, "Header for -Xhprof ASCII Output"):
		e.jvmpi = true // JDK 1.2–1.4
	case strings.Contains(line, "JVMTI based"):
		e.jvmti = true // JDK 5+
	}
}

// describe sets the writer and the notes that say what kind of text this
// is and what it lacks. The notes on missing traces are added by
// describeTraces once the views are built.
func (p *parser) describe() {
	e := &p.ex
	src := &p.g.Source
	switch {
	case e.jvmpi:
		src.Writer = "hprof agent (JVMPI, JDK 1.2–1.4)"
	case e.jvmti:
		src.Writer = "hprof agent (JVMTI, JDK 5+)"
	}
	var lacks []string
	switch {
	case !e.header:
		lacks = append(lacks, "no `JAVA PROFILE` header and no prelude")
	case !e.separator && e.skipped == 0:
		lacks = append(lacks, "no prelude: the records follow the header line")
	case !e.separator:
		lacks = append(lacks, fmt.Sprintf("no `--------` line after the prelude: the records start at line %d", e.firstRecord))
	}
	if !e.header && e.skipped > 0 {
		lacks = append(lacks, fmt.Sprintf("%d line%s of other text before the first record (line %d), skipped", e.skipped, plural(e.skipped), e.firstRecord))
	}
	if e.elisions > 0 {
		lacks = append(lacks, fmt.Sprintf("%d `...` line%s where rows or records were left out (line%s %s)",
			e.elisions, plural(e.elisions), plural(e.elisions), joinInts(e.elisionAt, e.elisions)))
	}
	if e.noEnd != "" {
		lacks = append(lacks, fmt.Sprintf("the %s section has no END line; its rows are used", e.noEnd))
	}
	if len(lacks) > 0 {
		kind := "excerpt"
		if !e.isExcerpt() {
			kind = "incomplete report"
		}
		src.Notes = append(src.Notes, kind+": "+strings.Join(lacks, "; "))
	}
}

// describeTraces adds the note on traces the rows name and the excerpt
// lacks.
func (p *parser) describeTraces() {
	e := &p.ex
	if len(e.missing) == 0 {
		return
	}
	serials := make([]int, 0, len(e.missing))
	for s := range e.missing {
		serials = append(serials, int(s))
	}
	sort.Ints(serials)
	p.g.Source.Notes = append(p.g.Source.Notes, fmt.Sprintf(
		"excerpt: %d row(s) name %d trace(s) the text does not hold (%s): their stacks are the row's method alone (CPU tables) or the class alone (SITES, HEAP DUMP)",
		e.rowsMissing, len(serials), "TRACE "+joinInts(serials, len(serials))))
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// joinInts lists the first maxListed numbers, then how many more.
func joinInts(nums []int, total int) string {
	var b strings.Builder
	for i, n := range nums {
		if i == maxListed {
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprint(&b, n)
	}
	if more := total - min(len(nums), maxListed); more > 0 {
		fmt.Fprintf(&b, " and %d more", more)
	}
	return b.String()
}
