package hprof

import (
	"bytes"
	"io"
	"testing"
)

func TestSegmentWindow(t *testing.T) {
	file := bytes.NewReader([]byte("headerBODY-OF-RECORDtrailer"))
	s := NewSegment(file, Record{Tag: TagHeapDumpSegment}, 6, 14)
	var buf []byte
	body, err := s.Body(&buf)
	if err != nil || string(body) != "BODY-OF-RECORD" {
		t.Fatalf("Body = %q, %v; want the 14 bytes at 6", body, err)
	}
	p := make([]byte, 6)
	if n, err := s.ReadAt(p, 5); n != 6 || err != nil || string(p) != "OF-REC" {
		t.Fatalf("ReadAt(5) = %d, %v, %q", n, err, p)
	}
	// Reading past the window's end stops at it, as io.SectionReader.
	if n, err := s.ReadAt(p, 10); n != 4 || err != io.EOF || string(p[:n]) != "CORD" {
		t.Fatalf("ReadAt(10) = %d, %v, %q; want the last 4 bytes and io.EOF", n, err, p[:n])
	}
	// A file that ends inside the segment (it shrank after the segment
	// was cut) gives what is there.
	short := NewSegment(bytes.NewReader([]byte("headerBODY")), Record{}, 6, 14)
	if body, err := short.Body(&buf); err != nil || string(body) != "BODY" {
		t.Fatalf("Body of a shrunk file = %q, %v; want %q", body, err, "BODY")
	}
}
