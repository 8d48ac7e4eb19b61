package convert

import (
	"github.com/hprof2pprof/hprof2pprof/convert/graph"
)

// Deobfuscation with an R8/ProGuard mapping (Options.Mapping): class
// names are mapped when LOAD CLASS names them, so every view sees the
// original names; stack frames are retraced when a trace becomes a
// stack, which may turn one frame into several where R8 inlined methods.

// deobfuscateClass returns the original name of a class (Java form) and
// remembers the obfuscated one for retracing its methods.
func (d *binDecoder) deobfuscateClass(id uint64, name string) string {
	m := d.opts.Mapping
	if m == nil {
		return name
	}
	orig := m.Class(name)
	if orig != name {
		if d.obfClass == nil {
			d.obfClass = map[uint64]string{}
		}
		d.obfClass[id] = name
	}
	return orig
}

// retrace appends the graph frames of STACK FRAME id to ids, retraced
// through the mapping: innermost first, as the trace lists them.
func (d *binDecoder) retrace(ids []graph.FrameID, id uint64) []graph.FrameID {
	f, ok := d.sym.Frames[id]
	obj, known := d.sym.ClassSerial[f.ClassSerial]
	if !ok || !known {
		fid, _ := d.frame(id)
		return append(ids, fid)
	}
	obf, renamed := d.obfClass[obj]
	if !renamed {
		obf = d.sym.ClassName[obj] // kept its name; its methods may not have
	}
	frames, ok := d.opts.Mapping.Frames(obf, d.sym.Strings[f.MethodID], int(f.Line))
	if !ok {
		fid, _ := d.frame(id)
		return append(ids, fid)
	}
	for i, mf := range frames {
		gf := graph.Frame{Kind: graph.KindMethod, Class: mf.Class, Method: mf.Method, File: mf.File, Line: int32(mf.Line)}
		if gf.File == "" && f.SourceID != 0 {
			gf.File = d.sym.Strings[f.SourceID]
		}
		if i == 0 && len(frames) == 1 {
			gf.Signature = d.opts.Mapping.Descriptor(d.sym.Strings[f.SignatureID])
		}
		ids = append(ids, d.g.Frame(gf))
	}
	return ids
}
