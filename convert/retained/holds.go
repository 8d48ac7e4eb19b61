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
	// rev is the reversed strong graph (Input.Suspects), and visit reads
	// the dump's references once more.
	rev   *revGraph
	visit refVisitor
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
		rev: s.rev,
		visit: refVisitor{file: s.in.File, segs: s.in.Segments, dump: s.in.Dump, idSize: s.idSize, ix: res.ids,
			classes: s.classes, classIx: s.classIx, unknown: s.unknown, names: s.in.Names, sequential: s.stats.Duplicates > 0},
	}
	s.hold, s.objByNum, s.rev = nil, objWords{}, nil
	return nil
}
