package agent

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hprof2pprof/hprof2pprof/agent/jvm"
	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/pprofout"
)

// Window is one exported stretch of one JVM's profile.
type Window struct {
	// JVM names the connection in paths: the remote address and the
	// JVM's start time ("127.0.0.1_41234-1795301013197").
	JVM    string
	Remote string            // remote address as seen by the server
	Attrs  map[string]string // --label pairs
	Seq    int               // 1-based, per connection
	Start  time.Time         // the JVM's clock
	End    time.Time
	Graph  *graph.Graph
	// JVMInfo, for windows made from heap dumps (capture, --watch),
	// describes the JVM; its resource attributes go with the window.
	JVMInfo *jvm.Info
	// IntAttrs are further numeric resource attributes (what a capture
	// cost the JVM).
	IntAttrs map[string]int64
}

// Exporter delivers windows to one backend. Export must be safe for
// concurrent use; an error means this attempt failed and may be retried.
type Exporter interface {
	Name() string
	Export(ctx context.Context, w *Window) error
}

// ErrExport: an exporter could not deliver a window.
var ErrExport = errors.New("agent: export failed")

// PprofDir writes each view of a window as DIR/<jvm>/<view>-<start>.pb.gz.
type PprofDir struct {
	Dir string
}

var _ Exporter = (*PprofDir)(nil)

// Name is "pprof".
func (p *PprofDir) Name() string { return "pprof" }

// StartStamp is how a window start appears in file names (UTC, µs).
const StartStamp = "20060102T150405.000000Z"

// Export writes every view; a file is renamed into place only when
// complete, so readers never see half a profile.
func (p *PprofDir) Export(ctx context.Context, w *Window) error {
	dir := filepath.Join(p.Dir, w.JVM)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("%w: %v", ErrExport, err)
	}
	for _, v := range w.Graph.Views {
		if err := ctx.Err(); err != nil {
			return err
		}
		stamp := w.Start.UTC().Format(StartStamp)
		name := filepath.Join(dir, fmt.Sprintf("%s-%s.pb.gz", v.Name, stamp))
		if _, err := os.Stat(name); err == nil {
			// Two windows starting in the same microsecond (the agent's
			// clock ticks in milliseconds): keep both.
			name = filepath.Join(dir, fmt.Sprintf("%s-%s-%d.pb.gz", v.Name, stamp, w.Seq))
		}
		if err := writeAtomic(name, w.Graph, v.Name); err != nil {
			return fmt.Errorf("%w: %s: %v", ErrExport, name, err)
		}
	}
	return nil
}

func writeAtomic(name string, g *graph.Graph, view string) error {
	f, err := os.CreateTemp(filepath.Dir(name), ".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	err = pprofout.Write(f, g, view)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, name)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// jvmName makes the directory name of a connection.
func jvmName(remote string, start time.Time) string {
	r := strings.NewReplacer(":", "_", "[", "", "]", "", "/", "_", "%", "_")
	return fmt.Sprintf("%s-%d", r.Replace(remote), start.UnixMilli())
}
