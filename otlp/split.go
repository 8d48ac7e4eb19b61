package otlp

import (
	"fmt"

	collectorpb "go.opentelemetry.io/proto/otlp/collector/profiles/v1development"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
)

// Limits bound what one request and one profile may hold, and how fast
// requests may follow each other. Zero fields are no limit.
type Limits struct {
	// MaxSamples bounds the samples of one profile.
	MaxSamples int
	// MaxBytes bounds one profile's size as the backend stores it (its
	// pprof encoding, estimated from the frames and samples it holds).
	MaxBytes int
	// Burst bounds the estimated size of one request: the burst of the
	// backend's rate limiter, which refuses any request larger than it.
	Burst int
	// Rate is the bytes per second requests may carry on average.
	Rate int
}

// PyroscopeLimits are Grafana Pyroscope's default per-tenant limits:
// 16,000 samples and 4 MiB per profile (validation.max-profile-*), an
// ingestion rate of 4 MiB/s with a 2 MiB burst (distributor.ingestion-*).
var PyroscopeLimits = Limits{MaxSamples: 16000, MaxBytes: 4 << 20, Burst: 2 << 20, Rate: 4 << 20}

// sizeMargin keeps estimates this far under each limit: the estimate
// follows the backend's encoding closely but not to the byte.
const sizeMargin = 0.85

// Part is one request: a whole view of one input, or one part of a view
// too large for the limits.
type Part struct {
	Source   string // the input's path
	View     string
	Index    int // 1-based part of the view
	Count    int // parts of the view (1: the whole view)
	Profiles int
	Samples  int
	Bytes    int // estimated size as the backend stores it
	Req      *collectorpb.ExportProfilesServiceRequest
}

// Split builds one request per view of g (the named views; every view
// when none), each with its own dictionary. A view whose profiles would
// exceed lim is split into parts: its samples are cut into consecutive
// runs, and every part is a complete profile set of the same types and
// time, so a backend that sums the profiles of a series (Pyroscope does)
// shows the same totals and the same stacks; nothing is dropped.
func Split(g *graph.Graph, views []string, opts Options, lim Limits) ([]Part, error) {
	if g == nil {
		return nil, ErrNoInput
	}
	opts.Views = views
	sel, err := (&builder{opts: opts}).views(g)
	if err != nil {
		return nil, err
	}
	var parts []Part
	for _, v := range sel {
		nprof := len(v.SampleTypes)
		if opts.Store != nil {
			nprof = len(storeProfiles(v))
		}
		runs, err := cutView(g, v, opts.Store, lim, max(nprof, 1))
		if err != nil {
			return nil, fmt.Errorf("%s: view %s: %w", sourceName(g), v.Name, err)
		}
		for i, r := range runs {
			sub := *v
			sub.Samples = v.Samples[r.from:r.to]
			b := NewBuilder(opts)
			if len(runs) > 1 {
				b.b.part = i + 1
			}
			if err := b.addViews(g, []*graph.View{&sub}); err != nil {
				return nil, err
			}
			p := Part{Source: g.Source.Path, View: v.Name, Index: i + 1, Count: len(runs), Bytes: r.bytes * nprof, Req: b.Request()}
			for _, sp := range p.Req.ResourceProfiles[0].ScopeProfiles {
				for _, pr := range sp.Profiles {
					p.Profiles++
					p.Samples += len(pr.Samples)
				}
			}
			parts = append(parts, p)
		}
	}
	return parts, nil
}

// run is a run of a view's samples that fits the limits.
type run struct {
	from, to int
	bytes    int // estimated size of one profile of the run
}

// cutView cuts v's samples into runs whose profiles stay under lim; a
// request of one run holds nprof profiles.
func cutView(g *graph.Graph, v *graph.View, st *StoreOptions, lim Limits, nprof int) ([]run, error) {
	budget := lim.MaxBytes
	if lim.Burst > 0 && (budget == 0 || lim.Burst/nprof < budget) {
		budget = lim.Burst / nprof
	}
	base := costProfile + 2*len(g.Source.Path)
	if limit := budget; limit > 0 {
		budget = int(float64(limit)*sizeMargin) - base
		if budget <= 0 {
			return nil, fmt.Errorf("a limit of %d bytes per profile leaves no room for samples (a profile takes about %d bytes before any)", limit, base)
		}
	}
	e := newEstimator(g, st)
	var runs []run
	cur := run{}
	for i, s := range v.Samples {
		c := e.add(s)
		full := lim.MaxSamples > 0 && i-cur.from >= lim.MaxSamples
		if budget > 0 && cur.bytes+c > budget && i > cur.from {
			full = true
		}
		if full {
			cur.to = i
			runs = append(runs, cur)
			e.reset()
			c = e.add(s)
			cur = run{from: i}
		}
		if budget > 0 && c > budget {
			return nil, fmt.Errorf("sample %d alone is about %d bytes, over the %d-byte limit for one profile", i, c, budget)
		}
		cur.bytes += c
	}
	cur.to = len(v.Samples)
	runs = append(runs, cur)
	for i := range runs {
		runs[i].bytes += base
	}
	return runs, nil
}

// estimator adds up what a run of samples costs in the pprof encoding a
// backend converts each profile to: per sample its location ids, value
// and labels; per new frame a location, a function and its strings; per
// new label string its bytes.
type estimator struct {
	g      *graph.Graph
	st     *StoreOptions
	frames map[graph.FrameID]bool
	strs   map[string]bool
}

func newEstimator(g *graph.Graph, st *StoreOptions) *estimator {
	e := &estimator{g: g, st: st}
	e.reset()
	return e
}

func (e *estimator) reset() {
	e.frames = map[graph.FrameID]bool{}
	e.strs = map[string]bool{}
}

// Encoding costs in bytes, rounded up: a sample's framing and value, one
// location id, one label, a location with its line, a function, and one
// string's framing; a profile's own records and the labels of its series
// (the resource's attributes, the file path twice among them).
const (
	costProfile  = 1024
	costSample   = 16
	costLocID    = 3
	costLabel    = 8
	costLocation = 14
	costFunction = 12
	costString   = 3
)

func (e *estimator) str(s string) int {
	if e.strs[s] {
		return 0
	}
	e.strs[s] = true
	return costString + len(s)
}

func (e *estimator) add(s graph.Sample) int {
	c := costSample
	if int(s.Stack) < len(e.g.Stacks) {
		fs := e.g.Stacks[s.Stack]
		c += costLocID * max(len(fs), 2)
		for _, f := range fs {
			if e.frames[f] || int(f) >= len(e.g.Frames) {
				continue
			}
			e.frames[f] = true
			fr := e.g.Frames[f]
			c += costLocation + costFunction + e.str(fr.Function()) + e.str(fr.SystemName()) + e.str(fr.File)
		}
	}
	for _, l := range s.Labels {
		if e.st != nil && !e.st.keepLabel(l.Key) && l.Key != graph.LabelThread {
			continue
		}
		c += costLabel + e.str(AttributeKey(l.Key)) + e.str(l.Str)
	}
	return c
}
