package batch

// EventKind says what an Event reports.
type EventKind int

// Kinds of Event, in the order an input meets them. Index is the
// input's place in Event.Inputs of the Planned event.
const (
	// Planned comes first: Inputs are the inputs this run converts
	// (the job's shard), before any is read.
	Planned EventKind = iota
	// Skipped: input Index is up to date from an earlier run and is not
	// read; Result says what that run recorded.
	Skipped
	// Started: input Index is being read; Compressed says whether it is
	// gzip or bzip2 (Bytes then count decompressed bytes).
	Started
	// Read: Bytes of input Index have been read so far (decompressed).
	Read
	// Phase: what the converter does with input Index after reading
	// ("" while it reads).
	Phase
	// Wrote: Path is an output written for input Index ("standard
	// output" for "-"); Index is -1 for outputs written when the job's
	// output closed.
	Wrote
	// Problem: Err says what went wrong with input Index — why it
	// failed, was partial or skipped (Result is then set: the summary
	// gives the same reason), or that its done mark was not recorded.
	// A view asked for that no input of the job has makes the inputs
	// written partial once every input is Finished: their Problems
	// come last.
	Problem
	// Finished: input Index is done; Result holds its status, Bytes the
	// decompressed bytes it held (0 when unknown).
	Finished
)

// An Event is one step of a job, sent to Job.Events. Events of one input
// come in order, from one goroutine at a time; events of different
// inputs may come at once from different goroutines.
type Event struct {
	Kind       EventKind
	Index      int
	Input      Input   // input Index (Planned: zero)
	Inputs     []Input // Planned only
	Compressed bool
	Bytes      int64
	Phase      string
	Path       string
	Err        error
	Result     *Result
}
