package hprof

// SitesDelta turns the hprof agent's cumulative ALLOC SITES answers (a
// live connection asks for one per window) into growth per window. A
// site is keyed by its array type, class serial and trace serial; rows
// of one answer with the same key are summed first.
type SitesDelta struct {
	prev map[siteKey]siteCount
}

type siteKey struct {
	array BasicType
	class uint32
	trace uint32
}

type siteCount struct {
	allocObjects, allocBytes uint64
	liveObjects, liveBytes   uint64
}

// NewSitesDelta starts with no previous answer: the first delta is the
// whole first answer.
func NewSitesDelta() *SitesDelta { return &SitesDelta{prev: map[siteKey]siteCount{}} }

// Next returns cur with each site's allocation counts replaced by their
// growth since the previous answer and its live counts as cur gives
// them; sites with nothing to show are left out. A site missing from an
// answer (below the agent's cutoff) keeps its previous counts as the
// base of its next delta. kept is how many bytes of bases were added to
// what is held between answers; reset counts sites whose counters went
// back (the agent was reset): their delta is taken from zero.
func (sd *SitesDelta) Next(cur *AllocSites) (delta AllocSites, kept int64, reset int) {
	sums := map[siteKey]siteCount{}
	var order []siteKey
	for _, site := range cur.Sites {
		k := siteKey{site.ArrayType, site.ClassSerial, site.TraceSerial}
		c, seen := sums[k]
		if !seen {
			order = append(order, k)
			if _, known := sd.prev[k]; !known {
				kept += 48 // the base of the next delta, kept
			}
		}
		c.allocObjects += uint64(site.AllocObjects)
		c.allocBytes += uint64(site.AllocBytes)
		c.liveObjects += uint64(site.LiveInstances)
		c.liveBytes += uint64(site.LiveBytes)
		sums[k] = c
	}
	delta = *cur
	delta.Sites = make([]AllocSite, 0, len(order))
	for _, k := range order {
		c := sums[k]
		prev := sd.prev[k]
		if c.allocObjects < prev.allocObjects || c.allocBytes < prev.allocBytes {
			reset++
			prev = siteCount{}
		}
		sd.prev[k] = c
		site := AllocSite{
			ArrayType: k.array, ClassSerial: k.class, TraceSerial: k.trace,
			AllocObjects:  clampU32(c.allocObjects - prev.allocObjects),
			AllocBytes:    clampU32(c.allocBytes - prev.allocBytes),
			LiveInstances: clampU32(c.liveObjects),
			LiveBytes:     clampU32(c.liveBytes),
		}
		if site.AllocObjects|site.AllocBytes|site.LiveInstances|site.LiveBytes != 0 {
			delta.Sites = append(delta.Sites, site)
		}
	}
	return delta, kept, reset
}

func clampU32(v uint64) uint32 {
	if v > 1<<32-1 {
		return 1<<32 - 1
	}
	return uint32(v)
}
