package convert

import (
	"fmt"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/hprof"
)

// The alloc view: the ALLOC SITES record of the dump asked for, each
// site's trace with the allocated class as leaf.

// siteClass is the source name of the class an ALLOC SITES site
// allocates; what is wrong with it is a soft failure of g.
func (d *binDecoder) siteClass(g *graph.Graph, site hprof.AllocSite) string {
	if site.ArrayType != 0 && site.ArrayType != hprof.TypeObject {
		class := site.ArrayType.JavaName() + "[]"
		if class == "[]" {
			g.SoftFail(graph.SoftSiteInvalidArrayType)
			class = fmt.Sprintf("array-type-%d[]", site.ArrayType)
		}
		return class
	}
	if obj, ok := d.sym.ClassSerial[site.ClassSerial]; ok {
		return d.sym.ClassName[obj]
	}
	g.SoftFail(graph.SoftSiteMissingClass)
	return fmt.Sprintf("unknown-class-serial-%d", site.ClassSerial)
}

// buildAlloc adds the alloc view of the ALLOC SITES kept to g.
func (d *binDecoder) buildAlloc(g *graph.Graph) {
	if d.sites == nil {
		return
	}
	s := d.sites
	v := graph.NewAllocView()
	v.Time = g.Source.Time
	v.Duration = usec(d.sitesTime)
	agg := graph.NewAggregator(v)
	for _, site := range s.Sites {
		class := d.siteClass(g, site)
		st := g.WithLeaf(d.names.Stack(site.TraceSerial), class)
		agg.Add(st, []graph.Label{{Key: graph.LabelClass, Str: class}},
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
