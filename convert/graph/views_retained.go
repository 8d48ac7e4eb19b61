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
