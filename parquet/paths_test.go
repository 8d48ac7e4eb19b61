package parquet

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/hprof2pprof/hprof2pprof/convert"
	"github.com/hprof2pprof/hprof2pprof/convert/graph"
)

// TestPathsTableDuckDB converts the holders dump (testdata/src/holders)
// with the paths view and asks DuckDB which fields hold its objects:
// the answers are how the program holds them, known by hand, and the
// table's totals are the retained view's.
func TestPathsTableDuckDB(t *testing.T) {
	modules := duckdbModules(t)
	dump := filepath.Join(moduleRoot(t), "testdata", "jdk17-holders.hprof.gz")
	g, err := convert.ConvertFile(context.Background(), dump, convert.Options{Views: []string{graph.ViewPaths, graph.ViewRetained}})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := WriteDir(dir, Options{RowGroupRows: 100}, g); err != nil {
		t.Fatal(err)
	}
	res := runDuckDB(t, modules, []string{dir}, []namedQuery{
		{"held", `SELECT class, field, root, depth, sum(objects) AS n FROM paths
			WHERE class IN ('holders.Holders$StaticLeaf', 'holders.Holders$TlValue', 'holders.Holders$Listener', 'holders.Holders$CycleB',
				'holders.Holders$GarbageA', 'holders.Holders$WeakOnly')
			GROUP BY ALL ORDER BY class`},
		{"totals", `SELECT sum(objects) AS n, sum(shallow_bytes) AS b, sum(retained_bytes) AS r FROM paths`},
	})
	want := []string{
		"holders.Holders$CycleB|holders.Holders$CycleA.b|class holders.Holders|2|1",
		"holders.Holders$Listener|java.lang.Object[] [*]|class holders.Holders$Registry|3|5",
		"holders.Holders$StaticLeaf|java.lang.Object[] [*]|class holders.Holders|3|100",
		`holders.Holders$TlValue|java.util.HashMap$Node.value|thread "holder-thread"|7|10`,
	}
	got := res.rows(t, "held", "class", "field", "root", "depth", "n")
	if len(got) != len(want) {
		t.Fatalf("held: %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("held: %q, want %q", got[i], want[i])
		}
	}
	rt := g.View(graph.ViewRetained).Totals()
	tot := res.rows(t, "totals", "n", "b", "r")
	if w := []string{fmt.Sprintf("%d|%d|%d", rt[0], rt[1], rt[1])}; len(tot) != 1 || tot[0] != w[0] {
		t.Errorf("totals %v, the retained view's %v", tot, w)
	}
}
