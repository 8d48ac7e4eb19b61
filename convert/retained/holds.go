package retained

import (
	"context"
)

// holds is what Input.Paths keeps for the paths view and the suspects,
// by dense object number (Result.ids numbers the IDs).
type holds struct {
	tree   *holdTree
	obj    objWords // class and shallow size
	fields *fieldNames
	// roots are the root records of each root object (the first of
	// each), for naming paths.
	roots map[uint32]Root
}

// keepHolds names the tree's steps (a pass over the dump) and keeps
// what the paths view and the suspects need in res.
func (s *scanner) keepHolds(ctx context.Context, res *Result) error {
	s.phase("naming fields")
	s.ix = res.ids
	defer func() { s.ix = nil }()
	if err := s.fieldsPass(ctx, s.hold); err != nil {
		return err
	}
	res.holds = &holds{
		tree: s.hold,
		obj:  s.objByNum,
		fields: &fieldNames{layouts: s.in.Layouts, names: s.in.Names, classes: s.classes, statics: s.hold.statics,
			classNames: s.in.ClassNames, cache: map[uint64][2]string{}},
		roots: s.hold.start,
	}
	s.hold, s.objByNum = nil, objWords{}
	return nil
}
