package graph

// Soft failure kinds that code reads back, by these constants: a count
// is never found by matching the text of a message.
const (
	// SoftZeroLengthSegment: a HEAP DUMP SEGMENT with no body (ART
	// writes them; harmless there).
	SoftZeroLengthSegment = "zero-length heap dump segment"
)
