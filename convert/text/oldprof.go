package text

import (
	"fmt"
	"strings"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
)

const (
	unknownCaller = "<unknown caller>"
	unknownCallee = "<unknown callee>"
)

// parseOld reads cpu=old output: a `count callee caller time` header, then
// rows like
//
//	1271240 CpuWork.fib(I)I CpuWork.fib(I)I 87026
//	7 java.lang.Thread.run()V <unknown caller> 33889
//
// Each row becomes a two-frame stack (callee leaf, caller root) with
// calls/count and time/nanoseconds; the agent prints the time in ms.
func (p *parser) parseOld() error {
	p.g.Source.Format = "hprof-cpu-old"
	p.g.Source.Writer = "hprof agent (cpu=old)"
	p.lr.next() // the header, checked by Sniff
	v := graph.NewCPUOldView()
	agg := graph.NewAggregator(v)
	var rows, calls int64
	for {
		line, ok := p.lr.next()
		if !ok {
			if p.lr.err != nil {
				return p.lr.err
			}
			break
		}
		if line == "" {
			continue
		}
		st, count, ms, ok := p.oldRow(line)
		if !ok {
			if p.lr.partial {
				p.g.Damage = fmt.Errorf("%w: line %d is cut short", ErrTruncated, p.lr.n)
				p.g.Lost = "the last row"
				break
			}
			return syntaxErr(p.lr.n, "malformed cpu=old row", line)
		}
		rows++
		calls += count
		agg.Add(st, nil, count, ms*1_000_000)
	}
	p.records["cpu=old row"] = rows
	if rows == 0 && p.g.Damage == nil {
		p.g.Damage = fmt.Errorf("%w: cpu=old file without rows", ErrNoData)
		p.g.Lost = "everything the writer had not flushed"
	}
	v.Comments = append(v.Comments,
		fmt.Sprintf("cpu=old: %d caller→callee rows, %d calls; time is the agent's per-row cost in ms", rows, calls))
	p.g.AddView(v)
	p.g.Source.Dumps = 1
	return nil
}

// oldRow parses one cpu=old row.
func (p *parser) oldRow(line string) (graph.StackID, int64, int64, bool) {
	first := strings.IndexByte(line, ' ')
	lastSp := strings.LastIndexByte(line, ' ')
	if first <= 0 || lastSp <= first {
		return 0, 0, 0, false
	}
	count, ok1 := parseUint(line[:first])
	ms, ok2 := parseUint(line[lastSp+1:])
	if !ok1 || !ok2 {
		return 0, 0, 0, false
	}
	mid := line[first+1 : lastSp]
	var callee, caller string
	if rest, ok := strings.CutPrefix(mid, unknownCallee+" "); ok {
		callee, caller = unknownCallee, rest
	} else {
		var found bool
		callee, caller, found = strings.Cut(mid, " ")
		if !found {
			return 0, 0, 0, false
		}
	}
	var frames [2]graph.FrameID
	n := 0
	for _, m := range []string{callee, caller} {
		if m == unknownCaller {
			continue
		}
		var f graph.Frame
		if m == unknownCallee {
			f = graph.Frame{Kind: graph.KindRoot, Class: unknownCallee}
		} else {
			var ok bool
			if f, ok = parseMethodSig(m); !ok {
				return 0, 0, 0, false
			}
		}
		frames[n] = p.g.Frame(f)
		n++
	}
	return p.g.Stack(frames[:n]), count, ms, true
}
