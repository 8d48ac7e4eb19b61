package retained

import "github.com/hprof2pprof/hprof2pprof/internal/sysmem"

// bytesPerObject and bytesPerRef estimate the graph's peak (see
// docs/retained.md, Memory): the estimate decides whether to spill.
// With r references (the bound) and l logged edges (at most r and the
// roots): the numbering's end holds 13¼ bytes per object, 4 per
// reference and 8 per logged edge, the reverse graph 20 per object and 12
// per logged edge, the dominators 24 per object and 4 per logged edge,
// the retained sizes 24 per object; as the bound counts at least one
// reference per object, 20 per object and 12 per reference bound them
// all.
const (
	bytesPerObject = 20
	bytesPerRef    = 12
)

// graphBytes estimates the peak bytes of the graph arrays for n objects
// and up to refs references.
func graphBytes(n int, refs int64) int64 {
	return int64(n)*bytesPerObject + refs*bytesPerRef
}

// spillBudget is the budget that Input.MemoryBudget 0 stands for: three
// quarters of the memory the kernel says is available, or no limit when
// it does not say (not linux).
func spillBudget() int64 {
	return sysmem.Available() / 4 * 3
}
