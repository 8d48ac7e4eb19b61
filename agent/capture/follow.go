package capture

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"syscall"
	"time"
)

// follower reads a file while the JVM writes it: at the end of what is
// there it waits for more, until done is closed; then it reads to the
// file's final end and reports EOF. HotSpot (JDK 17 and later) writes
// its dumps front to back, patching segment lengths in its buffer
// before writing, so what has been written is final.
type follower struct {
	ctx  context.Context
	path string
	done <-chan struct{}
	f    *os.File
	poll time.Duration
	// finished is set once done was seen closed: the next EOF is the end.
	finished bool
}

// errNoFile: the dump file never appeared before the JVM answered.
var errNoFile = errors.New("the JVM wrote no dump file")

func (r *follower) Read(p []byte) (int, error) {
	if r.f == nil {
		if err := r.open(); err != nil {
			return 0, err
		}
	}
	for {
		n, err := r.f.Read(p)
		if n > 0 || (err != nil && err != io.EOF) {
			return n, err
		}
		if r.finished {
			return 0, io.EOF
		}
		if err := r.wait(); err != nil {
			return 0, err
		}
	}
}

// wait sleeps a poll interval or until done; after done, one more read
// pass drains what the JVM wrote last.
func (r *follower) wait() error {
	select {
	case <-r.ctx.Done():
		return r.ctx.Err()
	case <-r.done:
		r.finished = true
	case <-time.After(r.poll):
	}
	return nil
}

func (r *follower) open() error {
	for {
		// The directory is the JVM user's: never follow a link planted
		// in place of the dump.
		f, err := os.OpenFile(r.path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
		if err == nil {
			r.f = f
			return nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if r.finished {
			return errNoFile
		}
		if err := r.wait(); err != nil {
			return err
		}
	}
}

func (r *follower) Close() error {
	if r.f != nil {
		return r.f.Close()
	}
	return nil
}
