package batch

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hprof2pprof/hprof2pprof/convert"
)

// TestHeldViewsFromRecords: the views an input's records make are the
// views the decoder builds when asked for all of them, for every input
// in testdata; asked for one view, the others are still named.
func TestHeldViewsFromRecords(t *testing.T) {
	paths, _ := filepath.Glob(testdata("*"))
	n := 0
	for _, p := range paths {
		base := filepath.Base(p)
		if fi, err := os.Stat(p); err != nil || fi.IsDir() || strings.HasSuffix(base, ".md") || strings.HasSuffix(base, ".oracle") ||
			strings.HasSuffix(base, ".raw") || strings.Count(base, ".txt") > 1 || strings.HasSuffix(base, "-histo.txt") {
			continue
		}
		g, err := convert.ConvertFile(context.Background(), p, convert.Options{})
		if err != nil || g.Damage != nil {
			continue
		}
		n++
		built := ViewNames(g)
		g.Views = nil
		got := heldViews(g)
		slices.Sort(got)
		slices.Sort(built)
		if !slices.Equal(got, built) {
			t.Errorf("%s: records make %v, the decoder built %v", base, got, built)
		}
	}
	t.Logf("%d inputs", n)
	if n < 20 {
		t.Fatalf("only %d inputs checked", n)
	}
}
