package parquet

import (
	"errors"
	"fmt"
	"sort"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
)

// ErrInvalidGraph reports a graph whose ids point outside its tables.
var ErrInvalidGraph = errors.New("parquet: invalid graph")

func (w *Writer) addSource(j *job) error {
	source, g := j.source, j.g
	s := &g.Source
	r := w.tables[TableSources].row()
	r.str(source)
	r.str(s.Path)
	r.optStr(s.Format)
	r.optStr(s.Version)
	r.optI32(int32(s.IDSize))
	r.time(s.Time)
	r.optStr(s.Writer)
	r.i64(s.Bytes)
	r.optStr(s.Compression)
	r.i32(int32(s.Dumps))
	r.i32(int32(s.Dump))
	r.counts(sortedCounts(s.Records))
	r.i64(g.SoftTotal())
	r.counts(sortedCounts(g.Soft.Texts()))
	if g.Damage != nil {
		r.str(g.Damage.Error())
	} else {
		r.null()
	}
	r.optStr(g.Lost)
	r.optStrs(s.Notes)
	r.i64(int64(max(len(g.Frames)-1, 0)))
	r.i64(int64(max(len(g.Stacks)-1, 0)))
	r.i64(int64(len(g.Threads)))
	return r.end()
}

// sortedCounts returns the map's keys in order and their values.
func sortedCounts(m map[string]int64) ([]string, []int64) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	vals := make([]int64, len(keys))
	for i, k := range keys {
		vals[i] = m[k]
	}
	return keys, vals
}

func (w *Writer) addViews(j *job) error {
	source := j.source
	t := w.tables[TableViews]
	for _, v := range j.views {
		types := make([]string, len(v.SampleTypes))
		units := make([]string, len(v.SampleTypes))
		for i, st := range v.SampleTypes {
			types[i], units[i] = st.Type, st.Unit
		}
		r := t.row()
		r.str(source)
		r.str(v.Name)
		r.strs(types)
		r.strs(units)
		r.optStr(v.DefaultSampleType)
		r.optStr(v.PeriodType.Type)
		r.optStr(v.PeriodType.Unit)
		r.i64(v.Period)
		r.time(v.Time)
		r.i64(int64(v.Duration))
		r.i64(int64(len(v.Samples)))
		r.optStrs(v.Comments)
		if err := r.end(); err != nil {
			return err
		}
	}
	return nil
}

// stackNames computes, once per graph, each stack's leaf function, its
// innermost Java method (the first KindMethod frame from the leaf) and
// its leaf class (the leaf frame's class when it is a KindClass frame)
// with that class's exact name (graph.Frame.ExactClass).
type stackNames struct {
	g                                  *graph.Graph
	leaf, function, leafClass, leafRaw []string
	done                               []bool
}

func newStackNames(g *graph.Graph) *stackNames {
	n := len(g.Stacks)
	return &stackNames{g: g, leaf: make([]string, n), function: make([]string, n),
		leafClass: make([]string, n), leafRaw: make([]string, n), done: make([]bool, n)}
}

// exactClass is the exact name of class, a sample's class: its leaf
// class frame's when that frame names it, else class itself.
func (sn *stackNames) exactClass(id graph.StackID, class string) string {
	if class != "" && sn.leafClass[id] == class {
		return sn.leafRaw[id]
	}
	return class
}

// names returns the stack's leaf and innermost method function names
// ("" when none), or an error when the stack or a frame id is out of range.
func (sn *stackNames) names(id graph.StackID) (leaf, function string, err error) {
	if int(id) >= len(sn.g.Stacks) {
		return "", "", fmt.Errorf("%w: stack %d out of range (%d stacks)", ErrInvalidGraph, id, len(sn.g.Stacks))
	}
	if sn.done[id] {
		return sn.leaf[id], sn.function[id], nil
	}
	for i, f := range sn.g.Stacks[id] {
		if int(f) >= len(sn.g.Frames) || f == 0 {
			return "", "", fmt.Errorf("%w: stack %d names frame %d (%d frames)", ErrInvalidGraph, id, f, len(sn.g.Frames))
		}
		fr := &sn.g.Frames[f]
		if i == 0 {
			sn.leaf[id] = fr.Function()
			if fr.Kind == graph.KindClass {
				sn.leafClass[id], sn.leafRaw[id] = fr.Class, fr.ExactClass()
			}
		}
		if fr.Kind == graph.KindMethod && sn.function[id] == "" {
			sn.function[id] = fr.Function()
		}
	}
	sn.done[id] = true
	return sn.leaf[id], sn.function[id], nil
}

