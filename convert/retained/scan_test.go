package retained

import (
	"errors"
	"strings"
	"testing"

	"github.com/hprof2pprof/hprof2pprof/convert/retained/internal/domtree"
)

// TestFinishGraphMissing checks that objects the first pass found and
// the second never filled are reported (the input changed between them).
func TestFinishGraphMissing(t *testing.T) {
	g := domtree.Graph{Start: make([]uint32, 4), Deg: make([]uint8, 4), Wide: map[uint32]uint32{}}
	for _, v := range []uint32{0, 2} {
		g.SetEnd(v, 0, &g.Wide) // filled, no references
	}
	s := &scanner{g: g}
	err := s.finishGraph()
	if !errors.Is(err, ErrChanged) || !strings.Contains(err.Error(), "2 objects") {
		t.Fatalf("two objects never filled: %v", err)
	}
	s.g.SetEnd(1, 0, &s.g.Wide)
	s.g.SetEnd(3, 0, &s.g.Wide)
	if err := s.finishGraph(); err != nil {
		t.Fatalf("all filled: %v", err)
	}
}
