package convert

import (
	"strconv"
	"strings"
	"testing"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
)

// refKey is the sort key compareStacks must agree with, built the
// obvious way.
func refKey(g *graph.Graph, s graph.StackID) string {
	var b strings.Builder
	for _, id := range g.Stacks[s] {
		f := g.Frames[id]
		b.WriteString(f.Function() + " " + f.Signature + " " + f.File + ":" + strconv.Itoa(int(f.Line)) + ";")
	}
	return b.String()
}

func TestCompareStacksMatchesKeys(t *testing.T) {
	g := mustConvert(t, "../testdata/cpu-samples.cpuwork.jdk17.hprof", Options{})
	n := graph.StackID(len(g.Stacks))
	for a := graph.StackID(0); a < n; a++ {
		for b := graph.StackID(0); b < n; b++ {
			if got, want := g.CompareStacks(a, b), strings.Compare(refKey(g, a), refKey(g, b)); got != want {
				t.Fatalf("stacks %d and %d: %d, keys say %d", a, b, got, want)
			}
		}
	}
}
