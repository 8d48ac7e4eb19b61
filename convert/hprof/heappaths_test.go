package hprof

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// FuzzHeapPaths decodes one HEAP DUMP SEGMENT body with both heap
// sources of the one heap iterator, the streamed Reader.Heap and the
// in-memory NewHeapBytes, whole and with the input cut short after `keep`
// bytes of the body: they share one decoder and error policy, so they
// must yield the same
// sub-records and payloads, and stop on the same kind of error.
func FuzzHeapPaths(f *testing.F) {
	for _, b := range fixtureBytes(f) {
		s := sampleFile(f, b)
		r, err := NewReader(bytes.NewReader(s))
		if err != nil {
			f.Fatal(err)
		}
		for {
			rec, err := r.Next()
			if err != nil {
				break
			}
			if rec.Tag == TagHeapDumpSegment {
				body, _ := r.Body()
				f.Add(byte(r.IDSize()), uint16(len(body)/2), append([]byte(nil), body...))
			}
		}
	}
	f.Add(byte(8), uint16(0), []byte{0x21, 1, 2})
	f.Fuzz(func(t *testing.T, idSize byte, keep uint16, body []byte) {
		size := 4
		if idSize&8 != 0 {
			size = 8
		}
		file := heapFile(size, body)
		for _, cut := range []int{len(body), min(int(keep), len(body))} {
			in := file[:len(file)-len(body)+cut]
			a, aerr := streamedSubs(t, in)
			b, berr := mappedSubs(t, in, size)
			if a != b {
				t.Fatalf("cut at %d of %d: streamed and mapped differ:\n%s\n%s", cut, len(body), a, b)
			}
			if kind(aerr) != kind(berr) {
				t.Fatalf("cut at %d of %d: streamed stops with %v, mapped with %v", cut, len(body), aerr, berr)
			}
		}
	})
}

func kind(err error) string {
	switch {
	case err == nil:
		return "end"
	case errors.Is(err, ErrTruncated):
		return "truncated"
	case errors.Is(err, ErrCorrupt):
		return "corrupt"
	case errors.Is(err, ErrUnsupported):
		return "unsupported"
	}
	return err.Error()
}

func streamedSubs(t *testing.T, file []byte) (string, error) {
	r, err := NewReader(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	h := r.Heap()
	for {
		s, err := h.Next()
		if err == io.EOF {
			return out.String(), nil
		}
		if err != nil {
			return out.String(), err
		}
		line := fmt.Sprintf("%v@%d id %x class %x len %d", s.Tag, s.Offset, s.ID, s.ClassID, s.Length)
		p, err := h.Payload()
		if err != nil {
			return out.String(), err
		}
		fmt.Fprintf(&out, "%s payload %x\n", line, p)
	}
}

func mappedSubs(t *testing.T, file []byte, idSize int) (string, error) {
	r, err := NewReader(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	rec, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	body := file[int(rec.Offset)+recordHeaderSize:]
	var out strings.Builder
	h := NewHeapBytes(body, rec, idSize)
	for {
		s, err := h.Next()
		if err == io.EOF {
			return out.String(), nil
		}
		if err != nil {
			return out.String(), err
		}
		line := fmt.Sprintf("%v@%d id %x class %x len %d", s.Tag, s.Offset, s.ID, s.ClassID, s.Length)
		p, err := h.Payload()
		if err != nil {
			return out.String(), err
		}
		fmt.Fprintf(&out, "%s payload %x\n", line, p)
	}
}
