package convert

import (
	"fmt"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/hprof"
	"github.com/hprof2pprof/hprof2pprof/convert/internal/frames"
)

// The alloc view: the ALLOC SITES record of the dump asked for, each
// site's trace with the allocated class as leaf.

// siteClass is the source name of the class an ALLOC SITES site
// allocates; what is wrong with it is a soft failure of g.
func siteClass(g *graph.Graph, sym *hprof.Symbols, site hprof.AllocSite) string {
	if site.ArrayType != 0 && site.ArrayType != hprof.TypeObject {
		class := site.ArrayType.JavaName() + "[]"
		if class == "[]" {
			g.SoftFail(graph.SoftSiteInvalidArrayType)
			class = fmt.Sprintf("array-type-%d[]", site.ArrayType)
		}
		return class
	}
	if obj, ok := sym.ClassSerial[site.ClassSerial]; ok {
		return sym.ClassName[obj]
	}
	g.SoftFail(graph.SoftSiteMissingClass)
	return fmt.Sprintf("unknown-class-serial-%d", site.ClassSerial)
}

// buildAlloc adds the alloc view of the ALLOC SITES s (a record of TIME
// t) to g.
func buildAlloc(g *graph.Graph, st *frames.Stacks, sym *hprof.Symbols, s *hprof.AllocSites, t uint32) {
	v := graph.NewAllocView()
	v.Time = g.Source.Time
	v.Duration = usec(t)
	agg := graph.NewAggregator(v)
	for _, site := range s.Sites {
		class := siteClass(g, sym, site)
		stack := g.WithLeaf(st.Stack(site.TraceSerial), class)
		agg.Add(stack, []graph.Label{{Key: graph.LabelClass, Str: class}},
			int64(site.AllocObjects), int64(site.AllocBytes), int64(site.LiveInstances), int64(site.LiveBytes))
	}
	g.SortSamples(v)
	v.Comments = append(v.Comments,
		fmt.Sprintf("ALLOC SITES totals: live %d bytes in %d instances; allocated %d bytes in %d instances; %d sites",
			s.LiveBytes, s.LiveInstances, s.AllocBytes, s.AllocInstances, len(s.Sites)))
	if len(s.Sites) > 0 {
		v.Comments = append(v.Comments, "the hprof agent lists only sites above its cutoff, so the sites may sum to less than the totals")
	}
	g.AddView(v)
}
