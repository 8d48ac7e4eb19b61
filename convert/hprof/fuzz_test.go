package hprof

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// fixtureBytes returns the decompressed contents of every binary HPROF
// file in testdata (plain or gzip).
func fixtureBytes(tb testing.TB) map[string][]byte {
	tb.Helper()
	paths, _ := filepath.Glob("../../testdata/*")
	out := map[string][]byte{}
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		var magic [2]byte
		io.ReadFull(f, magic[:])
		f.Seek(0, io.SeekStart)
		var r io.Reader = f
		if magic == [2]byte{0x1f, 0x8b} {
			zr, err := gzip.NewReader(f)
			if err != nil {
				f.Close()
				continue
			}
			r = zr
		}
		b, err := io.ReadAll(r)
		f.Close()
		if err != nil && len(b) == 0 {
			continue
		}
		if bytes.HasPrefix(b, []byte("JAVA PROFILE 1.0.")) && bytes.IndexByte(b[:min(len(b), 64)], 0) > 0 {
			out[filepath.Base(p)] = b
		}
	}
	if len(out) == 0 {
		tb.Fatal("no binary HPROF fixtures in testdata")
	}
	return out
}

// sampleFile builds a small, well-formed HPROF file from a real one: the
// header, the first few records of every top-level tag, and one heap
// dump segment holding the first few sub-records of every sub-record
// tag. The fuzzer mutates real record layouts without spending its time
// on megabytes of strings.
func sampleFile(tb testing.TB, data []byte) []byte {
	tb.Helper()
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		tb.Fatal(err)
	}
	out := append([]byte(nil), data[:r.Header.Size]...)
	perTag := map[Tag]int{}
	perSub := map[SubTag]int{}
	var heap []byte
	for {
		rec, err := r.Next()
		if err != nil {
			break // clean end, or the cut of a damaged fixture
		}
		start := rec.Offset
		if rec.Tag == TagHeapDump || rec.Tag == TagHeapDumpSegment {
			h := r.Heap()
			for {
				s, err := h.Next()
				if err != nil {
					break
				}
				off := s.Offset
				if _, err := h.Payload(); err != nil {
					break
				}
				if perSub[s.Tag] < 3 {
					perSub[s.Tag]++
					heap = append(heap, data[off:r.Offset()]...)
				}
			}
			continue
		}
		if perTag[rec.Tag] >= 3 || rec.Length > 4<<10 {
			continue
		}
		if err := r.Skip(); err != nil {
			break
		}
		perTag[rec.Tag]++
		out = append(out, data[start:r.Offset()]...)
	}
	if len(heap) > 0 {
		out = append(out, byte(TagHeapDumpSegment), 0, 0, 0, 0)
		out = binary.BigEndian.AppendUint32(out, uint32(len(heap)))
		out = append(out, heap...)
		out = append(out, byte(TagHeapDumpEnd), 0, 0, 0, 0, 0, 0, 0, 0)
	}
	return out
}

// walk reads every record and sub-record of an input the way a decoder
// does, returning the number of records read and the first error.
// Bodies of every known record are decoded; heap payloads are read for
// every other sub-record and skipped for the rest, so both paths run.
func walk(data []byte) (int, error) {
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		return 0, err
	}
	n := 0
	var frames []uint64
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		switch rec.Tag {
		case TagHeapDump, TagHeapDumpSegment:
			h := r.Heap()
			for i := 0; ; i++ {
				_, err := h.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					return n, err
				}
				if i%2 == 0 {
					if _, err := h.Payload(); err != nil {
						return n, err
					}
				}
			}
		default:
			body, err := r.Body()
			if err != nil {
				return n, err
			}
			if err := decode(r, rec, body, &frames); err != nil {
				return n, err
			}
		}
		n++
	}
}

