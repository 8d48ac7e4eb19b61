package source

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
)

// Copy keeps what a decompressed stream yields in a temporary file while
// the conversion's first pass reads it, so that the passes that read the
// input again (the retained view, the heap tables, thread names) read
// that file instead of decompressing once more: a single-stream gzip or
// bzip2 decompresses on one core only, slower than the file is written
// and read. (The JDK's -gz, inflated on every core, is not copied: the
// writing would cost its first pass more than the copy saves.)
//
// The file is unlinked as soon as it is made (nothing is left behind if
// the process dies) and closed by Close. Copying stops, and the passes
// decompress again, when the file cannot be written or when the disk it
// is on would have less than a twentieth of its size (at least 512 MiB)
// left: a heap dump's copy must not fill the disk others use.
type Copy struct {
	r io.Reader

	drain   sync.Mutex // one Reopen at a time reads the rest of the stream
	mu      sync.Mutex
	f       *os.File // nil: no copy (never made, or abandoned)
	n       int64    // bytes written
	done    bool     // the stream ended
	used    bool     // Reopen's function was called
	err     error    // the error that ended it, when not io.EOF
	why     error    // why there is no copy
	checkAt int64    // bytes written when room is checked next
	flushed int64    // bytes handed to writeback
	room    func(dir string, more int64) error
	dir     string
}

const (
	// copyCheckEvery is how many bytes are written between two checks
	// of the disk's free space (each check allows that many more).
	copyCheckEvery = 64 << 20
	// copyFlushEvery is how many bytes are written between two starts
	// of writeback: the dirty page cache stays small, as a memory
	// cgroup's reclaim needs (see convert/retained's spill arena).
	copyFlushEvery = 32 << 20
)

// NewCopy returns r, copied as it is read into a temporary file made in
// dir ("": os.TempDir()). When the file cannot be made, the Copy passes
// the stream through and Reopen falls back.
func NewCopy(r io.Reader, dir string) *Copy {
	c := &Copy{r: r, room: diskRoom, dir: dir}
	if dir == "" {
		c.dir = os.TempDir()
	}
	f, err := os.CreateTemp(dir, "hprof2pprof-input-")
	if err != nil {
		c.why = err
		return c
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		c.why = err
		return c
	}
	c.f = f
	return c
}

// Keep wraps a decompressed stream in a Copy when the conversion reads
// the input again (rereads: the retained view, the heap tables) and
// reopen can read it at all: those passes then read the copy, not the
// compressed file. Otherwise it returns r and reopen as they are, and a
// nil Copy (whose Close and Note do nothing).
func Keep(r io.Reader, dir string, rereads bool, reopen func() (io.ReadCloser, error)) (io.Reader, func() (io.ReadCloser, error), *Copy) {
	if reopen == nil || !rereads {
		return r, reopen, nil
	}
	c := NewCopy(r, dir)
	return c, c.Reopen(reopen), c
}

// Note says, for the conversion's notes, whether the passes that read
// the input again read the copy ("" for a nil Copy, or when no pass read
// the input again).
func (c *Copy) Note(compression string) string {
	if c == nil {
		return ""
	}
	c.mu.Lock()
	used := c.used
	c.mu.Unlock()
	if !used {
		return ""
	}
	n, err := c.Kept()
	if err != nil {
		return fmt.Sprintf("%s: no copy of the decompressed input kept (%v): the passes that read it again decompress it again", compression, err)
	}
	return fmt.Sprintf("%s: the decompressed input (%s) was kept in a temporary file for the passes that read it again", compression, SizeText(n))
}

// Read reads from the stream and copies what it read.
func (c *Copy) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.mu.Lock()
	defer c.mu.Unlock()
	if n > 0 && c.f != nil {
		c.write(p[:n])
	}
	if err != nil {
		c.done = true
		if err != io.EOF {
			c.err = err
		}
	}
	return n, err
}

// write appends p to the file, or abandons the copy.
func (c *Copy) write(p []byte) {
	if c.n+int64(len(p)) > c.checkAt {
		if err := c.room(c.dir, copyCheckEvery+int64(len(p))); err != nil {
			c.abandon(err)
			return
		}
		c.checkAt = c.n + copyCheckEvery
	}
	if _, err := c.f.Write(p); err != nil {
		c.abandon(err)
		return
	}
	c.n += int64(len(p))
	if c.n-c.flushed >= copyFlushEvery {
		startWriteback(c.f, c.flushed, c.n-c.flushed)
		c.flushed = c.n
	}
}

func (c *Copy) abandon(why error) {
	c.f.Close()
	c.f, c.why = nil, why
}

// Reopen returns a reopen function that reads the copy: the rest of the
// stream, past where the first pass stopped, is read and copied first.
// Without a copy it is fallback (nil when there is none: standard
// input).
func (c *Copy) Reopen(fallback func() (io.ReadCloser, error)) func() (io.ReadCloser, error) {
	return func() (io.ReadCloser, error) {
		c.drain.Lock()
		c.mu.Lock()
		rest := c.f != nil && !c.done
		c.used = true
		c.mu.Unlock()
		if rest {
			_, _ = io.Copy(io.Discard, c) // the stream's error, if any, is kept in c.err
		}
		c.drain.Unlock()
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.f == nil {
			if fallback == nil {
				return nil, fmt.Errorf("no copy of the decompressed input: %w", c.why)
			}
			return fallback()
		}
		return io.NopCloser(&copyReader{r: io.NewSectionReader(c.f, 0, c.n), err: c.err}), nil
	}
}

// Kept reports the bytes kept in the copy, or why there is none.
func (c *Copy) Kept() (int64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.f == nil {
		return 0, c.why
	}
	return c.n, nil
}

// Close removes the copy (a nil Copy: nothing to do).
func (c *Copy) Close() error {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.f == nil {
		return nil
	}
	err := c.f.Close()
	c.f, c.why = nil, errors.New("closed")
	return err
}

// copyReader reads the copy and ends as the stream did: with its error,
// when it had one.
type copyReader struct {
	r   io.Reader
	err error
}

func (r *copyReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if err == io.EOF && r.err != nil {
		err = r.err
	}
	return n, err
}
