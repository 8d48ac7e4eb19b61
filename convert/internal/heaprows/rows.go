// Package heaprows reads a heap dump's objects, references, Strings and
// GC roots as rows for a graph.ObjectSink (the heap tables): the chosen
// dump is read again and every row goes to the sink as it is read; a
// further read decodes the value arrays of java.lang.Strings (they may
// come before or after their String). What is kept across the reads is
// per class, plus 32 bytes per String waiting for its array (maxPending
// at most).
package heaprows

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/heapsize"
	"github.com/hprof2pprof/hprof2pprof/convert/hprof"
	"github.com/hprof2pprof/hprof2pprof/convert/internal/heapdump"
	"github.com/hprof2pprof/hprof2pprof/convert/internal/layout"
	"github.com/hprof2pprof/hprof2pprof/convert/javaname"
	"github.com/hprof2pprof/hprof2pprof/convert/retained"
)

// objLayout is what the object pass needs of a class: its flattened
// layout (nil without a CLASS DUMP) and what the rows read of it.
type objLayout struct {
	*layout.Layout
	name    string
	raw     string // the exact name when name is normalised, else ""
	shallow int64  // instance size in the dump's size model
	refs    []layout.Field
	size    layout.Field // the collection size field (graph.SizeFields); Type 0: none
	// java.lang.String: its fields (layout.StringFields).
	str    bool
	strFld layout.StringFields
}

// pendingString is a String whose value array the string pass decodes.
type pendingString struct {
	id  uint64
	ref layout.StringRef
}

// Input is what the rows of one heap dump need from the converter.
type Input struct {
	// File is the input the rows are read from again (hprof.File.Heap).
	File *hprof.File
	// Dump is the heap dump the rows come from (its class layouts and
	// thread roots), as the converter's first pass read it.
	// Objects are sized in its size model (Dump.Model).
	Dump   *heapdump.Dump
	IDSize int
	// Env names classes and fields, and counts soft failures.
	Env heapdump.Env
	// Retained, when the retained view was computed in the same run,
	// gives objects their retained size and immediate dominator.
	Retained *retained.Result
	Sink     *graph.ObjectSink
	// Progress, when set, is called now and then with the input bytes
	// read so far, counting on from Before (the converter's first pass).
	Progress func(done int64)
	Before   int64
	// RawNames keeps hidden and lambda class names as the dump wrote
	// them; by default they are normalised (javaname.Normalize), the
	// exact name in Object.RawClass and RawDefines.
	RawNames bool
}

type objectPass struct {
	ctx     context.Context
	done    int64 // bytes read by earlier passes, for Input.Progress
	in      *Input
	h       *heapdump.Dump
	sink    *graph.ObjectSink
	idSize  int
	model   heapsize.Model
	layouts map[uint64]*objLayout
	ret     *retained.Result
	pending []pendingString
	strSize int64 // a String's shallow size

	obj  graph.Object
	ref  graph.Ref
	root graph.Root
	str  graph.String
}

// ErrNeedFile means the rows were asked of an input that cannot be
// read again (standard input).
var ErrNeedFile = errors.New("heap tables need a file input: standard input cannot be read again")

// Write reads the dump's rows into in.Sink, then calls its Done. A nil
// Sink asks for nothing; a nil Dump (or one without classes) has no rows.
func Write(ctx context.Context, in *Input) error {
	if in.Sink == nil {
		return nil
	}
	if in.Dump != nil && in.Dump.Classes.Len() > 0 {
		if in.File == nil || !in.File.CanReread() {
			return ErrNeedFile
		}
		p := &objectPass{in: in, h: in.Dump, sink: in.Sink, idSize: in.IDSize, model: in.Dump.Model,
			layouts: map[uint64]*objLayout{}, ret: in.Retained, done: in.Before}
		if err := p.run(ctx); err != nil {
			return err
		}
	}
	if in.Sink.Done != nil {
		return in.Sink.Done()
	}
	return nil
}

func (p *objectPass) run(ctx context.Context) error {
	p.ctx = ctx
	if err := p.read(ctx, p.sub); err != nil {
		return err
	}
	return p.flushStrings()
}

// maxPending bounds the Strings noted before their value arrays are
// decoded (32 bytes each): when that many are waiting, a string pass
// reads the dump for them, so memory does not grow with the number of
// Strings; a dump with more Strings is read once more per maxPending.
var maxPending = 2 << 20

