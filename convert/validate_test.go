package convert

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFixturesValidate: the graph of every input in testdata keeps the
// invariants the emitters rely on (graph.Validate), whichever decoder
// and path made it.
func TestFixturesValidate(t *testing.T) {
	entries, err := os.ReadDir("../testdata")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !isInput(name) {
			continue
		}
		n++
		t.Run(name, func(t *testing.T) {
			g, err := ConvertFile(t.Context(), filepath.Join("../testdata", name), Options{})
			if err != nil {
				t.Skipf("not converted: %v", err) // the error tests cover these
			}
			if err := g.Validate(); err != nil {
				t.Error(err)
			}
		})
	}
	if n < 10 {
		t.Fatalf("only %d inputs found in testdata", n)
	}
}

// isInput reports whether a testdata name is an input: not a document,
// not an oracle directory, not an expected view (NAME.<view>.txt).
func isInput(name string) bool {
	if strings.HasPrefix(name, ".") || strings.HasSuffix(name, ".md") || strings.HasSuffix(name, ".raw") {
		return false // .raw: agent socket captures, read by the stream tests
	}
	for _, v := range []string{"cpu", "alloc", "heap", "threads", "cputime", "monitor", "cpuold", "retained"} {
		if strings.HasSuffix(name, "."+v+".txt") {
			return false
		}
	}
	return true
}
