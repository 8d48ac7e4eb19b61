package source

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

// stream is data read in uneven pieces, ending with end (io.EOF or an
// error).
type stream struct {
	data []byte
	end  error
	rng  *rand.Rand
}

func (s *stream) Read(p []byte) (int, error) {
	if len(s.data) == 0 {
		return 0, s.end
	}
	n := min(len(p), len(s.data), 1+s.rng.IntN(5000))
	copy(p, s.data[:n])
	s.data = s.data[n:]
	return n, nil
}

func randomBytes(n int) []byte {
	rng := rand.New(rand.NewPCG(7, 8))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// noFallback fails a test that reads the original input again.
func noFallback(t *testing.T) func() (io.ReadCloser, error) {
	return func() (io.ReadCloser, error) {
		t.Error("the input was read again although a copy was kept")
		return nil, errors.New("no fallback")
	}
}

// TestCopyReadsBack: what the stream yields passes through unchanged and
// is read back from the copy, as often as asked, also when the first
// reader stopped halfway (the rest is copied then); the file is gone
// from its directory from the start and its bytes are counted.
func TestCopyReadsBack(t *testing.T) {
	want := randomBytes(300_000)
	for _, half := range []bool{false, true} {
		dir := t.TempDir()
		c := NewCopy(&stream{data: want, end: io.EOF, rng: rand.New(rand.NewPCG(1, 2))}, dir)
		if left, _ := os.ReadDir(dir); len(left) != 0 {
			t.Errorf("the copy's file is still in its directory: %v", left)
		}
		var first []byte
		if half {
			first = make([]byte, 100_000)
			if _, err := io.ReadFull(c, first); err != nil {
				t.Fatal(err)
			}
		} else {
			var err error
			if first, err = io.ReadAll(c); err != nil || !bytes.Equal(first, want) {
				t.Fatalf("passed through: %d bytes, %v", len(first), err)
			}
		}
		if note := c.Note("gzip"); note != "" {
			t.Errorf("a note before any pass read the input again: %q", note)
		}
		reopen := c.Reopen(noFallback(t))
		for range 2 {
			r, err := reopen()
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(r)
			r.Close()
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("half %v: read back %d bytes (want %d), %v", half, len(got), len(want), err)
			}
		}
		if n, err := c.Kept(); n != int64(len(want)) || err != nil {
			t.Errorf("kept %d, %v", n, err)
		}
		if note := c.Note("gzip"); !strings.Contains(note, "was kept in a temporary file") {
			t.Errorf("note %q", note)
		}
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	}
}

// TestCopyConcurrentReopens: passes that reopen at once, before the
// stream was read to its end, each read the whole copy (one of them
// reads the rest of the stream; run with -race).
func TestCopyConcurrentReopens(t *testing.T) {
	want := randomBytes(400_000)
	c := NewCopy(&stream{data: want, end: io.EOF, rng: rand.New(rand.NewPCG(9, 10))}, t.TempDir())
	defer c.Close()
	if _, err := io.ReadFull(c, make([]byte, 1000)); err != nil {
		t.Fatal(err)
	}
	reopen := c.Reopen(noFallback(t))
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			r, err := reopen()
			if err == nil {
				var got []byte
				if got, err = io.ReadAll(r); err == nil && !bytes.Equal(got, want) {
					err = errors.New("different bytes")
				}
			}
			errs <- err
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestCopyEndsAsTheStream: a stream that ended with an error (a
// truncated gzip member) is read back ending with the same error, after
// the same bytes.
func TestCopyEndsAsTheStream(t *testing.T) {
	want := randomBytes(50_000)
	c := NewCopy(&stream{data: want, end: io.ErrUnexpectedEOF, rng: rand.New(rand.NewPCG(3, 4))}, t.TempDir())
	defer c.Close()
	if _, err := io.ReadAll(c); err != io.ErrUnexpectedEOF {
		t.Fatalf("the stream ended with %v", err)
	}
	r, err := c.Reopen(noFallback(t))()
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(r)
	if err != io.ErrUnexpectedEOF || !bytes.Equal(got, want) {
		t.Errorf("read back %d bytes ending with %v, want %d and %v", len(got), err, len(want), io.ErrUnexpectedEOF)
	}
}

// TestCopyAbandoned: when the disk has no room (or the copy is closed),
// the stream still passes through whole and the input is read again
// through the fallback; without one, reopening says why.
func TestCopyAbandoned(t *testing.T) {
	want := randomBytes(200_000)
	c := NewCopy(&stream{data: want, end: io.EOF, rng: rand.New(rand.NewPCG(5, 6))}, t.TempDir())
	full := errors.New("disk full")
	c.room = func(string, int64) error { return full }
	got, err := io.ReadAll(c)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("passed through: %d bytes, %v", len(got), err)
	}
	if _, err := c.Kept(); !errors.Is(err, full) {
		t.Errorf("Kept: %v, want %v", err, full)
	}
	fellBack := false
	fallback := func() (io.ReadCloser, error) {
		fellBack = true
		return io.NopCloser(bytes.NewReader(want)), nil
	}
	if _, err := c.Reopen(fallback)(); err != nil || !fellBack {
		t.Errorf("no fallback: %v", err)
	}
	if note := c.Note("bzip2"); !strings.Contains(note, "disk full") || !strings.Contains(note, "decompress it again") {
		t.Errorf("note %q", note)
	}
	if _, err := c.Reopen(nil)(); !errors.Is(err, full) {
		t.Errorf("without a fallback: %v, want the reason", err)
	}

	closed := NewCopy(bytes.NewReader(want), t.TempDir())
	if err := closed.Close(); err != nil {
		t.Fatal(err)
	}
	fellBack = false
	if _, err := closed.Reopen(fallback)(); err != nil || !fellBack {
		t.Errorf("closed copy: no fallback: %v", err)
	}
	var none *Copy
	if err := none.Close(); err != nil {
		t.Errorf("nil Copy: %v", err)
	}
}
