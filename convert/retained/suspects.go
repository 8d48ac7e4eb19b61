package retained

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/retained/internal/domtree"
)

// Where the leak suspects are found (`hprof2pprof suspects`): from the
// dominator tree, the objects and class groups that retain more than a
// share of the reachable heap; down each one's dominator chain, the
// accumulation point; and, searching back from the suspect over the
// reversed strong graph, the shortest path from each kind of GC root.

// DefaultShare is the share of the reachable heap a suspect retains at
// least, unless asked otherwise.
const DefaultShare = 0.10

// accumulates is how much of an object's retained size the next object
// down its dominator chain must retain for the accumulation point to be
// further down.
const accumulates = 0.8

// maxChain bounds a dominator chain followed down (a long linked list).
const maxChain = 1000

// SuspectQuery says what report Result.Suspects makes.
type SuspectQuery struct {
	// Share is the smallest share of the reachable heap a suspect
	// retains (0: DefaultShare).
	Share float64
	// Class, when set, asks for the paths to the instances of the
	// classes it accepts (their Java names) instead of the suspects;
	// Pattern is how the user wrote it.
	Class   func(name string) bool
	Pattern string
	// Limit is how many merged paths to list (0: 20), Roots how many
	// paths from distinct roots (0: 10).
	Limit, Roots int
	// Normalize, when set, rewrites the class names the report shows
	// (javaname.Normalize: hidden and lambda classes run-independent).
	Normalize func(class string) string
}

// RootNamer names the roots of the dump's paths.
type RootNamer interface {
	Frames(g *graph.Graph, r Root) []graph.FrameID
	// Label is the root's frames as one line, their classes normalised
	// by norm.
	Label(g *graph.Graph, r Root, norm func(string) string) string
}

// staticKind is the kind of the paths that start at a class object:
// what its static fields hold.
const staticKind = "static field"

// Suspects makes the report q asks for. It needs an analysis made with
// Input.Suspects, and reads the dump once more (to name the fields of
// paths off the breadth-first tree) while the input is open.
func (r *Result) Suspects(ctx context.Context, g *graph.Graph, names RootNamer, q SuspectQuery) (*graph.SuspectReport, error) {
	h := r.holds
	if h == nil || h.rev == nil || (q.Class != nil && h.tree.order == nil) {
		return nil, fmt.Errorf("retained: suspects need an analysis made for them (Input.Suspects, SuspectsByClass)")
	}
	if q.Share <= 0 {
		q.Share = DefaultShare
	}
	if q.Limit <= 0 {
		q.Limit = 20
	}
	if q.Roots <= 0 {
		q.Roots = 10
	}
	if q.Normalize == nil {
		q.Normalize = func(c string) string { return c }
	}
	sr := &suspects{r: r, h: h, g: g, names: names, steps: map[uint64]int32{}, norm: q.Normalize}
	rep := &graph.SuspectReport{
		Objects:   int64(r.Stats.Reachable),
		Reachable: r.Stats.ReachableBytes,
		Share:     q.Share,
		Threshold: int64(math.Ceil(q.Share * float64(r.Stats.ReachableBytes))),
	}
	var pending []*[]graph.RootPath
	var paths [][][]uint32
	if q.Class != nil {
		rep.Class = q.Pattern
		targets := sr.instances(q.Class)
		rep.Instances = int64(len(targets))
		rep.Merged, rep.Omitted = sr.merged(targets, q.Limit)
		paths = append(paths, sr.rootPaths(targets, q.Roots))
		pending = append(pending, &rep.RootPaths)
	} else {
		rep.Suspects = sr.find(rep.Threshold)
		for i := range rep.Suspects {
			s := &rep.Suspects[i]
			v, _ := r.ids.lookup(s.Object.ID)
			paths = append(paths, sr.rootPaths([]uint32{v}, q.Roots))
			pending = append(pending, &s.Paths)
		}
	}
	if err := sr.nameSteps(ctx, paths); err != nil {
		return nil, err
	}
	for i, ps := range paths {
		for _, p := range ps {
			*pending[i] = append(*pending[i], sr.rootPath(p))
		}
	}
	return rep, nil
}

