package convert

import (
	"context"
	"io"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/text"
)

// decodeText parses a text report into g, keeping what convert already
// set (path, compression).
func decodeText(ctx context.Context, r io.Reader, g *graph.Graph, opts Options) error {
	cr := &ctxReader{ctx: ctx, r: r, progress: opts.Progress}
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
			sortSamples(g, v)
			kept = append(kept, v)
		}
	}
	g.Views = kept
	return nil
}

// ctxReader stops reading when ctx is done and reports progress.
type ctxReader struct {
	ctx      context.Context
	r        io.Reader
	progress func(int64)
	n, last  int64
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	if c.progress != nil && c.n-c.last >= 1<<20 {
		c.last = c.n
		c.progress(c.n)
	}
	return n, err
}