// flushStrings decodes the value arrays of the Strings noted so far with
// one more read of the dump.
func (p *objectPass) flushStrings() error {
	if p.sink.String == nil || len(p.pending) == 0 {
		return nil
	}
	slices.SortFunc(p.pending, func(a, b pendingString) int {
		if a.ref.Array != b.ref.Array {
			return cmpU64(a.ref.Array, b.ref.Array)
		}
		return cmpU64(a.id, b.id)
	})
	err := p.read(p.ctx, p.stringSub)
	p.pending = p.pending[:0]
	return err
}

func cmpU64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// read reads the chosen dump again (hprof.File.Heap) and calls fn with
// every sub-record. Damage stops the reading quietly: the first pass
// reported it, and the rows read before it are kept.
func (p *objectPass) read(ctx context.Context, fn func(*hprof.SubRecord, *hprof.HeapReader) error) error {
	var last int64
	defer func() { p.done += last }()
	return p.in.File.Heap(ctx, p.h.Index, func(hr *hprof.HeapReader) error {
		for n := 1; ; n++ {
			s, err := hr.Next()
			if err != nil {
				last = hr.Offset()
				return nil // io.EOF, or damage
			}
			if n&0xFFFF == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
				last = hr.Offset()
				if p.in.Progress != nil {
					p.in.Progress(p.done + last)
				}
			}
			if err := fn(s, hr); err != nil {
				return err // the format's errors are damage: the pass ends quietly
			}
		}
	})
}

// sub writes the rows of one sub-record.
func (p *objectPass) sub(s *hprof.SubRecord, hr *hprof.HeapReader) error {
	switch s.Tag {
	case hprof.InstanceDump:
		return p.instance(s, hr)
	case hprof.ObjArrayDump:
		return p.objArray(s, hr)
	case hprof.PrimArrayDump, hprof.PrimArrayNoData:
		return p.primArray(s)
	case hprof.ClassDump:
		return p.classObject(s)
	}
	if s.Tag.IsRoot() && p.sink.Root != nil {
		return p.rootRow(s)
	}
	return nil
}

// newObject starts the row of object id.
func (p *objectPass) newObject(id uint64, class, kind string) *graph.Object {
	o := &p.obj
	*o = graph.Object{ID: id, Class: class, Kind: kind}
	if p.ret != nil {
		o.Retained, o.HasRetained = p.ret.Retained(id)
		o.Dominator, o.HasDominator = p.ret.Dominator(id)
	}
	return o
}

func (p *objectPass) instance(s *hprof.SubRecord, hr *hprof.HeapReader) error {
	l := p.layout(s.ClassID)
	needData := (p.sink.Ref != nil && len(l.refs) > 0) || (p.sink.Object != nil && l.size.Type != 0) ||
		(p.sink.String != nil && l.str)
	var data []byte
	if needData {
		var err error
		if data, err = hr.Payload(); err != nil {
			return err
		}
	}
	if p.sink.Object != nil {
		o := p.newObject(s.ID, l.name, graph.ObjectInstance)
		o.RawClass = l.raw
		o.Shallow, o.HasShallow = l.shallow, l.Layout != nil
		if l.size.Type != 0 {
			o.Size, o.HasSize = l.Value(data, l.size)
		}
		if err := p.sink.Object(o); err != nil {
			return err
		}
	}
	if p.sink.Ref != nil {
		for _, f := range l.refs {
			to, ok := l.Value(data, f)
			if !ok || to == 0 {
				continue
			}
			p.ref = graph.Ref{From: s.ID, To: uint64(to), Field: f.Name, Index: -1}
			if err := p.sink.Ref(&p.ref); err != nil {
				return err
			}
		}
	}
	if p.sink.String != nil && l.str {
		p.noteString(s.ID, l, data)
		if len(p.pending) >= maxPending {
			return p.flushStrings()
		}
	}
	return nil
}

// noteString notes a String for the string pass.
func (p *objectPass) noteString(id uint64, l *objLayout, data []byte) {
	ref, ok := l.StringRef(&l.strFld, data)
	if !ok || ref.Array == 0 {
		return
	}
	p.strSize = l.shallow // java.lang.String is final: one size
	p.pending = append(p.pending, pendingString{id: id, ref: ref})
}

