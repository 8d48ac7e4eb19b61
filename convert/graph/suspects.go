package graph

// SuspectReport is the leak suspects of a heap dump (`hprof2pprof
// suspects`): the objects and class groups that retain more than a share
// of the reachable heap, where in each the retained size accumulates,
// and the shortest strong paths from GC roots to them. With a class
// pattern it is the paths to that class's instances instead.
type SuspectReport struct {
	Dump      int     `json:"dump"`
	Objects   int64   `json:"reachable_objects"`
	Reachable int64   `json:"reachable_bytes"`
	Share     float64 `json:"threshold_share"`
	Threshold int64   `json:"threshold_bytes"`
	// Suspects are the objects and groups over the threshold, largest
	// first; none when no single retainer is that large.
	Suspects []Suspect `json:"suspects"`
	// Class is the class pattern asked for ("" for the suspects), and
	// Instances how many reachable objects its classes have.
	Class     string `json:"class,omitempty"`
	Instances int64  `json:"instances,omitempty"`
	// Merged are the shortest paths to the class's instances merged by
	// path (MAT's "merge shortest paths to GC roots"), most objects
	// first; RootPaths the shortest path to an instance from each root
	// that reaches one, nearest first, up to a limit.
	Merged    []MergedPath `json:"merged_paths,omitempty"`
	RootPaths []RootPath   `json:"root_paths,omitempty"`
	// Omitted counts the merged paths past the limit.
	Omitted  int      `json:"omitted_paths,omitempty"`
	Comments []string `json:"notes,omitempty"`
}

// HeapObject is one object of the dump.
type HeapObject struct {
	ID       uint64 `json:"id"`
	Class    string `json:"class"`
	Shallow  int64  `json:"shallow_bytes"`
	Retained int64  `json:"retained_bytes"`
}

// Suspect is one object, or one group of objects of a class, that
// retains more than the threshold.
type Suspect struct {
	// Group is set for a class whose instances together, none alone,
	// retain more than the threshold; Instances is how many there are
	// (1 for an object).
	Group     bool    `json:"group"`
	Instances int64   `json:"instances"`
	Retained  int64   `json:"retained_bytes"`
	Share     float64 `json:"share"`
	// Object is the suspect (a group's largest instance).
	Object HeapObject `json:"object"`
	// Chain is the dominator chain from Object down to the accumulation
	// point, the object where the retained size concentrates (its last
	// element).
	Chain []HeapObject `json:"dominator_chain"`
	// Holds is what the accumulation point retains, by class, most bytes
	// first.
	Holds []HeldClass `json:"accumulated"`
	// Paths are the shortest strong path to Object from each GC root
	// that reaches it (a class object for what its statics hold; a path
	// does not go on past one), nearest first, up to a limit.
	Paths []RootPath `json:"paths"`
}

// HeldClass is the objects of one class that an object dominates
// directly, with what they retain.
type HeldClass struct {
	Class    string `json:"class"`
	Objects  int64  `json:"objects"`
	Retained int64  `json:"retained_bytes"`
}

// RootPath is a path from a GC root: the root (Kind "Java frame",
// "JNI global", "static field"…, Root its name: `thread "main" at
// corpus.Oom.main (Oom.java:33)`, `class corpus.Oom`), then each
// reference taken.
type RootPath struct {
	Kind  string     `json:"kind"`
	Root  string     `json:"root"`
	Steps []PathStep `json:"steps"`
}

// PathStep is one object of a path and the field of the object before
// it that refers to it ("" for the root's own object).
type PathStep struct {
	Field  string     `json:"field,omitempty"`
	Object HeapObject `json:"object"`
}

// MergedPath is the objects that share one shortest path from a root:
// its frames from the root down (the root's, then the fields), the
// objects' class, and their count and bytes.
type MergedPath struct {
	Frames   []string `json:"frames"`
	Class    string   `json:"class"`
	Objects  int64    `json:"objects"`
	Shallow  int64    `json:"shallow_bytes"`
	Retained int64    `json:"retained_bytes"`
}