func decode(r *Reader, rec Record, body []byte, frames *[]uint64) error {
	var err error
	switch rec.Tag {
	case TagUTF8:
		_, err = r.DecodeUTF8(rec, body)
	case TagLoadClass:
		_, err = r.DecodeLoadClass(rec, body)
	case TagFrame:
		_, err = r.DecodeFrame(rec, body)
	case TagTrace:
		var t Trace
		t, err = r.DecodeTrace(rec, body, *frames)
		*frames = t.Frames
	case TagAllocSites:
		_, err = r.DecodeAllocSites(rec, body)
	case TagHeapSummary:
		_, err = r.DecodeHeapSummary(rec, body)
	case TagStartThread:
		_, err = r.DecodeStartThread(rec, body)
	case TagEndThread, TagUnloadClass:
		_, err = r.DecodeU4(rec, body)
	case TagCPUSamples:
		_, err = r.DecodeCPUSamples(rec, body)
	case TagControlSettings:
		_, err = r.DecodeControlSettings(rec, body)
	}
	return err
}

// checkErr fails unless err is nil or a typed error: a *FormatError
// wrapping one of the sentinels, at an offset inside the input.
func checkErr(t *testing.T, err error, size int) {
	t.Helper()
	if err == nil {
		return
	}
	if !errors.Is(err, ErrNotHPROF) && !errors.Is(err, ErrTruncated) && !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrUnsupported) {
		t.Fatalf("untyped error: %v", err)
	}
	var fe *FormatError
	if !errors.As(err, &fe) {
		t.Fatalf("error without an offset: %v", err)
	}
	if fe.Off < 0 || fe.Off > int64(size) {
		t.Fatalf("error offset %d outside the %d-byte input: %v", fe.Off, size, err)
	}
}

// FuzzRecords runs the record reader and every record decoder over
// arbitrary bytes: no panic, a typed error with an offset inside the
// input, and bounded allocation.
func FuzzRecords(f *testing.F) {
	for _, b := range fixtureBytes(f) {
		f.Add(sampleFile(f, b))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := walk(data)
		runtime.ReadMemStats(&after)
		checkErr(t, err, len(data))
		// The reader's 1 MiB buffer, plus what the input holds.
		if len(data) <= 1<<20 {
			if used := after.TotalAlloc - before.TotalAlloc; used > 64<<20 {
				t.Fatalf("%d input bytes made the reader allocate %d bytes", len(data), used)
			}
		}
	})
}

// FuzzHeap runs the heap sub-record reader alone: the input is the body
// of one HEAP DUMP SEGMENT, after a fixed header and with ID size 4 or
// 8 chosen by the first byte.
func FuzzHeap(f *testing.F) {
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
				f.Add(byte(r.IDSize()), append([]byte(nil), body...))
			}
		}
	}
	f.Fuzz(func(t *testing.T, idSize byte, body []byte) {
		size := 4
		if idSize&8 != 0 {
			size = 8
		}
		file := heapFile(size, body)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		r, err := NewReader(bytes.NewReader(file))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Next(); err != nil {
			t.Fatal(err)
		}
		h := r.Heap()
		prev := int64(-1)
		for i := 0; ; i++ {
			s, err := h.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				checkErr(t, err, len(file))
				break
			}
			if s.Offset <= prev {
				t.Fatalf("sub-record at byte %d after one at %d", s.Offset, prev)
			}
			prev = s.Offset
			if i%2 == 0 {
				p, err := h.Payload()
				if err != nil {
					checkErr(t, err, len(file))
					break
				}
				if int64(len(p)) > int64(len(file)) {
					t.Fatalf("payload of %d bytes from a %d-byte input", len(p), len(file))
				}
			}
		}
		runtime.ReadMemStats(&after)
		if used := after.TotalAlloc - before.TotalAlloc; len(body) <= 1<<20 && used > 64<<20 {
			t.Fatalf("%d input bytes made the heap reader allocate %d bytes", len(body), used)
		}
	})
}

// heapFile wraps body in a header and one HEAP DUMP SEGMENT record.
func heapFile(idSize int, body []byte) []byte {
	out := append([]byte("JAVA PROFILE 1.0.2\x00"), 0, 0, 0, byte(idSize), 0, 0, 0, 0, 0, 0, 0, 0)
	out = append(out, byte(TagHeapDumpSegment), 0, 0, 0, 0)
	out = binary.BigEndian.AppendUint32(out, uint32(len(body)))
	return append(out, body...)
}