// suspects is the state of one report.
type suspects struct {
	r     *Result
	h     *holds
	g     *graph.Graph
	names RootNamer
	// steps are the slots of path steps off the tree: parent << 32 |
	// child → slot (slotUnset until the pass over the dump names it).
	steps map[uint64]int32
	norm  func(class string) string
}

// function is frame f's name, its class normalised.
func (sr *suspects) function(f graph.Frame) string {
	f.Class = sr.norm(f.Class)
	return f.Function()
}

func (sr *suspects) isClass(v uint32) bool { return sr.h.obj.class(v)&classObjFlag != 0 }

// object describes object v.
func (sr *suspects) object(v uint32) graph.HeapObject {
	c := sr.h.obj.class(v)
	name := sr.norm(sr.h.fields.classes[c&^classObjFlag].name)
	if c&classObjFlag != 0 {
		name = "class " + name
	}
	return graph.HeapObject{ID: sr.r.ids.id(v), Class: name, Shallow: sr.h.obj.shallow(v), Retained: sr.r.retained[v]}
}

// find returns the suspects of threshold bytes or more: the objects
// (class objects aside) that retain that much and no such object
// dominates, then the classes whose objects on top of the dominator tree
// (dominated by no object, or by a class object only) retain that much
// together, largest first.
func (sr *suspects) find(threshold int64) []graph.Suspect {
	r := sr.r
	ret := r.retained
	n := len(ret)
	big := func(v uint32) bool { return ret[v] >= threshold && !sr.isClass(v) }
	// under: whether a big object dominates v, by the chain above it.
	under := map[uint32]bool{}
	above := func(v uint32) bool {
		var chain []uint32
		found := false
		for d := r.idom[v]; d != 0; d = r.idom[d-1] {
			a := d - 1
			if u, ok := under[a]; ok {
				found = u || big(a)
				break
			}
			chain = append(chain, a)
			if big(a) {
				found = true
				break
			}
		}
		for _, a := range chain {
			under[a] = found
		}
		return found
	}
	var out []graph.Suspect
	type group struct {
		objects, retained int64
		largest           uint32
	}
	groups := map[uint32]*group{}
	for v := range uint32(n) {
		if ret[v] < 0 || sr.isClass(v) {
			continue
		}
		if big(v) {
			if !above(v) {
				out = append(out, graph.Suspect{Instances: 1, Retained: ret[v], Object: sr.object(v)})
			}
			continue
		}
		if d := r.idom[v]; d == 0 || sr.isClass(d-1) {
			c := sr.h.obj.class(v)
			gr := groups[c]
			if gr == nil {
				gr = &group{largest: v}
				groups[c] = gr
			}
			gr.objects++
			gr.retained += ret[v]
			if ret[v] > ret[gr.largest] {
				gr.largest = v
			}
		}
	}
	for _, gr := range groups {
		if gr.retained >= threshold && gr.objects > 1 {
			out = append(out, graph.Suspect{Group: true, Instances: gr.objects, Retained: gr.retained, Object: sr.object(gr.largest)})
		}
	}
	slices.SortFunc(out, func(a, b graph.Suspect) int {
		return cmp.Or(cmp.Compare(b.Retained, a.Retained), cmp.Compare(a.Object.ID, b.Object.ID))
	})
	if len(out) > 0 {
		sr.accumulate(out)
	}
	return out
}

