package hprof

import (
	"encoding/binary"
	"math"
)

// cursor reads big-endian fields from one record body. The first read
// past the end sets a sticky error naming the record and offset; later
// reads return zero, so decoders check once at the end.
type cursor struct {
	b      []byte
	i      int
	idSize int
	base   int64 // input offset of b[0]
	rec    Record
	err    error
}

func (r *Reader) cursor(rec Record, body []byte) *cursor {
	return &cursor{b: body, idSize: r.idSize, base: rec.Offset + recordHeaderSize, rec: rec}
}

func (c *cursor) short(n int) bool {
	if c.err != nil {
		return true
	}
	if len(c.b)-c.i < n {
		c.err = errAt(ErrCorrupt, c.base+int64(c.i), c.rec.Name(), "field needs %d bytes, body has %d left", n, len(c.b)-c.i)
		return true
	}
	return false
}

func (c *cursor) u1() uint8 {
	if c.short(1) {
		return 0
	}
	c.i++
	return c.b[c.i-1]
}

func (c *cursor) u2() uint16 {
	if c.short(2) {
		return 0
	}
	c.i += 2
	return binary.BigEndian.Uint16(c.b[c.i-2:])
}

func (c *cursor) u4() uint32 {
	if c.short(4) {
		return 0
	}
	c.i += 4
	return binary.BigEndian.Uint32(c.b[c.i-4:])
}

func (c *cursor) u8() uint64 {
	if c.short(8) {
		return 0
	}
	c.i += 8
	return binary.BigEndian.Uint64(c.b[c.i-8:])
}

func (c *cursor) id() uint64 {
	if c.idSize == 4 {
		return uint64(c.u4())
	}
	return c.u8()
}

func (c *cursor) rest() []byte {
	if c.err != nil {
		return nil
	}
	b := c.b[c.i:]
	c.i = len(c.b)
	return b
}

// count reads a u4 element count and checks that count × elemSize bytes
// remain, so no caller sizes an allocation from an unchecked field.
func (c *cursor) count(elemSize int) int {
	n := c.u4()
	if c.err != nil {
		return 0
	}
	if uint64(n)*uint64(elemSize) > uint64(len(c.b)-c.i) {
		c.err = errAt(ErrCorrupt, c.base+int64(c.i-4), c.rec.Name(), "count %d × %d bytes exceeds the %d bytes left", n, elemSize, len(c.b)-c.i)
		return 0
	}
	return int(n)
}

func (c *cursor) done() error {
	return c.err
}

// UTF8 is a STRING IN UTF8 record. Text aliases the body buffer.
type UTF8 struct {
	ID   uint64
	Text []byte
}

// LoadClass is a LOAD CLASS record.
type LoadClass struct {
	ClassSerial uint32
	ObjectID    uint64
	TraceSerial uint32
	NameID      uint64
}

// Frame is a STACK FRAME record. Line is >0, or 0 (none), -1 (unknown),
// -2 (compiled), -3 (native).
type Frame struct {
	ID          uint64
	MethodID    uint64
	SignatureID uint64
	SourceID    uint64
	ClassSerial uint32
	Line        int32
}

// Trace is a STACK TRACE record, frames callee first.
type Trace struct {
	Serial       uint32
	ThreadSerial uint32
	Frames       []uint64
}

// AllocSite is one site of an ALLOC SITES record.
type AllocSite struct {
	ArrayType     BasicType // 0 for an ordinary object, else the element type
	ClassSerial   uint32
	TraceSerial   uint32
	LiveBytes     uint32
	LiveInstances uint32
	AllocBytes    uint32
	AllocObjects  uint32
}

// AllocSites is an ALLOC SITES record.
type AllocSites struct {
	Flags          uint16
	Cutoff         float32 // the agent writes garbage here (the low bits of a double)
	LiveBytes      uint32
	LiveInstances  uint32
	AllocBytes     uint64
	AllocInstances uint64
	Sites          []AllocSite
}

// StartThread is a START THREAD record.
type StartThread struct {
	Serial        uint32
	ObjectID      uint64
	TraceSerial   uint32
	NameID        uint64
	GroupID       uint64
	ParentGroupID uint64
}

// CPUTrace is one entry of a CPU SAMPLES record.
type CPUTrace struct {
	Count       uint32
	TraceSerial uint32
}

// CPUSamples is a CPU SAMPLES record.
type CPUSamples struct {
	Total  uint32
	Traces []CPUTrace
}

// HeapSummary is a HEAP SUMMARY record.
type HeapSummary struct {
	LiveBytes      uint32
	LiveInstances  uint32
	AllocBytes     uint64
	AllocInstances uint64
}

// ControlSettings is a CONTROL SETTINGS record: flags bit 0 alloc traces
// (heap), bit 1 cpu sampling; depth is the stack depth.
type ControlSettings struct {
	Flags uint32
	Depth uint16
}

// DecodeUTF8 decodes a STRING IN UTF8 body.
func (r *Reader) DecodeUTF8(rec Record, body []byte) (UTF8, error) {
	c := r.cursor(rec, body)
	v := UTF8{ID: c.id()}
	v.Text = c.rest()
	return v, c.done()
}

