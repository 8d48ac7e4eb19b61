package graph

import (
	"slices"
	"strconv"
	"strings"
)

// CompareStacks orders two stacks as the strings of their frames would
// sort, each frame written "Function Signature File:Line;", without
// building those strings: sorting a view compares stacks O(n log n)
// times, and a deep stack's string can be long. Stacks that differ only
// in a line number sort apart; stacks whose frames differ only in the
// exact names of normalised classes (Frame.RawClass) sort by those.
func (g *Graph) CompareStacks(a, b StackID) int {
	if a == b {
		return 0
	}
	x, y := stackPieces{g: g, s: g.Stacks[a]}, stackPieces{g: g, s: g.Stacks[b]}
	for {
		cx, okx := x.next()
		cy, oky := y.next()
		switch {
		case !okx && !oky:
			return g.compareRaw(a, b)
		case !okx:
			return -1
		case !oky:
			return 1
		case cx != cy:
			if cx < cy {
				return -1
			}
			return 1
		}
	}
}

// stackPieces yields the bytes of a stack's sort key one at a time.
type stackPieces struct {
	g     *Graph
	s     Stack
	frame int
	part  int // index into the parts of the current frame
	i     int // byte within the part
	line  string
}

// The parts of one frame: class, ".", method, " ", signature, " ",
// file, ":", line, ";".
const frameParts = 10

func (p *stackPieces) piece(f *Frame) string {
	method := f.Kind == KindMethod && f.Method != ""
	switch p.part {
	case 0:
		return f.Class
	case 1:
		if method {
			return "."
		}
	case 2:
		if method {
			return f.Method
		}
	case 3, 5:
		return " "
	case 4:
		return f.Signature
	case 6:
		return f.File
	case 7:
		return ":"
	case 8:
		if p.line == "" {
			p.line = strconv.Itoa(int(f.Line))
		}
		return p.line
	case 9:
		return ";"
	}
	return ""
}

func (p *stackPieces) next() (byte, bool) {
	for p.frame < len(p.s) {
		s := p.piece(&p.g.Frames[p.s[p.frame]])
		if p.i < len(s) {
			p.i++
			return s[p.i-1], true
		}
		p.i = 0
		if p.part++; p.part == frameParts {
			p.part, p.line = 0, ""
			p.frame++
		}
	}
	return 0, false
}

// SortSamples puts a view's samples in the canonical order: by value,
// largest first (the last value type first), then by stack, then by
// labels, so outputs are stable run to run.
func (g *Graph) SortSamples(v *View) {
	slices.SortStableFunc(v.Samples, func(a, b Sample) int {
		for i := len(a.Values) - 1; i >= 0; i-- {
			if a.Values[i] != b.Values[i] {
				if a.Values[i] > b.Values[i] {
					return -1
				}
				return 1
			}
		}
		if c := g.CompareStacks(a.Stack, b.Stack); c != 0 {
			return c
		}
		return strings.Compare(labelKey(a.Labels), labelKey(b.Labels))
	})
}

func labelKey(ls []Label) string {
	var b strings.Builder
	for _, l := range ls {
		b.WriteString(l.Key + "=" + l.Str + ";")
	}
	return b.String()
}

// SortThreads orders threads by name, then serial, then object ID.
func SortThreads(ts []Thread) {
	slices.SortStableFunc(ts, func(a, b Thread) int {
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
