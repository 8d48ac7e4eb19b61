package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
)

// Suspects writes the leak suspects report r of input name: format
// "text" for a terminal, "md" (Markdown, for a ticket) or "json".
func Suspects(w io.Writer, name string, r *graph.SuspectReport, format string) error {
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			File string `json:"file"`
			*graph.SuspectReport
		}{name, r})
	}
	s := &styler{md: format == "md"}
	s.head(1, "Leak suspects: "+name)
	s.line(fmt.Sprintf("Heap dump %d: %s reachable in %d objects; a suspect retains at least %s (%.0f%%).",
		r.Dump, bytes(r.Reachable), r.Objects, bytes(r.Threshold), 100*r.Share))
	if r.Class != "" {
		s.classPaths(r)
	} else {
		s.suspects(r)
	}
	for _, c := range r.Comments {
		s.line(c)
	}
	_, err := io.WriteString(w, s.b.String())
	return err
}

// Missing says why g, converted for a suspects report, has none: the
// note of the analysis that failed, or that the input holds no heap dump.
func Missing(g *graph.Graph) error {
	for _, n := range g.Source.Notes {
		if strings.HasPrefix(n, "retained view not computed: ") || strings.HasPrefix(n, "suspects not found: ") {
			return errors.New("no suspects report: " + n[strings.Index(n, ": ")+2:])
		}
	}
	if g.Damage != nil {
		return fmt.Errorf("no suspects report: the input is damaged before its heap dump is complete: %w", g.Damage)
	}
	return errors.New("no suspects report: the input holds no heap dump")
}

// styler writes text or Markdown.
type styler struct {
	md bool
	b  strings.Builder
}

func (s *styler) head(level int, t string) {
	if s.md {
		fmt.Fprintf(&s.b, "\n%s %s\n\n", strings.Repeat("#", level), t)
		return
	}
	if level > 1 {
		s.b.WriteString("\n")
	}
	fmt.Fprintf(&s.b, "%s\n", t)
}

func (s *styler) line(t string) { fmt.Fprintf(&s.b, "%s\n", t) }

// item writes a list item at depth (0: top).
func (s *styler) item(depth int, t string) {
	if s.md {
		fmt.Fprintf(&s.b, "%s- %s\n", strings.Repeat("  ", depth), t)
		return
	}
	fmt.Fprintf(&s.b, "%s%s\n", strings.Repeat("  ", depth+1), t)
}

// code marks a name as code in Markdown.
func (s *styler) code(t string) string {
	if s.md {
		return "`" + strings.ReplaceAll(t, "`", "'") + "`"
	}
	return t
}

func (s *styler) object(o graph.HeapObject) string {
	return fmt.Sprintf("%s @ 0x%x (%s, retains %s)", s.code(o.Class), o.ID, bytes(o.Shallow), bytes(o.Retained))
}

func (s *styler) suspects(r *graph.SuspectReport) {
	if len(r.Suspects) == 0 {
		s.line(fmt.Sprintf("\nNo suspect: no single object and no group of one class's objects retains %s or more; the heap has no dominant retainer.", bytes(r.Threshold)))
		return
	}
	for i, sp := range r.Suspects {
		what := "one " + s.code(sp.Object.Class) + fmt.Sprintf(" @ 0x%x retains", sp.Object.ID)
		if sp.Group {
			what = fmt.Sprintf("%d instances of %s retain", sp.Instances, s.code(sp.Object.Class))
		}
		s.head(2, fmt.Sprintf("Suspect %d: %s %s (%.1f%% of the heap)", i+1, what, bytes(sp.Retained), 100*sp.Share))
		if sp.Group {
			s.line("The largest of them: " + s.object(sp.Object))
		}
		acc := sp.Chain[len(sp.Chain)-1]
		s.line("Accumulation point: " + s.object(acc))
		if len(sp.Chain) > 1 {
			s.line("Dominator chain down to it:")
			for _, o := range sp.Chain {
				s.item(0, s.object(o))
			}
		}
		if len(sp.Holds) > 0 {
			s.line("It holds:")
			for _, h := range sp.Holds {
				s.item(0, fmt.Sprintf("%d × %s retaining %s", h.Objects, s.code(h.Class), bytes(h.Retained)))
			}
		}
		s.rootPaths("Shortest paths from GC roots, one per root, nearest first:", sp.Paths)
	}
}

func (s *styler) rootPaths(title string, ps []graph.RootPath) {
	if len(ps) == 0 {
		return
	}
	s.line(title)
	for _, p := range ps {
		if p.Root == p.Kind {
			s.item(0, p.Kind)
		} else {
			s.item(0, fmt.Sprintf("%s: %s", p.Kind, s.code(p.Root)))
		}
		for i, st := range p.Steps {
			if i == 0 {
				s.item(1, s.object(st.Object))
				continue
			}
			s.item(1, fmt.Sprintf("↳ %s → %s", s.code(st.Field), s.object(st.Object)))
		}
	}
}

func (s *styler) classPaths(r *graph.SuspectReport) {
	s.head(2, fmt.Sprintf("Paths to %s: %d reachable instances", s.code(r.Class), r.Instances))
	if r.Instances == 0 {
		s.line("No reachable object of a class matching the pattern.")
		return
	}
	s.line("Shortest paths from GC roots, merged:")
	for _, m := range r.Merged {
		s.item(0, fmt.Sprintf("%d × %s (%s shallow, retaining %s)", m.Objects, s.code(m.Class), bytes(m.Shallow), bytes(m.Retained)))
		for _, f := range m.Frames {
			s.item(1, s.code(f))
		}
	}
	if r.Omitted > 0 {
		s.line(fmt.Sprintf("(%d more paths; --limit lists more)", r.Omitted))
	}
	s.rootPaths("The shortest path to an instance from each root, nearest first:", r.RootPaths)
}

// bytes is n in B, KiB, MiB or GiB.
func bytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
