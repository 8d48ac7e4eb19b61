// Package objstore reads inputs from and writes outputs to object
// storage wherever the CLI takes a path: s3:// (AWS S3 and the
// S3-compatible stores: MinIO, Ceph, SeaweedFS, R2), gs://, azblob:// and
// file:// URLs, through gocloud.dev/blob, which takes each cloud's
// standard credential chain and environment variables (AWS_*, Google
// application default credentials, AZURE_*), and a custom endpoint from
// the URL: s3://bucket/prefix?endpoint=http://host:8333&use_path_style=true
// &region=us-east-1 (also disable_https).
//
// A URL names a bucket (scheme, host and query) and a key or key prefix
// (its path). Objects are read as streams; writes go through the bucket's
// own atomic upload (a multipart upload for large S3 objects): an object
// is visible under its key only once its upload completed, and a failed
// upload leaves nothing there. Transient failures are retried.
package objstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path"
	"strings"
	"time"

	"gocloud.dev/blob"
	_ "gocloud.dev/blob/azureblob" // azblob://
	_ "gocloud.dev/blob/fileblob"  // file://
	_ "gocloud.dev/blob/gcsblob"   // gs://
	_ "gocloud.dev/blob/s3blob"    // s3://
	"gocloud.dev/gcerrors"
)

// schemes are the URL schemes this package opens.
var schemes = []string{"s3://", "gs://", "azblob://", "file://"}

// IsURL reports whether s names object storage rather than a local path.
func IsURL(s string) bool {
	for _, p := range schemes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// Location is a parsed storage URL: the bucket and a key (or prefix).
type Location struct {
	bucketURL string // scheme://host?query: what blob.OpenBucket takes
	Key       string // the path without its leading '/'
	scheme    string
	host      string
	query     string
}

// Parse splits a storage URL into its bucket and key.
func Parse(s string) (Location, error) {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" && u.Scheme != "file" {
		return Location{}, fmt.Errorf("%s: not a storage URL (want s3://bucket/prefix, gs://, azblob:// or file://)", s)
	}
	l := Location{scheme: u.Scheme, host: u.Host, query: u.RawQuery, Key: strings.TrimPrefix(u.Path, "/")}
	if u.Scheme == "file" {
		// file:///dir/sub: the bucket is the root, the key the path.
		l.host = ""
	}
	l.bucketURL = u.Scheme + "://" + l.host
	if u.Scheme == "file" {
		l.bucketURL = "file:///"
	}
	if l.query != "" {
		l.bucketURL += "?" + l.query
	}
	return l, nil
}

// String is the URL without its query (credentials and endpoints stay
// out of names and messages).
func (l Location) String() string {
	if l.scheme == "file" {
		return "file:///" + l.Key
	}
	return l.scheme + "://" + l.host + "/" + l.Key
}

// Child is the location of key rel under l (a prefix).
func (l Location) Child(rel string) Location {
	c := l
	c.Key = path.Join(l.Key, rel)
	if l.Key == "" {
		c.Key = strings.TrimPrefix(rel, "/")
	}
	return c
}

// Parent is the folder l's key is in.
func (l Location) Parent() Location {
	p := l
	p.Key = path.Dir(l.Key)
	if p.Key == "." {
		p.Key = ""
	}
	return p
}

// URL is the full URL, query included (for opening again).
func (l Location) URL() string {
	s := l.String()
	if l.query != "" {
		s += "?" + l.query
	}
	return s
}

// BucketURL is what names the bucket: scheme, host and query.
func (l Location) BucketURL() string { return l.bucketURL }

// Store is an open bucket.
type Store struct {
	b   *blob.Bucket
	loc Location
}

// Open opens the bucket of l.
func Open(ctx context.Context, l Location) (*Store, error) {
	b, err := blob.OpenBucket(ctx, l.bucketURL)
	if err != nil {
		return nil, opError("open", l, err)
	}
	return &Store{b: b, loc: l}, nil
}

// Check makes sure the bucket exists and answers.
func (s *Store) Check(ctx context.Context) error {
	var ok bool
	err := retry(ctx, func() error {
		var err error
		ok, err = s.b.IsAccessible(ctx)
		return err
	})
	if err == nil && !ok {
		err = errors.New("no such bucket, or no access to it")
	}
	if err != nil {
		return opError("open", s.loc, err)
	}
	return nil
}

// OpenFolder opens the bucket of an output folder's URL and checks that
// it answers, as every writer does before it converts anything.
func OpenFolder(ctx context.Context, url string) (*Store, Location, error) {
	loc, err := Parse(url)
	if err != nil {
		return nil, Location{}, err
	}
	st, err := Open(ctx, loc)
	if err != nil {
		return nil, loc, err
	}
	if err := st.Check(ctx); err != nil {
		st.Close()
		return nil, loc, err
	}
	return st, loc, nil
}

// Close releases the bucket.
func (s *Store) Close() error { return s.b.Close() }

// Object is one listed object.
type Object struct {
	Loc     Location
	Size    int64
	ModTime time.Time
}

