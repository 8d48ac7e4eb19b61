package convert

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
)

// textSniff reports whether p starts a text report of the hprof agent
// (java.hprof.txt) or a cpu=old report.
func textSniff(p []byte) bool {
	return bytes.HasPrefix(p, []byte("JAVA PROFILE 1.0.1, created")) || bytes.HasPrefix(p, []byte("count callee caller time"))
}

func decodeText(ctx context.Context, r io.Reader, g *graph.Graph, opts Options) error {
	return fmt.Errorf("%w", errTextNotLinked)
}
