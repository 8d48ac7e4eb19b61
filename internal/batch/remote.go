package batch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/hprof2pprof/hprof2pprof/convert"
	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/internal/objstore"
	"github.com/hprof2pprof/hprof2pprof/otlp"
)

// Object storage: inputs listed under s3://, gs://, azblob:// or file://
// URLs and read as streams; outputs written in a local staging folder
// and uploaded, each object whole, with the resume marks beside them in
// the bucket.

// listTimeout bounds the listing of one URL argument.
const listTimeout = 2 * time.Minute

// expandRemote lists the objects a URL argument names: the object
// itself, or every object under it as a folder that sel takes (hidden
// names and this tool's own outputs left out), sorted by key.
func expandRemote(arg string, sel Selection) ([]Input, error) {
	loc, err := objstore.Parse(arg)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUsage, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), listTimeout)
	defer cancel()
	st, err := objstore.Open(ctx, loc)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	objs, err := st.List(ctx, loc)
	if errors.Is(err, os.ErrNotExist) {
		// Kept: the job reports it as this input's failure.
		return []Input{{Path: loc.String(), Key: loc.String(), Rel: path.Base(loc.Key), Size: -1, Remote: &loc}}, nil
	}
	if err != nil {
		return nil, err
	}
	if len(objs) == 1 && objs[0].Loc.Key == loc.Key {
		o := objs[0]
		return []Input{{Path: o.Loc.String(), Key: o.Loc.String(), Rel: path.Base(o.Loc.Key), Size: o.Size, ModTime: o.ModTime, Remote: &o.Loc}}, nil
	}
	prefix := strings.TrimSuffix(loc.Key, "/")
	var out []Input
	for _, o := range objs {
		rel := strings.TrimPrefix(strings.TrimPrefix(o.Loc.Key, prefix), "/")
		if hiddenPath(rel) {
			continue
		}
		if ok, err := sel.takes(rel); err != nil || !ok {
			if err != nil {
				return nil, err
			}
			continue
		}
		l := o.Loc
		out = append(out, Input{Path: l.String(), Key: rel, Rel: rel, Size: o.Size, ModTime: o.ModTime, InDir: true, Remote: &l})
	}
	return out, nil
}

// hiddenPath reports whether a slash-separated path has a part starting
// with '.', as a walk skips (staging folders, resume marks).
func hiddenPath(rel string) bool {
	for _, part := range strings.Split(rel, "/") {
		if strings.HasPrefix(part, ".") {
			return true
		}
	}
	return false
}

// stores opens each bucket once per job.
type stores struct {
	mu sync.Mutex
	m  map[string]*objstore.Store
}

func (s *stores) open(ctx context.Context, l objstore.Location) (*objstore.Store, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := l.BucketURL()
	if st := s.m[key]; st != nil {
		return st, nil
	}
	st, err := objstore.Open(ctx, l)
	if err != nil {
		return nil, err
	}
	if s.m == nil {
		s.m = map[string]*objstore.Store{}
	}
	s.m[key] = st
	return st, nil
}

func (s *stores) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, st := range s.m {
		st.Close()
	}
	s.m = nil
}

// opener reads a remote input as a stream, once per pass.
func (s *stores) opener(ctx context.Context, l objstore.Location) func() (io.ReadCloser, error) {
	return func() (io.ReadCloser, error) {
		st, err := s.open(ctx, l)
		if err != nil {
			return nil, err
		}
		return st.Reader(ctx, l)
	}
}

// decode decodes a remote input: streamed, its JDK -gz members read in
// ranges and inflated in parallel.
func (s *stores) decode(ctx context.Context, name string, size int64, l objstore.Location, opts convert.Options) (*convert.Decoded, error) {
	st, err := s.open(ctx, l)
	if err != nil {
		return nil, err
	}
	return convert.DecodeOpen(ctx, name, size, s.opener(ctx, l), st.ReaderAt(ctx, l), opts)
}

// ConvertPath converts one input named by a path or a storage URL
// (info, push).
func ConvertPath(ctx context.Context, path string, opts convert.Options) (*graph.Graph, error) {
	if !objstore.IsURL(path) {
		return convert.ConvertFile(ctx, path, opts)
	}
	l, err := objstore.Parse(path)
	if err != nil {
		return nil, err
	}
	var s stores
	defer s.close()
	st, err := s.open(ctx, l)
	if err != nil {
		return nil, err
	}
	objs, err := st.List(ctx, l)
	if err != nil {
		return nil, err
	}
	if len(objs) != 1 || objs[0].Loc.Key != l.Key {
		return nil, fmt.Errorf("%s is a folder of %d objects: name one", l, len(objs))
	}
	d, err := s.decode(ctx, l.String(), objs[0].Size, l, opts)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.Graph(), nil
}

// remoteOut is an output folder in object storage: writers write into
// the local staging folder local, and each finished file is uploaded to
// the same place under loc and removed here.
type remoteOut struct {
	st    *objstore.Store
	loc   objstore.Location
	local string
}

func openRemoteOut(ctx context.Context, url, local string) (*remoteOut, error) {
	if _, err := objstore.Parse(url); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUsage, err)
	}
	st, loc, err := objstore.OpenFolder(ctx, url)
	if err != nil {
		return nil, err
	}
	return &remoteOut{st: st, loc: loc, local: local}, nil
}

