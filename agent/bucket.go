package agent

import (
	"bytes"
	"context"
	"fmt"

	"github.com/hprof2pprof/hprof2pprof/internal/objstore"
	"github.com/hprof2pprof/hprof2pprof/pprofout"
)

// PprofBucket is PprofDir for a folder in object storage (--out
// s3://bucket/prefix, gs://, azblob://): each view of a window is
// uploaded whole as <prefix>/<jvm>/<view>-<start>.pb.gz, visible only
// once complete; the retry and spill queue in front of it keeps windows
// while the store is unreachable.
type PprofBucket struct {
	st  *objstore.Store
	loc objstore.Location
}

var _ Exporter = (*PprofBucket)(nil)

// NewPprofBucket opens the bucket of a storage URL and checks it answers.
func NewPprofBucket(ctx context.Context, url string) (*PprofBucket, error) {
	st, loc, err := objstore.OpenFolder(ctx, url)
	if err != nil {
		return nil, err
	}
	return &PprofBucket{st: st, loc: loc}, nil
}

// Name is "pprof".
func (p *PprofBucket) Name() string { return "pprof" }

// Export uploads every view of the window.
func (p *PprofBucket) Export(ctx context.Context, w *Window) error {
	stamp := w.Start.UTC().Format(StartStamp)
	for _, v := range w.Graph.Views {
		var b bytes.Buffer
		if err := pprofout.Write(&b, w.Graph, v.Name); err != nil {
			return fmt.Errorf("%w: %s: %v", ErrExport, v.Name, err)
		}
		// The sequence number keeps two windows of one stamp apart.
		l := p.loc.Child(fmt.Sprintf("%s/%s-%s-%d.pb.gz", w.JVM, v.Name, stamp, w.Seq))
		if err := p.st.WriteAll(ctx, l, b.Bytes()); err != nil {
			return fmt.Errorf("%w: %v", ErrExport, err)
		}
	}
	return nil
}
