package heapdump

import (
	"io"
	"sync"

	"github.com/hprof2pprof/hprof2pprof/convert/hprof"
	"github.com/hprof2pprof/hprof2pprof/convert/internal/idnote"
)

// MaxSpan is the largest heap record read whole into a worker's buffer.
const MaxSpan = 64 << 20

// SpanResult is what one worker found in one span.
type SpanResult struct {
	Classes []hprof.ClassRecord
	Roots   []ThreadRoot
	Subs    [256]int64
	Err     error
	Objs    *SpanObjects   // for the retained view, when asked
	IDs     idnote.IDRange // the span's object IDs summed up: for the thread-name passes and the retained view
}

// ScanSpan counts the sub-records of one span into agg (nil: it counts
// no objects); with objs, it also notes the span's objects for the
// retained view.
func ScanSpan(rec hprof.Record, body []byte, idSize int, agg *Agg, objs bool) (res SpanResult) {
	hb := hprof.NewHeapBytes(body, rec, idSize)
	// No payload cut so far (the retained view stops at the first): only
	// a body the input cuts short can cut one.
	notes := spanNotes{short: uint64(len(body)) < uint64(rec.Length), whole: true}
	if objs {
		buf := idBuffers.Get().(*[]uint64)
		notes.ids = (*buf)[:0]
		defer func() {
			res.Objs = &SpanObjects{IDs: res.IDs, Set: idnote.SegmentIDsIn(notes.ids, res.IDs), Refs: notes.refs}
			*buf = notes.ids
			idBuffers.Put(buf)
		}()
	}
	for {
		s, err := hb.Next()
		if err == io.EOF {
			return res
		}
		if err != nil {
			// A sub-record whose payload the input cuts was counted
			// (its header is whole), as when streaming.
			res.Err = err
			return res
		}
		res.Subs[s.Tag]++
		if s.Tag.IsObject() {
			res.IDs.Add(s.ID)
		}
		if objs {
			notes.note(hb, s, idSize)
		}
		switch s.Tag {
		case hprof.InstanceDump:
			if agg != nil {
				agg.instance(s.ClassID, s.TraceSerial)
			}
		case hprof.ObjArrayDump:
			if agg != nil {
				agg.objArray(s.ClassID, s.TraceSerial, s.Length)
			}
		case hprof.PrimArrayDump, hprof.PrimArrayNoData:
			if agg != nil {
				agg.primArray(s.ElemType, s.TraceSerial, s.Length)
			}
		default:
			res.keep(s, agg)
		}
	}
}

// spanNotes are what ScanSpan notes of a span's objects for the retained
// view: their IDs and their reference bound. They are a local of
// ScanSpan while the span is scanned and stored once at the end: two
// workers' pooled slice headers can share a cache line, and a store into
// it per object made the first pass take up to 1.6 times its CPU in some
// runs (bench-4g).
type spanNotes struct {
	ids   []uint64
	refs  int64
	short bool // the input cuts the span's body short
	whole bool // no payload cut so far (the retained view stops at the first)
}

// note notes sub-record s, the last one hb read: its reference bound
// and, while no payload is cut, its ID when it is an object.
func (n *spanNotes) note(hb *hprof.HeapReader, s *hprof.SubRecord, idSize int) {
	if n.short && n.whole {
		if _, err := hb.Payload(); err != nil {
			n.whole = false
		}
	}
	n.refs += refBound(s, idSize, n.whole)
	if n.whole && s.Tag.IsObject() {
		n.ids = append(n.ids, s.ID)
	}
}

// keep keeps what a span's other sub-records (not objects) bring: a
// class or a thread root into res, a heap dump info into agg (when there
// is one).
func (res *SpanResult) keep(s *hprof.SubRecord, agg *Agg) {
	switch s.Tag {
	case hprof.ClassDump:
		c := s.Class
		c.Statics = append([]hprof.StaticField(nil), c.Statics...)
		c.Fields = append([]hprof.FieldDecl(nil), c.Fields...)
		res.Classes = append(res.Classes, c)
	case hprof.RootThreadObject:
		res.Roots = append(res.Roots, ThreadRoot{ObjectID: s.ID, ThreadSerial: s.ThreadSerial, TraceSerial: s.TraceSerial})
	case hprof.HeapDumpInfo:
		if agg != nil {
			agg.enterHeap(s.HeapID, s.NameID)
		}
	}
}

// SpanObjects are the objects of one heap span, noted by the first pass
// when the retained view is asked for: their IDs summed up (the retained
// view reads them again from the span; no ID list is kept), and a bound
// on their references (each takes an ID's bytes of the span).
type SpanObjects struct {
	IDs  idnote.IDRange
	Set  idnote.SegmentIDs // the IDs themselves, compactly: the index needs no second read
	Refs int64
}

// idBuffers hold a span's object IDs while it is scanned.
var idBuffers = sync.Pool{New: func() any { return new([]uint64) }}

// refBound is one sub-record's share of the reference bound (its ID
// goes into SpanResult.IDs). Its references count only when its payload
// is whole (the retained view reads no further): a cut record's lengths
// are claims the input does not back, and the bound reserves room.
func refBound(s *hprof.SubRecord, idSize int, whole bool) int64 {
	switch s.Tag {
	case hprof.InstanceDump:
		if whole {
			return int64(s.Length) / int64(idSize)
		}
	case hprof.ObjArrayDump:
		if whole {
			return int64(s.Length)
		}
	case hprof.ClassDump:
		return int64(len(s.Class.Statics)) + 1 // + the loader
	}
	return 0
}

// noteStreamed notes an object of a dump's streamed records (gzip,
// bzip2, records too big for a span) in o, when the retained view is
// asked for, so that it reads a compressed input once more, not twice:
// its ID, noted by parts of a record as the spans' are (idnote.IDNotes),
// and the same reference bound as SpanObjects.
func noteStreamed(o *idnote.NotedIDs, s *hprof.SubRecord, idSize int) {
	if !s.Tag.IsObject() {
		return
	}
	o.IDs.Add(s.ID)
	o.Refs += refBound(s, idSize, true)
}

// Feed says what the converter hands the retained view of what the first
// pass noted (tests compare the paths with less).
type Feed int

const (
	FeedNoted   Feed = iota // all the first pass noted
	FeedSpans               // the spans without their noted IDs: the index reads them from the spans again
	FeedNothing             // nothing: the view reads the input twice, as for a dump mixing spans and streamed records
)

// AddSpan merges what a worker found in one span (its counts are merged
// separately, with Agg.Merge): class layouts, thread roots, sub-record
// counts and, for the retained view, the span's objects. It returns the
// span's error, which ends the dump where the streaming path would.
func (h *Dump) AddSpan(e Env, res *SpanResult) error {
	for c := range res.Classes {
		h.ClassDump(e, &res.Classes[c])
	}
	h.ThreadRoots = append(h.ThreadRoots, res.Roots...)
	h.SpanIDs = append(h.SpanIDs, res.IDs)
	if res.Objs != nil {
		h.Objs = append(h.Objs, *res.Objs)
	}
	for tag, n := range res.Subs {
		h.Subs[tag] += n
	}
	return res.Err
}
