package graph

// NewRetainedView: the dominator tree of a heap dump. Every reachable
// object is one sample value on the stack of its path in the dominator
// tree (root kind → dominating objects' classes → its class), so a
// stack's cumulative values are retained sizes:
// retained_objects/count and retained_space/bytes (shallow sizes that
// add up to retained sizes).
func NewRetainedView() *View {
	return &View{
		Name:              ViewRetained,
		SampleTypes:       []ValueType{{"retained_objects", "count"}, {"retained_space", "bytes"}},
		DefaultSampleType: "retained_space",
		PeriodType:        ValueType{"space", "bytes"},
	}
}

// NewPathsView: each reachable object under the references that keep
// it alive on a shortest path from a GC root. path_objects and
// path_space are the objects and their shallow bytes (a frame's
// cumulative value: what is reached through it); path_retained sums so
// that a frame's cumulative value is the retained size of the objects
// reached through it (see the view's comments).
func NewPathsView() *View {
	return &View{
		Name:              ViewPaths,
		SampleTypes:       []ValueType{{"path_objects", "count"}, {"path_space", "bytes"}, {"path_retained", "bytes"}},
		DefaultSampleType: "path_space",
		PeriodType:        ValueType{"space", "bytes"},
	}
}

// ClassRetained is the retained size of the objects of one class name:
// for each class of that name, the retained sizes of its reachable
// objects that no object of the same class dominates, summed (so a
// chain of one class counts once). Filled with the retained view.
type ClassRetained struct {
	Class string // Java name as the dump wrote it: the heap view class frame's ExactClass
	Bytes int64
}