// accumulate follows each suspect's dominator chain down to its
// accumulation point: while the child that retains the most retains
// most of its parent (accumulates), it goes on.
func (sr *suspects) accumulate(out []graph.Suspect) {
	r := sr.r
	ret := r.retained
	n := len(ret)
	best := make([]uint32, n) // the child retaining the most, plus one
	for v := range uint32(n) {
		if d := r.idom[v]; d != 0 && ret[v] >= 0 {
			if b := best[d-1]; b == 0 || ret[v] > ret[b-1] {
				best[d-1] = v + 1
			}
		}
	}
	acc := make([]uint32, len(out))
	for i := range out {
		s := &out[i]
		s.Share = float64(s.Retained) / float64(max(r.Stats.ReachableBytes, 1))
		v, _ := r.ids.lookup(s.Object.ID)
		s.Chain = append(s.Chain, s.Object)
		for range maxChain {
			b := best[v]
			if b == 0 || float64(ret[b-1]) < accumulates*float64(ret[v]) {
				break
			}
			v = b - 1
			s.Chain = append(s.Chain, sr.object(v))
		}
		acc[i] = v
	}
	// What each accumulation point dominates, by class: one pass.
	held := make([]map[uint32]*graph.HeldClass, len(out))
	at := map[uint32][]int{}
	for i, v := range acc {
		at[v] = append(at[v], i)
		held[i] = map[uint32]*graph.HeldClass{}
	}
	for v := range uint32(n) {
		d := r.idom[v]
		if d == 0 || ret[v] < 0 {
			continue
		}
		for _, i := range at[d-1] {
			c := sr.h.obj.class(v)
			hc := held[i][c]
			if hc == nil {
				hc = &graph.HeldClass{Class: sr.object(v).Class}
				held[i][c] = hc
			}
			hc.Objects++
			hc.Retained += ret[v]
		}
	}
	for i := range out {
		for _, hc := range held[i] {
			out[i].Holds = append(out[i].Holds, *hc)
		}
		slices.SortFunc(out[i].Holds, func(a, b graph.HeldClass) int {
			return cmp.Or(cmp.Compare(b.Retained, a.Retained), cmp.Compare(a.Class, b.Class))
		})
		if len(out[i].Holds) > 5 {
			out[i].Holds = out[i].Holds[:5]
		}
	}
}

// instances are the reachable objects (class objects aside) whose class
// name match accepts.
func (sr *suspects) instances(match func(string) bool) []uint32 {
	ok := make([]bool, len(sr.h.fields.classes))
	for i, c := range sr.h.fields.classes {
		ok[i] = match(c.name)
	}
	var out []uint32
	for v, ret := range sr.r.retained {
		if c := sr.h.obj.class(uint32(v)); ret >= 0 && c&classObjFlag == 0 && ok[c] {
			out = append(out, uint32(v))
		}
	}
	return out
}

// merged groups the targets by their shortest path (the paths view's
// stacks) and class: the limit groups with the most objects, and how
// many more there are.
func (sr *suspects) merged(targets []uint32, limit int) ([]graph.MergedPath, int) {
	h := sr.h
	b := newPathsBuilder(sr.r, sr.g, sr.names.Frames)
	defer b.free()
	b.place()
	type key struct {
		node int32
		cls  uint32
	}
	groups := map[key]*graph.MergedPath{}
	for _, v := range targets {
		k := key{int32(b.at[v]), h.obj.class(v)}
		m := groups[k]
		if m == nil {
			m = &graph.MergedPath{Class: sr.object(v).Class}
			for j := k.node; j > 0; j = b.t.Nodes[j].Parent {
				m.Frames = append(m.Frames, sr.function(sr.g.Frames[b.t.Nodes[j].Class]))
			}
			slices.Reverse(m.Frames)
			groups[k] = m
		}
		m.Objects++
		m.Shallow += h.obj.shallow(v)
		m.Retained += sr.r.retained[v]
	}
	out := make([]graph.MergedPath, 0, len(groups))
	for _, m := range groups {
		out = append(out, *m)
	}
	slices.SortFunc(out, func(a, b graph.MergedPath) int {
		return cmp.Or(cmp.Compare(b.Objects, a.Objects), cmp.Compare(b.Retained, a.Retained),
			slices.Compare(a.Frames, b.Frames), cmp.Compare(a.Class, b.Class))
	})
	if len(out) > limit {
		return out[:limit], len(out) - limit
	}
	return out, 0
}

