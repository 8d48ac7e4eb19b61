package parquet

import (
	"strings"

	"github.com/apache/arrow/go/v15/arrow"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
)

// The paths table: the paths view (--view paths) as rows, one per path
// from a GC root and class of the objects at its end: the root, the
// fields taken, the referring field (the last one), and the objects'
// count, shallow and retained bytes there (the view's sample values).
// "Which fields hold the most" is a GROUP BY field over it; path_id is the
// stack_id of the view's sample in the samples and stacks tables.
var pathsFields = []arrow.Field{
	req("source", tString),
	req("path_id", tInt64),
	req("root", tString),
	opt("field", tString), // NULL for a root's own object
	req("fields", tStrings),
	req("depth", tInt32),
	req("class", tString),
	req("objects", tInt64),
	req("shallow_bytes", tInt64),
	req("retained_bytes", tInt64),
}

// addPaths writes the paths view's rows, when the graph has one.
func (w *Writer) addPaths(j *job) error {
	var v *graph.View
	for _, x := range j.views {
		if x.Name == graph.ViewPaths {
			v = x
		}
	}
	if v == nil {
		return nil
	}
	g := j.g
	iObj, iShallow, iRet := v.Index("path_objects"), v.Index("path_space"), v.Index("path_retained")
	t := w.tables[TablePaths]
	var root, fields []string
	for _, s := range v.Samples {
		st := g.Stacks[s.Stack] // leaf first
		root, fields = root[:0], fields[:0]
		for i := len(st) - 1; i >= 1; i-- {
			f := g.Frames[st[i]]
			if f.Kind == graph.KindField {
				fields = append(fields, f.Function())
			} else if len(fields) == 0 {
				root = append(root, f.Function())
			}
		}
		r := t.row()
		r.str(j.source)
		r.i64(int64(s.Stack))
		r.str(strings.Join(root, " at "))
		if len(fields) > 0 {
			r.str(fields[len(fields)-1])
		} else {
			r.null()
		}
		r.strs(fields)
		r.i32(int32(len(fields)))
		class := ""
		if len(st) > 0 {
			class = g.Frames[st[0]].Class
		}
		r.str(class)
		for _, i := range []int{iObj, iShallow, iRet} {
			x, _ := valueAt(s.Values, i)
			r.i64(x)
		}
		if err := r.end(); err != nil {
			return err
		}
	}
	return nil
}
