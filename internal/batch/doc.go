// Package batch converts many inputs in one job: the engine behind
// `hprof2pprof convert`. A job expands its arguments into inputs
// (Expand: directories walked, globs applied), keeps its shard's part
// (Shard), decodes the inputs with several workers, hands each graph to
// an output format's Writer (pprof, folded, otlp, parquet, arrow), skips
// inputs whose outputs an earlier run completed (done marks under the
// output directory), and sums up what happened (Summary, written as
// JSON, or as text for a person). Run reports each input's progress as
// Events; showing them is the caller's business. In a directory, files
// that are no input and subdirectories that cannot be listed are
// skipped and counted, not failures.
//
// In this package: batch.go runs a job (events.go: what it reports),
// inputs.go expands and shards inputs, views.go checks the views asked
// for against each input's, outnames.go names outputs, resume.go keeps
// the done marks, summary.go sums up, formats.go and format_<name>.go
// are the writers.
package batch
