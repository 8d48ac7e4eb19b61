package main

import (
	"context"
	"flag"
	"io"
	"sort"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
)

// An output format. Each lives in its own file, format_<name>.go, and
// registers itself from init:
//
//	func init() {
//		registerFormat(outputFormat{
//			name:  "otlp",
//			help:  "OTLP profiles request (protobuf; OTLP-JSON when -o ends in .json)",
//			flags: func(fs *flag.FlagSet) { fs.StringVar(&serviceName, "service-name", "", "...") },
//			open:  openOTLP,
//		})
//	}
//
// convert decodes each input into a graph, hands it to the format's
// writer with Add, and calls Close once after the last input (batch.go).
// Inputs are decoded by -j workers at once; how Add is called depends on
// the writer (see perInputWriter):
//
//   - per input: Add writes every output of its input before it returns
//     and keeps nothing (pprof, folded, one OTLP file per input). Add may
//     then be called from several workers at once, so it must be safe for
//     concurrent use (a writer that only reads its destination is). With
//     -d, a rerun skips inputs whose outputs are complete.
//   - otherwise the writer gathers inputs into shared output (Parquet
//     tables, one OTLP request for -o). Add is never called concurrently,
//     and it is called in input order whatever finishes decoding first,
//     so the output does not depend on timing. Every input is converted
//     on each run.
type outputFormat struct {
	name  string
	help  string
	flags func(fs *flag.FlagSet) // format flags for convert (may be nil)
	open  func(dst destination) (formatWriter, error)
}

// destination says where output goes, from convert's flags.
type destination struct {
	Out    string    // -o: a file ("-" standard output); "" when not given
	Dir    string    // -d: a directory; "" when not given
	Views  []string  // --view: the views asked for; empty means all
	Inputs []string  // the inputs, in order
	Shard  shard     // --shard: this run's part of the job ({0 1} when whole)
	Stdout io.Writer // standard output, for Out == "-"
	// Rel maps an input to its outputs' name relative to Dir, mirroring
	// the input tree; use viewPath or outBase rather than reading it.
	Rel map[string]string
}

// formatWriter receives the graph of each input.
type formatWriter interface {
	// Add writes or keeps the views of one input. input is the path the
	// user gave; views are the names to write (already filtered to those
	// the graph has). It returns the paths it wrote, for messages.
	Add(ctx context.Context, input string, g *graph.Graph, views []string) ([]string, error)
	// Close finishes the output and returns any further paths written.
	Close() ([]string, error)
}

// perInputWriter is implemented by a writer whose outputs are per input
// when perInput returns true (see outputFormat).
type perInputWriter interface {
	perInput() bool
}

// objectSinker is implemented by a writer that takes the heap dump's
// objects as rows (Parquet with --tables): ObjectSink returns the sink
// for one input, nil when no such table was asked for.
type objectSinker interface {
	ObjectSink(input string) *graph.ObjectSink
}

// writesPerInput reports whether w's outputs are per input.
func writesPerInput(w formatWriter) bool {
	p, ok := w.(perInputWriter)
	return ok && p.perInput()
}

var formats = map[string]outputFormat{}

func registerFormat(f outputFormat) { formats[f.name] = f }

func formatNames() []string {
	var n []string
	for k := range formats {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}