// Label keys with a column of their own in the samples table.
var labelColumns = []string{graph.LabelThread, graph.LabelState, graph.LabelClass, graph.LabelHeap, graph.LabelMonitor}

// classColumn is the index of the class label in labelColumns.
const classColumn = 2

func (w *Writer) addSamples(j *job) error {
	source, g := j.source, j.g
	t := w.tables[TableSamples]
	sn := newStackNames(g)
	var (
		std                = make([]string, len(labelColumns))
		strKeys, strVals   []string
		numKeys, otherKeys []string
		numVals, otherVals []int64
		seen               = map[string]bool{}
	)
	for _, v := range j.views {
		// col[j] is the sample-type index feeding ValueColumns[j], or -1.
		col := make([]int, len(ValueColumns))
		for j, c := range ValueColumns {
			col[j] = v.Index(c)
		}
		for si, s := range v.Samples {
			leaf, function, err := sn.names(s.Stack)
			if err != nil {
				return fmt.Errorf("%w (view %s, sample %d)", err, v.Name, si)
			}
			clear(std)
			clear(seen)
			strKeys, strVals, numKeys, numVals = strKeys[:0], strVals[:0], numKeys[:0], numVals[:0]
			for _, l := range s.Labels {
				if seen[l.Key] {
					continue // a map cannot hold a key twice; keep the first
				}
				seen[l.Key] = true
				if l.Str == "" && (l.Num != 0 || l.Unit != "") {
					numKeys, numVals = append(numKeys, l.Key), append(numVals, l.Num)
					continue
				}
				k := indexOf(labelColumns, l.Key)
				if k >= 0 {
					std[k] = l.Str
					continue
				}
				strKeys, strVals = append(strKeys, l.Key), append(strVals, l.Str)
			}
			if std[classColumn] == "" {
				// Samples without a class label (text reports) still
				// name their class in the leaf frame.
				std[classColumn] = sn.leafClass[s.Stack]
			}
			r := t.row()
			r.str(source)
			r.str(v.Name)
			r.i64(int64(s.Stack))
			r.optStr(leaf)
			r.optStr(function)
			for k, x := range std {
				r.optStr(x)
				if k == classColumn {
					r.optStr(sn.exactClass(s.Stack, x))
				}
			}
			r.strMap(strKeys, strVals)
			r.counts(numKeys, numVals)
			for _, i := range col {
				r.optI64(valueAt(s.Values, i))
			}
			otherKeys, otherVals = otherKeys[:0], otherVals[:0]
			for i, st := range v.SampleTypes {
				if indexOf(ValueColumns, st.Type) < 0 {
					x, _ := valueAt(s.Values, i)
					otherKeys, otherVals = append(otherKeys, st.Type), append(otherVals, x)
				}
			}
			r.counts(otherKeys, otherVals)
			if err := r.end(); err != nil {
				return err
			}
		}
	}
	return nil
}

