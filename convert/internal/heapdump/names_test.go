package heapdump

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"testing"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/hprof"
)

type testEnv struct{ strs, classes map[uint64]string }

func (e testEnv) String(id uint64) string                        { return e.strs[id] }
func (e testEnv) ClassName(id uint64) string                     { return e.classes[id] }
func (e testEnv) SoftFail(graph.SoftKind)                        {}
func (e testEnv) SoftFailDetail(k graph.SoftKind, detail string) {}

// testFile is a File whose first pass read only the header: its later
// passes read through again.
func testFile(t *testing.T, again hprof.Again) *hprof.File {
	t.Helper()
	f, err := hprof.NewFile(bytes.NewReader(sub("JAVA PROFILE 1.0.2", uint8(0), uint32(8), uint64(0))), again)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// countingReader counts the reads that start at each offset.
type countingReader struct {
	r     *bytes.Reader
	reads map[int64]int
}

func (c *countingReader) ReadAt(p []byte, off int64) (int, error) {
	c.reads[off]++
	return c.r.ReadAt(p, off)
}

// Sub-records with 8-byte IDs.
func sub(parts ...any) []byte {
	var b bytes.Buffer
	for _, p := range parts {
		if s, ok := p.(string); ok {
			b.WriteString(s)
			continue
		}
		if err := binary.Write(&b, binary.BigEndian, p); err != nil {
			panic(err)
		}
	}
	return b.Bytes()
}

func classDump(id uint64, fields ...hprof.FieldDecl) []byte {
	b := sub(uint8(0x20), id, uint32(0), uint64(0), uint64(0), uint64(0), uint64(0), uint64(0), uint64(0), uint32(0), uint16(0), uint16(0), uint16(len(fields)))
	for _, f := range fields {
		b = append(b, sub(f.NameID, uint8(f.Type))...)
	}
	return b
}

func instance(id, class uint64, data []byte) []byte {
	return append(sub(uint8(0x21), id, uint32(0), class, uint32(len(data))), data...)
}

func byteArray(id uint64, text string) []byte {
	return sub(uint8(0x23), id, uint32(0), uint32(len(text)), uint8(hprof.TypeByte), text)
}

// TestSpanNamePassReadsOnlyWhatNamesNeed: thread names whose Strings and
// arrays come before the thread objects, in other heap records, are found
// by reading again only the records whose object IDs may hold them.
func TestSpanNamePassReadsOnlyWhatNamesNeed(t *testing.T) {
	const threadCls, stringCls = 200, 300
	env := testEnv{
		strs:    map[uint64]string{10: "name", 11: "value", 12: "coder"},
		classes: map[uint64]string{threadCls: "java.lang.Thread", stringCls: "java.lang.String"},
	}
	str := func(id, value uint64) []byte { return instance(id, stringCls, sub(value, uint8(0))) }
	thread := func(id, name uint64) []byte { return instance(id, threadCls, sub(name)) }
	var filler []byte
	for i := range 100 {
		filler = append(filler, byteArray(9000+uint64(i)*16, "x")...)
	}
	bodies := [][]byte{
		bytes.Join([][]byte{
			classDump(threadCls, hprof.FieldDecl{NameID: 10, Type: hprof.TypeObject}),
			classDump(stringCls, hprof.FieldDecl{NameID: 11, Type: hprof.TypeObject}, hprof.FieldDecl{NameID: 12, Type: hprof.TypeByte}),
			sub(uint8(0x08), uint64(1001), uint32(1), uint32(0)), // ROOT THREAD OBJECT
			sub(uint8(0x08), uint64(1002), uint32(2), uint32(0)),
		}, nil),
		append(byteArray(5001, "worker-1"), byteArray(5002, "worker-2")...),
		str(4001, 5001),
		filler, filler, filler,
		append(thread(1001, 4001), thread(1002, 4002)...),
		str(4002, 5002),
		filler,
	}
	fillers := map[int]bool{3: true, 4: true, 5: true, 8: true}
	var file []byte
	var offs []int64
	for _, b := range bodies {
		offs = append(offs, int64(len(file)))
		file = append(file, b...)
	}
	rd := &countingReader{r: bytes.NewReader(file), reads: map[int64]int{}}
	h := New(1, 8, nil)
	var spans []hprof.Segment
	for i, b := range bodies {
		rec := hprof.Record{Tag: hprof.TagHeapDumpSegment, Length: uint32(len(b)), Offset: offs[i] - 9}
		spans = append(spans, hprof.NewSegment(rd, rec, offs[i], int64(len(b))))
		res := ScanSpan(rec, b, 8, NewAgg(8, nil), false)
		if err := h.AddSpan(env, &res); err != nil {
			t.Fatal(err)
		}
	}
	h.SpanNamePass(env, spans, h.SpanIDs)
	got := map[uint64]string{}
	for _, r := range h.ThreadRoots {
		got[r.ObjectID] = r.Name
	}
	if got[1001] != "worker-1" || got[1002] != "worker-2" {
		t.Errorf("names %v", got)
	}
	for i, off := range offs {
		if n := rd.reads[off]; fillers[i] && n > 0 {
			t.Errorf("record %d (no object a name needs) read %d times", i, n)
		} else if !fillers[i] && i > 0 && n == 0 {
			t.Errorf("record %d (a part of a name) not read", i)
		}
	}
}

// countingStream counts the bytes read from it.
type countingStream struct {
	r *bytes.Reader
	n *int64
}

func (c countingStream) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	*c.n += int64(n)
	return n, err
}

