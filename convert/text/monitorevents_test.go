package text

import (
	"strconv"
	"strings"
	"testing"
)

// TestMonitorEventsNoted: the monitor=y event lines (WAIT, WAITED, …) are
// in no view; info's notes and every view's comments say so, with their
// counts as in the file.
func TestMonitorEventsNoted(t *testing.T) {
	g, data := parseFixture(t, "combo-cpu-monitor-sites.monitorwork.jdk17.txt", Options{})
	var wait, waited int
	for _, line := range strings.Split(string(data), "\n") {
		switch {
		case strings.HasPrefix(line, "WAIT: "):
			wait++
		case strings.HasPrefix(line, "WAITED: "):
			waited++
		}
	}
	if wait == 0 || waited == 0 {
		t.Fatal("fixture has no WAIT/WAITED lines")
	}
	want := "monitor events not converted (no view shows them): " + strconv.Itoa(wait) + " WAIT, " + strconv.Itoa(waited) + " WAITED"
	has := func(ss []string) bool {
		for _, s := range ss {
			if strings.HasPrefix(s, want) {
				return true
			}
		}
		return false
	}
	if !has(g.Source.Notes) {
		t.Errorf("notes %q do not say %q", g.Source.Notes, want)
	}
	if len(g.Views) == 0 {
		t.Fatal("no views")
	}
	for _, v := range g.Views {
		if !has(v.Comments) {
			t.Errorf("view %s: comments %q do not say %q", v.Name, v.Comments, want)
		}
	}
	// A report without monitor events gets no such note.
	g, _ = parseFixture(t, "cpu-samples.cpuwork.jdk17.txt", Options{})
	for _, n := range g.Source.Notes {
		if strings.Contains(n, "monitor events") {
			t.Errorf("note %q on a report without monitor events", n)
		}
	}
}