// at is the remote place of a local path under the staging folder.
func (o *remoteOut) at(p string) (objstore.Location, error) {
	rel, err := filepath.Rel(o.local, p)
	if err != nil || strings.HasPrefix(rel, "..") {
		return objstore.Location{}, fmt.Errorf("%s is outside the staging folder %s", p, o.local)
	}
	return o.loc.Child(filepath.ToSlash(rel)), nil
}

// publish uploads local files and removes them; it returns their URLs.
func (o *remoteOut) publish(ctx context.Context, paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		l, err := o.at(p)
		if err != nil {
			return out, err
		}
		if err := o.st.Upload(ctx, p, l); err != nil {
			return out, err
		}
		os.Remove(p)
		out = append(out, l.String())
	}
	return out, nil
}

// readMark reads a remote done mark (nil when there is none).
func (o *remoteOut) readMark(ctx context.Context, local string) *doneMark {
	l, err := o.at(local)
	if err != nil {
		return nil
	}
	data, err := o.st.ReadAll(ctx, l)
	if err != nil {
		return nil
	}
	return parseMark(data)
}

// writeMark writes a done mark next to the remote outputs.
func (o *remoteOut) writeMark(ctx context.Context, local string, m *doneMark) error {
	l, err := o.at(local)
	if err != nil {
		return err
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return o.st.WriteAll(ctx, l, append(data, '\n'))
}

// exists reports whether every output URL of a mark is in the bucket.
func (o *remoteOut) exists(ctx context.Context, urls []string) bool {
	for _, u := range urls {
		l, err := objstore.Parse(u)
		if err != nil {
			return false
		}
		if _, err := o.st.List(ctx, l); err != nil {
			return false
		}
	}
	return true
}

// writeRemote writes a small object at a storage URL.
func writeRemote(url string, data []byte) error {
	loc, err := objstore.Parse(url)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), listTimeout)
	defer cancel()
	st, err := objstore.Open(ctx, loc)
	if err != nil {
		return err
	}
	defer st.Close()
	return st.WriteAll(ctx, loc, data)
}

// stageOutputs turns a Dir or Out that is a storage URL into a local
// staging folder (Dir) or a file in one (Out); it returns the URL of the
// remote folder they are uploaded to ("" for local outputs) and the
// staging folder.
func stageOutputs(j *Job) (remote, staging string, err error) {
	switch {
	case objstore.IsURL(j.Dir):
		if staging, err = stageRemote(j.Dir, j.Convert.SpillDir); err != nil {
			return "", "", err
		}
		remote, j.Dir = j.Dir, staging
	case objstore.IsURL(j.Out):
		loc, err := objstore.Parse(j.Out)
		if err != nil || loc.Key == "" || strings.HasSuffix(loc.Key, "/") {
			return "", "", fmt.Errorf("%w: -o %s: name an object, not a folder (-d takes folders)", ErrUsage, j.Out)
		}
		if staging, err = stageRemote(j.Out, j.Convert.SpillDir); err != nil {
			return "", "", err
		}
		remote, j.Out = loc.Parent().URL(), filepath.Join(staging, path.Base(loc.Key))
	}
	return remote, staging, nil
}

// stageRemote makes the local staging folder of an output folder in
// object storage, under spill or the system's temporary folder.
func stageRemote(url, spill string) (string, error) {
	if _, err := objstore.Parse(url); err != nil {
		return "", fmt.Errorf("%w: -d: %v", ErrUsage, err)
	}
	return os.MkdirTemp(spill, "hprof2pprof-out-*")
}

// intoDir runs write with dst.Dir a local folder: one named by a storage
// URL is replaced by a staging folder (under spill), and the files write
// returns are uploaded to the URL; it returns their paths or URLs.
func intoDir(ctx context.Context, dst Destination, spill string, write func(Destination) ([]string, error)) ([]string, error) {
	if !objstore.IsURL(dst.Dir) {
		return write(dst)
	}
	local, err := stageRemote(dst.Dir, spill)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(local)
	out, err := openRemoteOut(ctx, dst.Dir, local)
	if err != nil {
		return nil, err
	}
	defer out.st.Close()
	dst.Dir = local
	wrote, err := write(dst)
	if err != nil {
		return wrote, err
	}
	return out.publish(ctx, wrote)
}

// WriteGraph writes one graph in a format to dst, as capture does with
// each heap dump it takes: a dst.Dir that is a storage URL is written in
// a local staging folder (under spill) and uploaded. It returns the
// paths or URLs written.
func WriteGraph(ctx context.Context, format string, dst Destination, fo FormatOptions, spill, input string, g *graph.Graph, views []string) ([]string, error) {
	return intoDir(ctx, dst, spill, func(dst Destination) ([]string, error) {
		w, err := OpenFormat(format, dst, fo)
		if err != nil {
			return nil, err
		}
		wrote, err := w.Add(ctx, input, g, views)
		closed, cerr := w.Close()
		if err == nil {
			err = cerr
		}
		return append(wrote, closed...), err
	})
}

// WriteOTLPFor writes one input's OTLP request file (WriteOTLP) as
// dst names it: Out, else <OutBase>.otlp.pb, uploaded where dst.Dir is a
// storage URL. It returns the path or URL written.
func WriteOTLPFor(ctx context.Context, dst Destination, spill, input string, b *otlp.Builder) (string, error) {
	wrote, err := intoDir(ctx, dst, spill, func(dst Destination) ([]string, error) {
		p := dst.Out
		if p == "" {
			p = dst.OutBase(input) + ".otlp.pb"
		}
		return []string{p}, WriteOTLP(p, b)
	})
	if err != nil {
		return "", err
	}
	return wrote[0], nil
}
