package heaprows

import (
	"sort"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/hprof"
	"github.com/hprof2pprof/hprof2pprof/convert/internal/layout"
)

// stringSub is the string pass: it decodes the byte[] and char[] arrays
// that noted Strings hold (p.pending, sorted by array ID).
func (p *objectPass) stringSub(s *hprof.SubRecord, hr *hprof.HeapReader) error {
	if s.Tag != hprof.PrimArrayDump || (s.ElemType != hprof.TypeByte && s.ElemType != hprof.TypeChar) {
		return nil
	}
	i := sort.Search(len(p.pending), func(i int) bool { return p.pending[i].ref.Array >= s.ID })
	if i == len(p.pending) || p.pending[i].ref.Array != s.ID {
		return nil
	}
	data, err := hr.Payload()
	if err != nil {
		return err
	}
	bytes := p.model.Array(int64(s.Length), int64(s.ElemType.Size(p.idSize)))
	for ; i < len(p.pending) && p.pending[i].ref.Array == s.ID; i++ {
		ps := &p.pending[i]
		st := &p.str
		*st = graph.String{ID: ps.id, Array: s.ID, Bytes: bytes, Shallow: p.strSize}
		st.Value, st.Length, st.Coder = layout.DecodeString(s.ElemType, data, ps.ref)
		if err := p.sink.String(st); err != nil {
			return err
		}
	}
	return nil
}
