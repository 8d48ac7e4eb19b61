package hprof

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// fileSubs lists the sub-records of dump through f.Heap.
func fileSubs(t *testing.T, f *File, dump int) (string, error) {
	t.Helper()
	var out strings.Builder
	err := f.Heap(context.Background(), dump, func(hr *HeapReader) error {
		for {
			s, err := hr.Next()
			if err != nil {
				return nil
			}
			fmt.Fprintf(&out, "%v@%d id %x class %x len %d", s.Tag, s.Offset, s.ID, s.ClassID, s.Length)
			p, err := hr.Payload()
			if err != nil {
				return nil
			}
			fmt.Fprintf(&out, " payload %x\n", p)
		}
	})
	return out.String(), err
}

// firstPass reads every record of data through a new File.
func firstPass(t *testing.T, data []byte, again Again) (*File, error) {
	t.Helper()
	f, err := NewFile(bytes.NewReader(data), again)
	if err != nil {
		t.Fatal(err)
	}
	return f, Walk(context.Background(), f.Records(), func(Record) error { return nil })
}

// TestFileHeapPaths: a dump's sub-records are the same read from the
// noted windows (whole, or streamed from a window) and from the input
// opened again, for every fixture and its cut copies.
func TestFileHeapPaths(t *testing.T) {
	for name, whole := range fixtureBytes(t) {
		for _, cut := range []int{len(whole), len(whole) * 2 / 3, len(whole) / 3} {
			data := whole[:cut]
			reopen := func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
			byAt, walkErr := firstPass(t, data, Again{At: AtFile(bytes.NewReader(data))})
			byReopen, _ := firstPass(t, data, Again{Reopen: reopen})
			for dump := 1; dump <= len(byAt.dumps); dump++ {
				want, werr := fileSubs(t, byReopen, dump)
				got, gerr := fileSubs(t, byAt, dump)
				if got != want || !errors.Is(gerr, werr) {
					t.Errorf("%s[:%d] dump %d: windows and reopen differ (%v, %v)", name, cut, dump, gerr, werr)
				}
				saved := maxHeapBody
				maxHeapBody = 0
				got, gerr = fileSubs(t, byAt, dump)
				maxHeapBody = saved
				if got != want || !errors.Is(gerr, werr) {
					t.Errorf("%s[:%d] dump %d: streamed windows and reopen differ (%v, %v)", name, cut, dump, gerr, werr)
				}
			}
			for _, f := range []*File{byAt, byReopen} {
				if _, err := fileSubs(t, f, len(byAt.dumps)+1); walkErr == nil && !errors.Is(err, ErrNoDump) {
					t.Errorf("%s[:%d]: a dump past the last: %v, want ErrNoDump", name, cut, err)
				}
			}
		}
	}
}

// TestFileNoReread: an input with neither random access nor a reopen
// cannot be read again.
func TestFileNoReread(t *testing.T) {
	data := heapFile(8, nil)
	f, _ := firstPass(t, data, Again{})
	if f.CanReread() {
		t.Error("CanReread with nothing to read again")
	}
	if _, err := fileSubs(t, f, 1); !errors.Is(err, ErrNoReread) {
		t.Errorf("err = %v, want ErrNoReread", err)
	}
}
