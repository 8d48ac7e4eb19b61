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

// ClassRetained is the retained size of the objects of one class name:
// for each class of that name, the retained sizes of its reachable
// objects that no object of the same class dominates, summed (so a
// chain of one class counts once). Filled with the retained view.
type ClassRetained struct {
	Class string // Java name as the dump wrote it: the heap view class frame's ExactClass
	Bytes int64
}
