package heapdump

import (
	"io"

	"github.com/hprof2pprof/hprof2pprof/convert/hprof"
)

// MaxSpan is the largest heap record read whole into a worker's buffer.
const MaxSpan = 64 << 20

// SpanResult is what one worker found in one span.
type SpanResult struct {
	Classes []hprof.ClassRecord
	Roots   []ThreadRoot
	Subs    [256]int64
	Err     error
	Objs    *SpanObjects // for the retained view, when asked
}

// ScanSpan counts the sub-records of one span into agg; with objs, it
// also notes the span's objects for the retained view.
func ScanSpan(rec hprof.Record, body []byte, idSize int, agg *Agg, objs bool) (res SpanResult) {
	hb := hprof.NewHeapBytes(body, rec, idSize)
	if objs {
		res.Objs = &SpanObjects{}
	}
	for {
		s, _, err := hb.Next()
		if err == io.EOF {
			return res
		}
		if s == nil {
			res.Err = err
			return res
		}
		res.Subs[s.Tag]++
		if res.Objs != nil {
			res.Objs.add(s, idSize)
		}
		switch s.Tag {
		case hprof.InstanceDump:
			agg.instance(s.ClassID, s.TraceSerial)
		case hprof.ObjArrayDump:
			agg.objArray(s.ClassID, s.TraceSerial, s.Length)
		case hprof.PrimArrayDump, hprof.PrimArrayNoData:
			agg.primArray(s.ElemType, s.TraceSerial, s.Length)
		case hprof.ClassDump:
			c := s.Class
			c.Statics = append([]hprof.StaticField(nil), c.Statics...)
			c.Fields = append([]hprof.FieldDecl(nil), c.Fields...)
			res.Classes = append(res.Classes, c)
		case hprof.RootThreadObject:
			res.Roots = append(res.Roots, ThreadRoot{ObjectID: s.ID, ThreadSerial: s.ThreadSerial, TraceSerial: s.TraceSerial})
		case hprof.HeapDumpInfo:
			agg.enterHeap(s.HeapID, s.NameID)
		}
		if err != nil {
			// The input ends inside this sub-record's payload: its
			// header is whole and counted, as when streaming.
			res.Err = err
			return res
		}
	}
}

// SpanObjects are the objects of one heap span, noted by the first pass
// when the retained view is asked for: their IDs, and a bound on their
// references (each takes an ID's bytes of the span).
type SpanObjects struct {
	IDs  []uint64
	Refs int64
}

func (o *SpanObjects) add(s *hprof.SubRecord, idSize int) {
	switch s.Tag {
	case hprof.InstanceDump:
		o.IDs = append(o.IDs, s.ID)
		o.Refs += int64(s.Length) / int64(idSize)
	case hprof.ObjArrayDump:
		o.IDs = append(o.IDs, s.ID)
		o.Refs += int64(s.Length)
	case hprof.PrimArrayDump, hprof.PrimArrayNoData:
		o.IDs = append(o.IDs, s.ID)
	case hprof.ClassDump:
		o.IDs = append(o.IDs, s.ID)
		o.Refs += int64(len(s.Class.Statics)) + 1 // + the loader
	}
}

// AddSpan merges what a worker found in one span (its counts are merged
// separately, with Agg.Merge): class layouts, thread roots, sub-record
// counts and, for the retained view, the span's objects. It returns the
// span's error, which ends the dump where the streaming path would.
func (h *Dump) AddSpan(e Env, res *SpanResult) error {
	for c := range res.Classes {
		h.ClassDump(e, &res.Classes[c])
	}
	h.ThreadRoots = append(h.ThreadRoots, res.Roots...)
	if res.Objs != nil {
		h.Objs = append(h.Objs, *res.Objs)
	}
	for tag, n := range res.Subs {
		h.Subs[tag] += n
	}
	return res.Err
}
