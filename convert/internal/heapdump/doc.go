// Package heapdump aggregates the objects of one heap dump: it counts
// them per class (per allocation trace and Android heap where those
// exist) without keeping any object, adds its CLASS DUMPs to its class
// layout table (internal/layout), gathers the evidence its size model is
// decided from (heapsize.Decide), and recovers thread names from the
// thread objects and Strings of the dump.
//
// A dump is read either as a stream of sub-records (Dump.Stream,
// Dump.Sub) or, for plain files, as spans noted as the first pass goes
// (Dump.Span) and parsed in parallel a window at a time while the first
// pass reads on (Dump.StartScan, SpanScan.Finish; Dump.ScanSpans for the
// rest: ScanSpan, merged with Dump.AddSpan); both count into an Agg, so their
// results are equal. The dump keeps how each of its records was read and
// the object IDs each holds, not where the records are: that is noted
// once, by the input's hprof.File, and the passes after the first
// (thread names, the retained graph) take the records from it
// (Dump.Records).
// What the dump needs from the rest of the file — strings, class names
// — and where it reports soft failures is the Env its caller gives.
package heapdump

import "github.com/hprof2pprof/hprof2pprof/convert/graph"

// Env is what a heap dump needs from the decoder that reads it.
type Env interface {
	// String is the STRING IN UTF8 record with this ID ("" if none).
	String(id uint64) string
	// ClassName is the Java name of the class object ID from its LOAD
	// CLASS record ("" if none).
	ClassName(id uint64) string
	// SoftFail counts an inconsistency that decoding survives.
	SoftFail(kind graph.SoftKind)
	// SoftFailDetail counts one of a kind that takes a detail.
	SoftFailDetail(kind graph.SoftKind, detail string)
}