// List lists the objects under l's key: the object itself when the key
// names one, else every object whose key starts with the key as a
// folder (key + "/"), recursively, sorted by key.
func (s *Store) List(ctx context.Context, l Location) ([]Object, error) {
	if l.Key != "" && !strings.HasSuffix(l.Key, "/") {
		a, err := s.b.Attributes(ctx, l.Key)
		if err == nil {
			return []Object{{Loc: l, Size: a.Size, ModTime: a.ModTime}}, nil
		}
		if gcerrors.Code(err) != gcerrors.NotFound {
			return nil, opError("stat", l, err)
		}
	}
	prefix := l.Key
	if prefix != "" && !strings.HasSuffix(prefix, "/") {
		prefix += "/"
	}
	var out []Object
	it := s.b.List(&blob.ListOptions{Prefix: prefix})
	for {
		o, err := it.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, opError("list", l, err)
		}
		if o.IsDir {
			continue
		}
		c := l
		c.Key = o.Key
		out = append(out, Object{Loc: c, Size: o.Size, ModTime: o.ModTime})
	}
	if len(out) == 0 {
		return nil, opError("list", l, os.ErrNotExist)
	}
	return out, nil
}

// Reader opens l's object as a stream.
func (s *Store) Reader(ctx context.Context, l Location) (io.ReadCloser, error) {
	var r io.ReadCloser
	err := retry(ctx, func() error {
		var err error
		r, err = s.b.NewReader(ctx, l.Key, nil)
		return err
	})
	if err != nil {
		return nil, opError("read", l, err)
	}
	return r, nil
}

// ReaderAt reads l's object in ranges, one request a call (retried):
// random access for a reader that takes large pieces at a time, such as
// the parallel gzip inflater's members.
func (s *Store) ReaderAt(ctx context.Context, l Location) io.ReaderAt {
	return rangeReader{ctx: ctx, s: s, l: l}
}

type rangeReader struct {
	ctx context.Context
	s   *Store
	l   Location
}

func (r rangeReader) ReadAt(p []byte, off int64) (int, error) {
	var n int
	err := retry(r.ctx, func() error {
		rr, err := r.s.b.NewRangeReader(r.ctx, r.l.Key, off, int64(len(p)), nil)
		if err != nil {
			return err
		}
		defer rr.Close()
		n, err = io.ReadFull(rr, p)
		if err == io.ErrUnexpectedEOF || err == io.EOF {
			return permanent{io.EOF}
		}
		return err
	})
	var pe permanent
	if errors.As(err, &pe) && pe.error == io.EOF {
		return n, io.EOF
	}
	if err != nil {
		return n, opError("read", r.l, err)
	}
	return n, nil
}

// ReadAll reads a small object whole; a missing one is os.ErrNotExist.
func (s *Store) ReadAll(ctx context.Context, l Location) ([]byte, error) {
	var data []byte
	err := retry(ctx, func() error {
		var err error
		data, err = s.b.ReadAll(ctx, l.Key)
		return err
	})
	if err != nil {
		return nil, opError("read", l, err)
	}
	return data, nil
}

// Upload writes the local file at src to l's key: the object appears
// whole when the upload completes, or not at all.
func (s *Store) Upload(ctx context.Context, src string, l Location) error {
	err := retry(ctx, func() error {
		f, err := os.Open(src)
		if err != nil {
			return permanent{err}
		}
		defer f.Close()
		return s.write(ctx, l, f)
	})
	if err != nil {
		return opError("upload", l, err)
	}
	return nil
}

// UploadReader writes what r gives to l's key, once (a stream cannot be
// read again to retry): the object appears whole, or not at all.
func (s *Store) UploadReader(ctx context.Context, r io.Reader, l Location) error {
	if err := s.write(ctx, l, r); err != nil {
		return opError("upload", l, err)
	}
	return nil
}

// WriteAll writes data to l's key as Upload does.
func (s *Store) WriteAll(ctx context.Context, l Location, data []byte) error {
	err := retry(ctx, func() error { return s.write(ctx, l, bytes.NewReader(data)) })
	if err != nil {
		return opError("upload", l, err)
	}
	return nil
}

// write uploads r to l; an error aborts the upload (nothing is left
// under the key).
func (s *Store) write(ctx context.Context, l Location, r io.Reader) error {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := s.b.NewWriter(wctx, l.Key, nil)
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, r); err != nil {
		cancel() // abort: the object is not created
		w.Close()
		return err
	}
	return w.Close()
}

// Delete removes l's object; a missing one is no error.
func (s *Store) Delete(ctx context.Context, l Location) error {
	if err := s.b.Delete(ctx, l.Key); err != nil && gcerrors.Code(err) != gcerrors.NotFound {
		return opError("delete", l, err)
	}
	return nil
}

// permanent marks an error retry must not retry.
type permanent struct{ error }

func (p permanent) Unwrap() error { return p.error }

// retry runs f up to four times while it fails in a way that may pass
// (the server unreachable or busy), waiting longer each time.
func retry(ctx context.Context, f func() error) error {
	var err error
	for i := range 4 {
		if err = f(); err == nil || !transient(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(time.Duration(200<<i) * time.Millisecond):
		}
	}
	return err
}

func transient(err error) bool {
	var p permanent
	if errors.As(err, &p) || errors.Is(err, context.Canceled) {
		return false
	}
	switch gcerrors.Code(err) {
	case gcerrors.NotFound, gcerrors.PermissionDenied, gcerrors.InvalidArgument, gcerrors.FailedPrecondition, gcerrors.AlreadyExists:
		return false
	}
	return true
}

// Error is a failed storage operation: what was done, on which URL.
type Error struct {
	Op  string
	URL string
	Err error
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s %s: %s", e.Op, e.URL, message(e.Err))
}

func (e *Error) Unwrap() error { return e.Err }

func opError(op string, l Location, err error) error {
	if gcerrors.Code(err) == gcerrors.NotFound && !errors.Is(err, os.ErrNotExist) {
		err = fmt.Errorf("%w (%v)", os.ErrNotExist, err)
	}
	return &Error{Op: op, URL: l.String(), Err: err}
}

// message shortens a driver's error to its first line.
func message(err error) string {
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}
