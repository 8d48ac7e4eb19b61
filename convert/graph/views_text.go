package graph

// Constructors for the views only the hprof agent's text reports carry.

// NewCPUTimeView: text CPU TIME (cpu=times), per trace: calls/count from
// the count column and time/nanoseconds from the self percentage of the
// section total (the percentages are printed rounded to 0.01%).
func NewCPUTimeView() *View {
	return &View{
		Name:              ViewCPUTime,
		SampleTypes:       []ValueType{{"calls", "count"}, {"time", "nanoseconds"}},
		DefaultSampleType: "time",
		PeriodType:        ValueType{"time", "nanoseconds"},
		Period:            1,
	}
}

// NewMonitorView: text MONITOR TIME, per contended trace and monitor:
// contentions/count and delay/nanoseconds, like Go's mutex profile.
func NewMonitorView() *View {
	return &View{
		Name:              ViewMonitor,
		SampleTypes:       []ValueType{{"contentions", "count"}, {"delay", "nanoseconds"}},
		DefaultSampleType: "delay",
		PeriodType:        ValueType{"contentions", "count"},
		Period:            1,
	}
}

// NewCPUOldView: cpu=old rows as caller→callee two-frame stacks:
// calls/count and time/nanoseconds.
func NewCPUOldView() *View {
	return &View{
		Name:              ViewCPUOld,
		SampleTypes:       []ValueType{{"calls", "count"}, {"time", "nanoseconds"}},
		DefaultSampleType: "time",
		PeriodType:        ValueType{"time", "nanoseconds"},
		Period:            1,
	}
}
