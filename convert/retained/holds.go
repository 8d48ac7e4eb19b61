package retained

import (
	"context"

	"github.com/hprof2pprof/hprof2pprof/convert/retained/internal/mem"
	"github.com/hprof2pprof/hprof2pprof/internal/sysmem"
)

// holds is what Input.Paths keeps for the paths view and the suspects,
// by dense object number (Result.ids numbers the IDs).
type holds struct {
	tree   *holdTree
	obj    objWords // class and shallow size
	fields *fieldNames
	// rev is the reversed strong graph (Input.Suspects), and visit reads
	// the dump's references once more.
	rev   *revGraph
	visit refVisitor
	// arena holds the arrays above (and the per-object answers, unless
	// the caller asked for them): files when the analysis spilled.
	arena *mem.Arena
	// answers says Result.retained and idom are in arena.
	answers bool
}

// holdArena is where the paths' arrays come from: files in the spill
// directory when the analysis spills (they are as many as its own, and
// live after it), else anonymous memory, which each array gives back
// as soon as it is freed (on the Go heap its garbage would wait for a
// collection, at the analysis's peak), or the heap where the analysis
// takes it too.
func (s *scanner) holdArena() *mem.Arena {
	switch {
	case s.a == nil:
		return nil
	case s.a.Anon():
		return mem.NewMemArena()
	}
	a := mem.NewArena(s.in.SpillDir)
	if cg := sysmem.CgroupLimit(); a != nil && cg > 0 {
		a.FlushAbove(sysmem.CgroupDirty(), cg/16)
	}
	return a
}

// keepArena is where the per-object answers go: with the paths', unless
// the caller keeps them for itself.
func (s *scanner) keepArena() *mem.Arena {
	if s.in.Paths && !s.rowsKeep {
		return s.ha
	}
	return nil
}

// ReleasePaths frees what the paths view and the suspects need (see
// Input.Paths), and the per-object answers with it unless the caller
// asked for them (Input.KeepIDs): call it once done with both.
func (r *Result) ReleasePaths() error {
	h := r.holds
	if h == nil {
		return nil
	}
	r.holds = nil
	if h.answers {
		r.retained, r.idom, r.ids = nil, nil, nil
	}
	if h.arena == nil {
		return nil
	}
	return h.arena.Close()
}

// keepHolds names the tree's steps (a pass over the dump) and keeps
// what the paths view and the suspects need in res.
func (s *scanner) keepHolds(ctx context.Context, res *Result) error {
	s.phase("naming fields")
	if err := <-s.naming; err != nil {
		return err
	}
	res.holds = &holds{
		tree: s.hold,
		obj:  s.objByNum,
		fields: &fieldNames{layouts: s.in.Layouts, names: s.in.Names, classes: s.classes, statics: s.hold.statics,
			classNames: s.in.ClassNames, cache: map[uint64][2]string{}},
		rev: s.rev, arena: s.ha, answers: !s.rowsKeep,
		visit: s.refVisitor(res.ids),
	}
	s.hold, s.objByNum, s.rev, s.ha = nil, objWords{}, nil, nil
	return nil
}
