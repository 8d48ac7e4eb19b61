package batch

import (
	"context"
	"os"
	"strings"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/otlp"
)

func init() {
	registerFormat(outputFormat{
		// an OTLP profiles ExportProfilesServiceRequest (protobuf;
		// OTLP-JSON when Out ends in .json)
		name: "otlp",
		open: func(dst Destination, o FormatOptions) (Writer, error) {
			return &otlpWriter{dst: dst, service: o.ServiceName, b: otlp.NewBuilder(otlp.Options{ServiceName: o.ServiceName})}, nil
		},
	})
}

// otlpWriter writes one request for all inputs to Out, or one request per
// input (<input>.otlp.pb, in Dir when given) without Out.
type otlpWriter struct {
	dst     Destination
	service string
	b       *otlp.Builder // the request for Out
}

func (w *otlpWriter) Add(ctx context.Context, input string, g *graph.Graph, views []string) ([]string, error) {
	if w.dst.Out != "" {
		return nil, w.b.Add(g, views)
	}
	b := otlp.NewBuilder(otlp.Options{ServiceName: w.service})
	if err := b.Add(g, views); err != nil {
		return nil, err
	}
	p := w.dst.OutBase(input) + ".otlp.pb"

	if err := WriteOTLP(p, b); err != nil {
		return nil, err
	}
	return []string{p}, nil
}

// perInput: without Out each input gets its own request file, written by
// Add with a builder of its own, so Add is safe for concurrent use; with
// Out the inputs gather into w.b.
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
	if err := WriteOTLP(w.dst.Out, w.b); err != nil {
		return nil, err
	}
	return []string{w.dst.Out}, nil
}

// WriteOTLP validates b's request and writes it to path atomically:
// protobuf, or OTLP-JSON for a .json path.
func WriteOTLP(path string, b *otlp.Builder) error {
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
