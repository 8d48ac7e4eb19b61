package main

import (
	"context"
	"flag"
	"os"
	"strings"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/otlp"
)

// otlpServiceName is convert's --service-name (format otlp).
var otlpServiceName string

func init() {
	registerFormat(outputFormat{
		name: "otlp",
		help: "OTLP profiles ExportProfilesServiceRequest (protobuf; OTLP-JSON when -o ends in .json)",
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&otlpServiceName, "service-name", "", "service.name of OTLP profiles (default: the input's base name)")
		},
		open: func(dst destination) (formatWriter, error) {
			return &otlpWriter{dst: dst, b: otlp.NewBuilder(otlp.Options{ServiceName: otlpServiceName})}, nil
		},
	})
}

// otlpWriter writes one request for all inputs to -o, or one request per
// input (<input>.otlp.pb, in -d DIR when given) without -o.
type otlpWriter struct {
	dst destination
	b   *otlp.Builder // the request for -o
}

func (w *otlpWriter) Add(ctx context.Context, input string, g *graph.Graph, views []string) ([]string, error) {
	if w.dst.Out != "" {
		return nil, w.b.Add(g, views)
	}
	b := otlp.NewBuilder(otlp.Options{ServiceName: otlpServiceName})
	if err := b.Add(g, views); err != nil {
		return nil, err
	}
	p := w.dst.outBase(input) + ".otlp.pb"

	if err := writeOTLP(p, b); err != nil {
		return nil, err
	}
	return []string{p}, nil
}

// perInput: without -o each input gets its own request file, written by
// Add with a builder of its own, so Add is safe for concurrent use; with
// -o the inputs gather into w.b.
func (w *otlpWriter) perInput() bool { return w.dst.Out == "" }

func (w *otlpWriter) Close() ([]string, error) {
	if w.dst.Out == "" || w.b.Len() == 0 {
		return nil, nil
	}
	if w.dst.Out == "-" {
		req := w.b.Request()
		if err := otlp.Validate(req); err != nil {
			return nil, err
		}
		b, err := otlp.Marshal(req, false)
		if err != nil {
			return nil, err
		}
		if _, err := w.dst.Stdout.Write(b); err != nil {
			return nil, err
		}
		return []string{"standard output"}, nil
	}
	if err := writeOTLP(w.dst.Out, w.b); err != nil {
		return nil, err
	}
	return []string{w.dst.Out}, nil
}

// writeOTLP validates the request and writes it atomically: protobuf, or
// OTLP-JSON for a .json path.
func writeOTLP(path string, b *otlp.Builder) error {
	req := b.Request()
	if err := otlp.Validate(req); err != nil {
		return err
	}
	data, err := otlp.Marshal(req, strings.HasSuffix(path, ".json"))
	if err != nil {
		return err
	}
	return writeFileAtomic(path, func(f *os.File) error {
		_, err := f.Write(data)
		return err
	})
}