// valueAt returns values[i]; ok is false when i is -1. A value missing
// from a short Values slice counts as 0, as View.Totals does.
func valueAt(values []int64, i int) (int64, bool) {
	if i < 0 {
		return 0, false
	}
	if i >= len(values) {
		return 0, true
	}
	return values[i], true
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

func (w *Writer) addStacks(j *job) error {
	source, g := j.source, j.g
	t := w.tables[TableStacks]
	var ids []int64
	var names []string
	for id := 1; id < len(g.Stacks); id++ {
		ids, names = ids[:0], names[:0]
		for _, f := range g.Stacks[id] {
			if int(f) >= len(g.Frames) || f == 0 {
				return fmt.Errorf("%w: stack %d names frame %d (%d frames)", ErrInvalidGraph, id, f, len(g.Frames))
			}
			ids = append(ids, int64(f))
			names = append(names, g.Frames[f].Function())
		}
		r := t.row()
		r.str(source)
		r.i64(int64(id))
		r.i32(int32(len(ids)))
		r.i64s(ids)
		r.strs(names)
		if err := r.end(); err != nil {
			return err
		}
	}
	return nil
}

func (w *Writer) addFrames(j *job) error {
	source, g := j.source, j.g
	t := w.tables[TableFrames]
	for id := 1; id < len(g.Frames); id++ {
		f := &g.Frames[id]
		r := t.row()
		r.str(source)
		r.i64(int64(id))
		r.str(f.Kind.String())
		r.str(f.Function())
		r.str(f.Class)
		r.str(f.ExactClass())
		r.optStr(f.Method)
		r.optStr(f.Signature)
		r.optStr(f.File)
		r.i32(f.Line)
		if err := r.end(); err != nil {
			return err
		}
	}
	return nil
}

func (w *Writer) addThreads(j *job) error {
	source, g := j.source, j.g
	t := w.tables[TableThreads]
	sn := newStackNames(g)
	for i, th := range g.Threads {
		_, function, err := sn.names(th.Stack)
		if err != nil {
			return fmt.Errorf("%w (thread %d %q)", err, i, th.Name)
		}
		r := t.row()
		r.str(source)
		r.optI64(int64(th.Serial), th.Serial != 0)
		r.optI64(int64(th.ObjectID), th.ObjectID != 0)
		r.optStr(th.Name)
		r.optStr(th.Group)
		r.optStr(th.Class)
		r.optStr(th.State)
		r.i64(int64(th.Stack))
		r.optStr(function)
		if err := r.end(); err != nil {
			return err
		}
	}
	return nil
}

// addClasses writes the heap histogram (when the heap view is
// selected): the heap view's samples summed by the exact name of their
// class label (a sample without one counts under its leaf class frame),
// the label, normalised, beside it.
func (w *Writer) addClasses(j *job) error {
	v := heapView(j.views)
	if v == nil {
		return nil
	}
	by, err := sumByClass(j.g, v)
	if err != nil {
		return err
	}
	retained := retainedByClass(j.g)
	t := w.tables[TableClasses]
	for _, k := range classesByBytes(by) {
		r := t.row()
		r.str(j.source)
		r.str(by[k].class)
		r.str(k)
		r.i64(by[k].n)
		r.i64(by[k].bytes)
		r.optI64(retained[k], retained != nil)
		if err := r.end(); err != nil {
			return err
		}
	}
	return nil
}

// classSums is what one class's heap samples add up to; class is its
// name, normalised unless the graph kept exact names.
type classSums struct {
	class    string
	n, bytes int64
}

// heapView returns the last heap view among views, or nil.
func heapView(views []*graph.View) *graph.View {
	var v *graph.View
	for _, x := range views {
		if x.Name == graph.ViewHeap {
			v = x
		}
	}
	return v
}

// sumByClass sums the heap view's objects and bytes by the exact name
// of the sample class.
func sumByClass(g *graph.Graph, v *graph.View) (map[string]*classSums, error) {
	io, is := v.Index("inuse_objects"), v.Index("inuse_space")
	by := map[string]*classSums{}
	for si, s := range v.Samples {
		class, exact, err := sampleClass(g, s, si)
		if err != nil {
			return nil, err
		}
		c := by[exact]
		if c == nil {
			c = &classSums{class: class}
			by[exact] = c
		}
		n, _ := valueAt(s.Values, io)
		b, _ := valueAt(s.Values, is)
		c.n += n
		c.bytes += b
	}
	return by, nil
}

// sampleClass names the class a heap sample counts under: its class
// label, else its leaf frame's class, else "(unknown)"; and that class's
// exact name (the leaf class frame's, when the frame names the class).
// si is the sample's index, for the error.
func sampleClass(g *graph.Graph, s graph.Sample, si int) (class, exact string, err error) {
	for _, l := range s.Labels {
		if l.Key == graph.LabelClass && l.Str != "" {
			class = l.Str
			break
		}
	}
	if int(s.Stack) >= len(g.Stacks) {
		return "", "", fmt.Errorf("%w: stack %d out of range (view heap, sample %d)", ErrInvalidGraph, s.Stack, si)
	}
	var leaf *graph.Frame
	if st := g.Stacks[s.Stack]; len(st) > 0 && int(st[0]) < len(g.Frames) && g.Frames[st[0]].Kind == graph.KindClass && g.Frames[st[0]].Class != "" {
		leaf = &g.Frames[st[0]]
	}
	switch {
	case leaf != nil && (class == "" || class == leaf.Class):
		return leaf.Class, leaf.ExactClass(), nil
	case class != "":
		return class, class, nil
	}
	return "(unknown)", "(unknown)", nil
}

// classesByBytes returns the class names, most bytes first, then by
// name.
func classesByBytes(by map[string]*classSums) []string {
	classes := make([]string, 0, len(by))
	for k := range by {
		classes = append(classes, k)
	}
	sort.Slice(classes, func(i, j int) bool {
		a, b := by[classes[i]], by[classes[j]]
		if a.bytes != b.bytes {
			return a.bytes > b.bytes
		}
		return classes[i] < classes[j]
	})
	return classes
}

// retainedByClass returns the retained bytes by class name, or nil when
// the retained view was not computed.
func retainedByClass(g *graph.Graph) map[string]int64 {
	if g.RetainedByClass == nil {
		return nil
	}
	retained := make(map[string]int64, len(g.RetainedByClass))
	for _, c := range g.RetainedByClass {
		retained[c.Class] += c.Bytes
	}
	return retained
}
