package convert

import (
	"context"
	"io"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/source"
	"github.com/hprof2pprof/hprof2pprof/convert/text"
)

// decodeText parses a text report into g, keeping what convert already
// set (path, compression).
func decodeText(ctx context.Context, r io.Reader, g *graph.Graph, opts Options) error {
	cr := source.WithContext(ctx, r, opts.Progress)
	tg, err := text.Parse(cr, text.Options{Interval: opts.interval(), Dump: opts.Dump})
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return err
	}
	path, compression := g.Source.Path, g.Source.Compression
	*g = *tg
	g.Source.Path, g.Source.Compression = path, compression
	kept := g.Views[:0]
	for _, v := range g.Views {
		if opts.wants(v.Name) {
			g.SortSamples(v)
			kept = append(kept, v)
		}
	}
	g.Views = kept
	return nil
}