// rootPaths searches back from the targets, breadth first over the
// reversed strong graph, for the nearest starts: the root records'
// objects and the class objects (what their statics hold). It returns
// the shortest path from each start it meets, up to limit, nearest
// first, so that a static field that holds a target shows even when a
// root of another kind reaches it by a shorter way. A class object is
// not searched past: a path through one starts at it. Each path is a
// list of objects from the start to a target.
func (sr *suspects) rootPaths(targets []uint32, limit int) [][]uint32 {
	h := sr.h
	n := len(h.tree.parent)
	next := make([]uint32, n) // the object one step nearer a target, plus one
	seen := domtree.NewBitset(nil, n)
	queue := make([]uint32, 0, len(targets))
	for _, v := range targets {
		if !seen.Has(v) {
			seen.Set(v)
			queue = append(queue, v)
		}
	}
	var out [][]uint32
	for head := 0; head < len(queue) && len(out) < limit; head++ {
		u := queue[head]
		_, root := h.tree.start[u]
		if (root || sr.isClass(u)) && sr.r.retained[u] >= 0 {
			p := []uint32{u}
			for w := u; next[w] != 0; w = next[w] - 1 {
				p = append(p, next[w]-1)
			}
			out = append(out, p)
		}
		if sr.isClass(u) {
			continue
		}
		for _, w := range h.rev.in(u) {
			if !seen.Has(w) {
				seen.Set(w)
				next[w] = u + 1
				queue = append(queue, w)
			}
		}
	}
	return out
}

// nameSteps finds the slots of the paths' steps that are off the
// breadth-first tree, in one pass over the dump.
func (sr *suspects) nameSteps(ctx context.Context, paths [][][]uint32) error {
	h := sr.h
	want := map[uint32]bool{}
	for _, ps := range paths {
		for _, p := range ps {
			for i := 1; i < len(p); i++ {
				if h.tree.parent[p[i]] != p[i-1]+1 {
					sr.steps[uint64(p[i-1])<<32|uint64(p[i])] = slotUnset
					want[p[i-1]] = true
				}
			}
		}
	}
	if len(want) == 0 {
		return nil
	}
	var mu sync.Mutex
	rv := h.visit
	rv.want = func(v uint32) bool { return want[v] }
	rv.ref = func(v, j uint32, slot int32) bool {
		k := uint64(v)<<32 | uint64(j)
		mu.Lock()
		defer mu.Unlock()
		if s, ok := sr.steps[k]; !ok || s != slotUnset {
			return false
		}
		sr.steps[k] = slot
		return true
	}
	rv.static = func(cls uint32, i int, name string) {
		mu.Lock()
		h.fields.statics[uint64(cls)<<32|uint64(i)] = name
		mu.Unlock()
	}
	return rv.run(ctx)
}

// rootPath describes path p (objects from a start to a target).
func (sr *suspects) rootPath(p []uint32) graph.RootPath {
	h := sr.h
	u := p[0]
	var rp graph.RootPath
	if sr.isClass(u) {
		rp.Kind, rp.Root = staticKind, sr.object(u).Class
	} else {
		rt := h.tree.start[u]
		rp.Kind, rp.Root = rt.Name(), sr.names.Label(sr.g, rt, sr.norm)
	}
	rp.Steps = append(rp.Steps, graph.PathStep{Object: sr.object(u)})
	for i := 1; i < len(p); i++ {
		slot := h.tree.slot[p[i]]
		if h.tree.parent[p[i]] != p[i-1]+1 {
			slot = sr.steps[uint64(p[i-1])<<32|uint64(p[i])]
		}
		class, field := h.fields.name(h.obj.class(p[i-1]), slot)
		f := graph.Frame{Kind: graph.KindField, Class: class, Method: field}
		rp.Steps = append(rp.Steps, graph.PathStep{Field: sr.function(f), Object: sr.object(p[i])})
	}
	return rp
}

// ParseShare reads a share of the heap as a user writes it: "10%",
// "10" (percent) or "0.1".
func ParseShare(s string) (float64, error) {
	t := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "%"))
	f, err := strconv.ParseFloat(t, 64)
	switch {
	case err != nil:
		return 0, fmt.Errorf("share %q: not a percentage", s)
	case f >= 1 || strings.HasSuffix(strings.TrimSpace(s), "%"):
		f /= 100
	}
	if f <= 0 || f > 1 {
		return 0, fmt.Errorf("share %q: not between 0%% and 100%%", s)
	}
	return f, nil
}
