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
// writer with Add, and calls Close once after the last input. Add is
// called for one input at a time, so a writer that emits per input
// (pprof, folded) holds nothing; one that gathers (an OTLP file, Parquet
// tables) decides what it keeps.
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
	Stdout io.Writer // standard output, for Out == "-"
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