func (p *objectPass) objArray(s *hprof.SubRecord, hr *hprof.HeapReader) error {
	if p.sink.Object != nil {
		l := p.layout(s.ClassID)
		o := p.newObject(s.ID, l.name, graph.ObjectArray)
		o.RawClass = l.raw
		o.Length, o.HasLength = int64(s.Length), true
		o.Shallow, o.HasShallow = p.model.RefArray(int64(s.Length)), l.Layout != nil
		if err := p.sink.Object(o); err != nil {
			return err
		}
	}
	if p.sink.Ref == nil {
		return nil
	}
	data, err := hr.Payload()
	if err != nil {
		return err
	}
	for i := 0; i+p.idSize <= len(data); i += p.idSize {
		to := p.readID(data[i:])
		if to == 0 {
			continue
		}
		p.ref = graph.Ref{From: s.ID, To: to, Index: int64(i / p.idSize)}
		if err := p.sink.Ref(&p.ref); err != nil {
			return err
		}
	}
	return nil
}

func (p *objectPass) readID(b []byte) uint64 {
	if p.idSize == 4 {
		return uint64(binary.BigEndian.Uint32(b))
	}
	return binary.BigEndian.Uint64(b)
}

func (p *objectPass) primArray(s *hprof.SubRecord) error {
	if p.sink.Object == nil {
		return nil
	}
	o := p.newObject(s.ID, s.ElemType.JavaName()+"[]", graph.ObjectPrimArray)
	o.Length, o.HasLength = int64(s.Length), true
	o.Shallow, o.HasShallow = p.model.Array(int64(s.Length), int64(s.ElemType.Size(p.idSize))), true
	return p.sink.Object(o)
}

// classObject writes a class object (weighing what the size model says,
// as in the retained view) and its static references.
func (p *objectPass) classObject(s *hprof.SubRecord) error {
	c := &s.Class
	if p.sink.Object != nil {
		o := p.newObject(c.ID, "java.lang.Class", graph.ObjectClass)
		l := p.layout(c.ID)
		o.Defines, o.RawDefines = l.name, l.raw
		o.Shallow, o.HasShallow = p.h.Classes.Mirror(p.in.Env, p.model, c.ID), true
		if err := p.sink.Object(o); err != nil {
			return err
		}
	}
	if p.sink.Ref == nil {
		return nil
	}
	for _, f := range c.Statics {
		if f.Type != hprof.TypeObject || f.Value == 0 {
			continue
		}
		p.ref = graph.Ref{From: c.ID, To: f.Value, Field: p.in.Env.String(f.NameID), Index: -1, Static: true}
		if err := p.sink.Ref(&p.ref); err != nil {
			return err
		}
	}
	return nil
}

func (p *objectPass) rootRow(s *hprof.SubRecord) error {
	r := &p.root
	*r = graph.Root{ID: s.ID, Kind: RootKind(s.Tag), Frame: -1}
	switch s.Tag {
	case hprof.RootJNILocal, hprof.RootJavaFrame:
		r.Frame = int64(s.Frame)
		fallthrough
	case hprof.RootThreadObject, hprof.RootNativeStack, hprof.RootThreadBlock, hprof.RootJNIMonitor:
		r.Thread = s.ThreadSerial
		r.ThreadName = p.h.RootName(s.ThreadSerial)
	}
	return p.sink.Root(r)
}

// RootKind names a GC root sub-record in the heap tables: its HPROF name
// without "ROOT ", lower case ("java frame", "jni global", …).
func RootKind(t hprof.SubTag) string {
	return strings.ToLower(strings.TrimPrefix(t.String(), "ROOT "))
}

// layout returns (and caches) what the object pass needs of a class.
func (p *objectPass) layout(cls uint64) *objLayout {
	if l, ok := p.layouts[cls]; ok {
		return l
	}
	l := &objLayout{name: p.in.Env.ClassName(cls), Layout: p.h.Classes.Layout(p.in.Env, cls)}
	if l.name == "" {
		l.name = fmt.Sprintf("unknown-class-0x%x", cls)
	}
	if n := javaname.Normalize(l.name); n != l.name && !p.in.RawNames {
		l.raw, l.name = l.name, n
	}
	p.layouts[cls] = l
	if l.Layout == nil {
		return l
	}
	l.shallow = p.h.InstanceSize(p.in.Env, p.model, cls)
	for _, f := range l.Fields {
		if f.Type == hprof.TypeObject {
			l.refs = append(l.refs, f)
		}
		if l.size.Type == 0 && f.Type == hprof.TypeInt && slices.Contains(graph.SizeFields, f.Name) {
			l.size = f
		}
	}
	if l.str = l.name == "java.lang.String"; l.str {
		l.strFld = l.StringFields()
	}
	return l
}