// DecodeLoadClass decodes a LOAD CLASS body.
func (r *Reader) DecodeLoadClass(rec Record, body []byte) (LoadClass, error) {
	c := r.cursor(rec, body)
	v := LoadClass{ClassSerial: c.u4(), ObjectID: c.id(), TraceSerial: c.u4(), NameID: c.id()}
	return v, c.done()
}

// DecodeFrame decodes a STACK FRAME body.
func (r *Reader) DecodeFrame(rec Record, body []byte) (Frame, error) {
	c := r.cursor(rec, body)
	v := Frame{ID: c.id(), MethodID: c.id(), SignatureID: c.id(), SourceID: c.id(), ClassSerial: c.u4(), Line: int32(c.u4())}
	return v, c.done()
}

// DecodeTrace decodes a STACK TRACE body; frames are appended to buf.
func (r *Reader) DecodeTrace(rec Record, body []byte, buf []uint64) (Trace, error) {
	c := r.cursor(rec, body)
	v := Trace{Serial: c.u4(), ThreadSerial: c.u4()}
	n := c.count(r.idSize)
	v.Frames = buf[:0]
	for i := 0; i < n; i++ {
		v.Frames = append(v.Frames, c.id())
	}
	return v, c.done()
}

// DecodeAllocSites decodes an ALLOC SITES body.
func (r *Reader) DecodeAllocSites(rec Record, body []byte) (AllocSites, error) {
	c := r.cursor(rec, body)
	v := AllocSites{Flags: c.u2(), Cutoff: math.Float32frombits(c.u4()), LiveBytes: c.u4(), LiveInstances: c.u4(),
		AllocBytes: c.u8(), AllocInstances: c.u8()}
	n := c.count(25)
	v.Sites = make([]AllocSite, 0, n)
	for i := 0; i < n; i++ {
		v.Sites = append(v.Sites, AllocSite{ArrayType: BasicType(c.u1()), ClassSerial: c.u4(), TraceSerial: c.u4(),
			LiveBytes: c.u4(), LiveInstances: c.u4(), AllocBytes: c.u4(), AllocObjects: c.u4()})
	}
	return v, c.done()
}

// DecodeStartThread decodes a START THREAD body.
func (r *Reader) DecodeStartThread(rec Record, body []byte) (StartThread, error) {
	c := r.cursor(rec, body)
	v := StartThread{Serial: c.u4(), ObjectID: c.id(), TraceSerial: c.u4(), NameID: c.id(), GroupID: c.id(), ParentGroupID: c.id()}
	return v, c.done()
}

// DecodeU4 decodes a body that is a single u4 (END THREAD, UNLOAD CLASS).
func (r *Reader) DecodeU4(rec Record, body []byte) (uint32, error) {
	c := r.cursor(rec, body)
	v := c.u4()
	return v, c.done()
}

// DecodeCPUSamples decodes a CPU SAMPLES body.
func (r *Reader) DecodeCPUSamples(rec Record, body []byte) (CPUSamples, error) {
	c := r.cursor(rec, body)
	v := CPUSamples{Total: c.u4()}
	n := c.count(8)
	v.Traces = make([]CPUTrace, 0, n)
	for i := 0; i < n; i++ {
		v.Traces = append(v.Traces, CPUTrace{Count: c.u4(), TraceSerial: c.u4()})
	}
	return v, c.done()
}

// DecodeHeapSummary decodes a HEAP SUMMARY body.
func (r *Reader) DecodeHeapSummary(rec Record, body []byte) (HeapSummary, error) {
	c := r.cursor(rec, body)
	v := HeapSummary{LiveBytes: c.u4(), LiveInstances: c.u4(), AllocBytes: c.u8(), AllocInstances: c.u8()}
	return v, c.done()
}

// DecodeControlSettings decodes a CONTROL SETTINGS body.
func (r *Reader) DecodeControlSettings(rec Record, body []byte) (ControlSettings, error) {
	c := r.cursor(rec, body)
	v := ControlSettings{Flags: c.u4(), Depth: c.u2()}
	return v, c.done()
}

// DumpCounter numbers the heap dumps of an input as its records go by. A
// HEAP DUMP record is a whole dump by itself (jhsdb and old JDKs write
// one and no HEAP DUMP END); HEAP DUMP SEGMENTs belong to one dump until
// HEAP DUMP END, or until a HEAP DUMP record, which the converter's first
// pass takes as the open dump's last record.
type DumpCounter struct {
	n    int
	open bool
}

// Dump returns the 1-based number of the dump a heap record with this tag
// belongs to, or 0 for any other record.
func (c *DumpCounter) Dump(tag Tag) int {
	switch tag {
	case TagHeapDumpEnd:
		c.open = false
	case TagHeapDump, TagHeapDumpSegment:
		if !c.open {
			c.n++
		}
		// A HEAP DUMP record is a whole dump, or, inside segments not
		// yet ended, their last record: either way the dump ends here.
		c.open = tag == TagHeapDumpSegment
		return c.n
	}
	return 0
}