func (c countingStream) Close() error { return nil }

// TestNamePassStopsWhenNamesAreRead: over a stream (gzip), the pass for
// names whose parts came before their thread objects ends once it has
// read them, not at the end of the input.
func TestNamePassStopsWhenNamesAreRead(t *testing.T) {
	const threadCls, stringCls = 200, 300
	env := testEnv{
		strs:    map[uint64]string{10: "name", 11: "value", 12: "coder"},
		classes: map[uint64]string{threadCls: "java.lang.Thread", stringCls: "java.lang.String"},
	}
	classes := append(classDump(threadCls, hprof.FieldDecl{NameID: 10, Type: hprof.TypeObject}),
		classDump(stringCls, hprof.FieldDecl{NameID: 11, Type: hprof.TypeObject}, hprof.FieldDecl{NameID: 12, Type: hprof.TypeByte})...)
	parts := bytes.Join([][]byte{
		instance(4001, stringCls, sub(uint64(5001), uint8(0))),
		byteArray(5001, "worker-1"),
		sub(uint8(0x08), uint64(1001), uint32(1), uint32(0)),
	}, nil)
	var filler []byte
	for i := range 1 << 16 {
		filler = append(filler, byteArray(9000+uint64(i)*16, "0123456789abcdef0123456789abcdef")...)
	}
	file := sub("JAVA PROFILE 1.0.2", uint8(0), uint32(8), uint64(0))
	for _, body := range [][]byte{classes, parts, filler, filler} {
		file = append(file, sub(uint8(hprof.TagHeapDumpSegment), uint32(0), uint32(len(body)))...)
		file = append(file, body...)
	}
	file = append(file, sub(uint8(0x2C), uint32(0), uint32(0))...)

	h := New(1, 8, nil)
	res := ScanSpan(hprof.Record{Tag: hprof.TagHeapDumpSegment, Length: uint32(len(classes))}, classes, 8, NewAgg(8, nil), false)
	if err := h.AddSpan(env, &res); err != nil {
		t.Fatal(err)
	}
	h.streamed, h.nStreamed = []bool{true}, 1 // the first pass read the dump as a stream
	h.ThreadRoots = append(h.ThreadRoots, ThreadRoot{ObjectID: 1001, ThreadSerial: 1})
	// The first pass read the thread object after its name's parts.
	h.threadData(env, threadCls, 1001, sub(uint64(4001)))
	var read int64
	reopen := func() (io.ReadCloser, error) { return countingStream{bytes.NewReader(file), &read}, nil }
	if n := h.ResolveNames(context.Background(), env, testFile(t, hprof.Again{Reopen: reopen})); n != 0 {
		t.Fatalf("%d names unresolved", n)
	}
	if h.ThreadRoots[0].Name != "worker-1" {
		t.Errorf("name %q", h.ThreadRoots[0].Name)
	}
	if read > int64(len(file))/2 {
		t.Errorf("read %d of %d bytes: the pass went on after the names were read", read, len(file))
	}
}

// TestResolveNamesNoReopenWhenSpansCoverTheDump: when every heap record
// of the dump is a span, a name no record holds is not looked for by
// reading the whole input again.
func TestResolveNamesNoReopenWhenSpansCoverTheDump(t *testing.T) {
	const threadCls = 200
	env := testEnv{strs: map[uint64]string{10: "name"}, classes: map[uint64]string{threadCls: "java.lang.Thread"}}
	body := bytes.Join([][]byte{
		classDump(threadCls, hprof.FieldDecl{NameID: 10, Type: hprof.TypeObject}),
		sub(uint8(0x08), uint64(1001), uint32(1), uint32(0)), // a thread whose name String is nowhere
		instance(1001, threadCls, sub(uint64(4001))),
	}, nil)
	file := sub("JAVA PROFILE 1.0.2", uint8(0), uint32(8), uint64(0))
	file = append(file, sub(uint8(hprof.TagHeapDumpSegment), uint32(0), uint32(len(body)))...)
	off := int64(len(file))
	file = append(file, body...)
	file = append(file, sub(uint8(0x2C), uint32(0), uint32(0))...)
	reopen := func() (io.ReadCloser, error) {
		t.Error("the input was opened again")
		return nil, io.EOF
	}
	at := bytes.NewReader(file)
	f, err := hprof.NewFile(bytes.NewReader(file), hprof.Again{At: hprof.AtFile(at), Reopen: reopen})
	if err != nil {
		t.Fatal(err)
	}
	// The first pass: the File notes where the dump's records are.
	if err := hprof.Walk(context.Background(), f.Records(), func(hprof.Record) error { return nil }); err != nil {
		t.Fatal(err)
	}
	h := New(1, 8, nil)
	rec := hprof.Record{Tag: hprof.TagHeapDumpSegment, Length: uint32(len(body)), Offset: off - 9}
	h.Span(hprof.NewSegment(at, rec, off, int64(len(body))))
	res := ScanSpan(rec, body, 8, NewAgg(8, nil), false)
	if err := h.AddSpan(env, &res); err != nil {
		t.Fatal(err)
	}
	if n := h.ResolveNames(context.Background(), env, f); n != 1 {
		t.Errorf("%d names unresolved, want 1", n)
	}
}
