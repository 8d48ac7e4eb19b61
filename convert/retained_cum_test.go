package convert_test

// An independent check of the retained view as people read it: the
// profile is written, parsed back with github.com/google/pprof/profile,
// and every class's cumulative value (what `go tool pprof -top -cum`
// prints) is compared with the answer of a separate, deliberately simple
// computation: the object graph built here from the dump's sub-records,
// shallow sizes from the oracle's histogram (VisualVM's size model), and
// immediate dominators by the iterative algorithm of Cooper, Harvey and
// Kennedy ("A Simple, Fast Dominance Algorithm") instead of the
// converter's semi-NCA.

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/csv"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/hprof2pprof/hprof2pprof/convert"
	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/hprof"
	"github.com/hprof2pprof/hprof2pprof/pprofout"
)

// cumDumps are the heap dumps with an oracle: the repo's fixtures, and
// the shared corpus when it is present (HPROF_CORPUS names it elsewhere).
func cumDumps(t *testing.T) []string {
	var dirs []string
	dirs = append(dirs, filepath.Join("..", "testdata"))
	corpus := filepath.Join("..", "..", "shared", "corpus")
	if c := os.Getenv("HPROF_CORPUS"); c != "" {
		corpus = c
	}
	for _, d := range []string{"heapdump", "thirdparty"} {
		dirs = append(dirs, filepath.Join(corpus, d))
	}
	var out []string
	for _, d := range dirs {
		ents, _ := os.ReadDir(d)
		for _, e := range ents {
			n := e.Name()
			if !strings.HasSuffix(n, ".hprof") && !strings.HasSuffix(n, ".hprof.gz") {
				continue
			}
			if _, err := os.Stat(filepath.Join(d, n+".oracle", "histogram.csv")); err == nil {
				out = append(out, filepath.Join(d, n))
			}
		}
	}
	return out
}

// TestRetainedCumPerClass: for every class, the cumulative retained
// bytes and objects of its frame in the pprof file equal the sum of the
// retained sizes of its objects that no other object of the class
// dominates, from the independent computation below.
func TestRetainedCumPerClass(t *testing.T) {
	for _, path := range cumDumps(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			want, wantClassRoots := independentCum(t, path)
			got, byClass, classRoots := profileCum(t, path)
			if classRoots != wantClassRoots {
				t.Errorf("%d class objects hang from the root as %q, the independent rounds say %d", classRoots, classRootFrame, wantClassRoots)
			}
			if len(want) == 0 {
				t.Fatal("the independent computation found no reachable object")
			}
			bad := 0
			for name, w := range want {
				if g := got[name]; g != w {
					if bad++; bad <= 15 {
						t.Errorf("%s: profile cum %d objects %d bytes, independent %d objects %d bytes", name, g[0], g[1], w[0], w[1])
					}
				}
			}
			for name, g := range got {
				if _, ok := want[name]; !ok {
					if bad++; bad <= 15 {
						t.Errorf("%s: in the profile (%d objects %d bytes), not in the independent answer", name, g[0], g[1])
					}
				}
			}
			if bad > 0 {
				t.Errorf("%d of %d classes differ", bad, len(want))
			}
			// The totals by class (Parquet's classes.retained_bytes) are
			// by class ID; with one class per name they are these sums.
			sz := readOracleSizes(t, path+".oracle")
			if len(sz.byName) != len(sz.name) {
				t.Logf("%d class IDs share names: totals by class not compared by name", len(sz.name)-len(sz.byName))
				return
			}
			for name, w := range want {
				if strings.HasSuffix(name, ".class") {
					continue // class objects count for no class
				}
				if byClass[name] != w[1] {
					t.Errorf("%s: graph total by class %d bytes, independent %d", name, byClass[name], w[1])
				}
			}
			for name, b := range byClass {
				if _, ok := want[name]; !ok && b != 0 {
					t.Errorf("%s: graph total by class %d bytes, not in the independent answer", name, b)
				}
			}
		})
	}
}

// profileCum converts path to a retained pprof file (exact names), parses it and sums,
// per function, the values of the samples whose stack names it (once per
// sample, as pprof's cum). The root frame (a GC root kind) is left out.
// It also returns the graph's retained totals by class name and the
// number of class objects right below the classRootFrame root frame.
func profileCum(t *testing.T, path string) (map[string][2]int64, map[string]int64, int) {
	t.Helper()
	// Exact class names, as the independent answer has them: pprof then
	// shows one function per class (by default hidden classes that
	// differ only in their address are one function). Shallow sizes are
	// the oracle's, so the profile takes its model.
	g, err := convert.ConvertFile(context.Background(), path, convert.Options{Views: []string{graph.ViewRetained}, RawNames: true, VisualVMSizes: true})
	if err != nil {
		t.Fatal(err)
	}
	byClass := map[string]int64{}
	for _, c := range g.RetainedByClass {
		byClass[c.Class] = c.Bytes
	}
	var buf bytes.Buffer
	if err := pprofout.Write(&buf, g, graph.ViewRetained); err != nil {
		t.Fatal(err)
	}
	p, err := profile.Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	objs, byts := -1, -1
	for i, st := range p.SampleType {
		switch st.Type {
		case "retained_objects":
			objs = i
		case "retained_space":
			byts = i
		}
	}
	if objs < 0 || byts < 0 {
		t.Fatalf("sample types %v", p.SampleType)
	}
	// The root's frames (a thread, its frame, a root kind) are no class.
	rootFrames := map[string]bool{}
	for _, f := range g.Frames[1:] {
		if f.Kind != graph.KindClass {
			rootFrames[f.Function()] = true
		}
	}
	cum := map[string][2]int64{}
	classRoots := 0
	for _, s := range p.Sample {
		if len(s.Location) == 2 && s.Location[1].Line[0].Function.Name == classRootFrame {
			classRoots += int(s.Value[objs]) // class objects right below that root frame
		}
		seen := map[string]bool{}
		for _, loc := range s.Location { // leaf first; the root's frames last
			for _, ln := range loc.Line {
				n := ln.Function.Name
				if seen[n] || rootFrames[n] {
					continue
				}
				seen[n] = true
				c := cum[n]
				c[0] += s.Value[objs]
				c[1] += s.Value[byts]
				cum[n] = c
			}
		}
	}
	return cum, byClass, classRoots
}

// classRootFrame is the root frame of class objects that hang from the
// virtual root (docs/retained.md).
const classRootFrame = "class of a reachable object"

// oracleSizes is what the test takes from the oracle: class names and
// instance sizes by class ID, and the array size model.
type oracleSizes struct {
	name     map[uint64]string
	byName   map[string]uint64 // the smallest class ID of each name
	instSize map[uint64]int64
	header   int64 // minimum instance size
	oop      int64 // reference size
}

func readOracleSizes(t *testing.T, dir string) oracleSizes {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "histogram.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	o := oracleSizes{name: map[uint64]string{}, byName: map[string]uint64{}, instSize: map[uint64]int64{}}
	for _, r := range rows[1:] {
		id, err1 := strconv.ParseUint(r[0], 0, 64)
		size, err2 := strconv.ParseInt(r[5], 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("histogram row %v", r)
		}
		o.name[id], o.instSize[id] = r[1], size
		if old, ok := o.byName[r[1]]; !ok || id < old {
			o.byName[r[1]] = id
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sum struct {
		Log []string `json:"size_settings_log"`
	}
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	last := regexp.MustCompile(`(\d+)$`)
	for _, l := range sum.Log {
		m := last.FindString(l)
		v, _ := strconv.ParseInt(m, 10, 64)
		switch {
		case strings.HasPrefix(l, "OopSize"):
			o.oop = v
		case strings.HasPrefix(l, "MinimumInstanceSize"):
			o.header = v
		}
	}
	if o.oop == 0 || o.header == 0 {
		t.Fatalf("no size settings in %v", sum.Log)
	}
	return o
}

// obj is one object of the independent graph.
type obj struct {
	name   string // class name; "X.class" for the class object of X
	size   int64
	strong []uint64 // references that keep their target alive
	weak   []uint64 // Reference.referent: shares its target, keeps it not alive
	class  uint64   // class ID of an instance or array; 0 for class objects
}

// cdump is what the test keeps of a CLASS DUMP.
type cdump struct {
	super  uint64
	fields []hprof.FieldDecl
}

func openDump(t *testing.T, path string) io.ReadCloser {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(path, ".gz") {
		return f
	}
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	return struct {
		io.Reader
		io.Closer
	}{z, f}
}

var primNames = map[hprof.BasicType]string{
	hprof.TypeBoolean: "boolean[]", hprof.TypeChar: "char[]", hprof.TypeFloat: "float[]", hprof.TypeDouble: "double[]",
	hprof.TypeByte: "byte[]", hprof.TypeShort: "short[]", hprof.TypeInt: "int[]", hprof.TypeLong: "long[]",
}

var primSizes = map[hprof.BasicType]int64{
	hprof.TypeBoolean: 1, hprof.TypeChar: 2, hprof.TypeFloat: 4, hprof.TypeDouble: 8,
	hprof.TypeByte: 1, hprof.TypeShort: 2, hprof.TypeInt: 4, hprof.TypeLong: 8,
}

func align8(n int64) int64 { return (n + 7) &^ 7 }

// dumpReader is the test's own reading of a dump's objects.
type dumpReader struct {
	sz      oracleSizes
	idSize  int
	strs    map[uint64]string
	loaded  map[uint64]uint64 // class object ID → name string ID
	objs    map[uint64]*obj
	roots   []uint64
	classes map[uint64]*cdump
	inst    map[uint64][]byte // instance field bytes, resolved at the end
}

// readGraph reads the last heap dump of path: its objects, its roots (in
// dump order) and its class dumps. Instance references are resolved
// after the whole dump is read (class dumps may follow their instances).
func readGraph(t *testing.T, path string, sz oracleSizes) (map[uint64]*obj, []uint64, map[uint64]*cdump) {
	t.Helper()
	rc := openDump(t, path)
	defer rc.Close()
	r, err := hprof.NewReader(rc)
	if err != nil {
		t.Fatal(err)
	}
	d := &dumpReader{sz: sz, idSize: r.IDSize(), strs: map[uint64]string{}, loaded: map[uint64]uint64{}}
	var dumps hprof.DumpCounter
	cur := 0
	for {
		rec, err := r.Next()
		if err != nil {
			break // EOF, or damage: keep what was read, as the converter does
		}
		if rec.Tag == hprof.TagLoadClass || rec.Tag == hprof.TagUTF8 {
			if b, err := r.Body(); err != nil || !d.names(rec.Tag, b) {
				break
			}
			continue
		}
		n := dumps.Dump(rec.Tag)
		if n == 0 {
			continue
		}
		if n != cur {
			cur = n
			d.objs, d.roots, d.classes, d.inst = map[uint64]*obj{}, nil, map[uint64]*cdump{}, map[uint64][]byte{}
		}
		hr := r.Heap()
		for {
			sub, err := hr.Next()
			if err != nil || !d.sub(sub, hr) {
				break
			}
		}
	}
	if d.objs == nil {
		t.Fatal("no heap dump")
	}
	d.resolve()
	return d.objs, d.roots, d.classes
}

// names notes a LOAD CLASS or UTF8 record; false when it is short.
func (d *dumpReader) names(tag hprof.Tag, b []byte) bool {
	id := d.idSize
	if tag == hprof.TagLoadClass {
		if len(b) < 8+2*id {
			return false
		}
		d.loaded[readID(b[4:], id)] = readID(b[8+id:], id)
		return true
	}
	if len(b) < id {
		return false
	}
	d.strs[readID(b, id)] = string(b[id:])
	return true
}

// sub notes one heap sub-record; false when its payload is cut.
func (d *dumpReader) sub(sub *hprof.SubRecord, hr *hprof.HeapReader) bool {
	sz := d.sz
	switch {
	case sub.Tag.IsRoot():
		d.roots = append(d.roots, sub.ID)
	case sub.Tag == hprof.ClassDump:
		c := &sub.Class
		d.classes[c.ID] = &cdump{super: c.SuperID, fields: append([]hprof.FieldDecl(nil), c.Fields...)}
		o := &obj{}
		for _, s := range c.Statics {
			if s.Type == hprof.TypeObject && s.Value != 0 {
				o.strong = append(o.strong, s.Value)
			}
		}
		if c.LoaderID != 0 {
			o.strong = append(o.strong, c.LoaderID)
		}
		d.objs[c.ID] = o
	case sub.Tag == hprof.InstanceDump:
		b, err := hr.Payload()
		if err != nil {
			return false
		}
		d.inst[sub.ID] = append([]byte(nil), b...)
		d.objs[sub.ID] = &obj{class: sub.ClassID}
	case sub.Tag == hprof.ObjArrayDump:
		b, err := hr.Payload()
		if err != nil {
			return false
		}
		o := &obj{class: sub.ClassID, size: align8(sz.header + 4 + int64(sub.Length)*sz.oop)}
		for i := 0; i+d.idSize <= len(b); i += d.idSize {
			if v := readID(b[i:], d.idSize); v != 0 {
				o.strong = append(o.strong, v)
			}
		}
		d.objs[sub.ID] = o
	case sub.Tag == hprof.PrimArrayDump || sub.Tag == hprof.PrimArrayNoData:
		d.objs[sub.ID] = &obj{name: primNames[sub.ElemType], class: sz.byName[primNames[sub.ElemType]],
			size: align8(sz.header + 4 + int64(sub.Length)*primSizes[sub.ElemType])}
	}
	return true
}

// resolve names every object and reads the instances' references. A
// file with several dumps: the oracle names the classes of the first;
// the others are named from LOAD CLASS and sized by the same model.
func (d *dumpReader) resolve() {
	sz := d.sz
	for id := range d.classes {
		if _, ok := sz.name[id]; ok {
			continue
		}
		sz.name[id] = javaName(d.strs[d.loaded[id]])
		size := sz.header
		for k, n := id, 0; k != 0 && n < 256 && d.classes[k] != nil; n++ {
			for _, f := range d.classes[k].fields {
				if f.Type == hprof.TypeObject {
					size += sz.oop
				} else {
					size += int64(f.Type.Size(d.idSize))
				}
			}
			k = d.classes[k].super
		}
		sz.instSize[id] = align8(size)
	}
	for id, o := range d.objs {
		switch {
		case d.classes[id] != nil && o.class == 0:
			o.name = sz.name[id] + ".class"
		case isInstance(d.inst, id):
			o.name, o.size = sz.name[o.class], sz.instSize[o.class]
			resolveFields(o, d.inst[id], d.classes, sz, d.strs, d.idSize)
		case o.name == "":
			o.name = sz.name[o.class]
		}
	}
}

func isInstance(inst map[uint64][]byte, id uint64) bool { _, ok := inst[id]; return ok }

// javaName turns a LOAD CLASS name into the Java one: "java/util/Map",
// "[Ljava/lang/String;" → "java.lang.String[]", "[[I" → "int[][]".
func javaName(n string) string {
	dims := 0
	for strings.HasPrefix(n, "[") {
		dims++
		n = n[1:]
	}
	if dims > 0 {
		prim := map[string]string{"Z": "boolean", "C": "char", "F": "float", "D": "double", "B": "byte", "S": "short", "I": "int", "J": "long"}
		if p, ok := prim[n]; ok {
			n = p
		} else {
			n = strings.TrimSuffix(strings.TrimPrefix(n, "L"), ";")
		}
	}
	return strings.ReplaceAll(n, "/", ".") + strings.Repeat("[]", dims)
}

func readID(b []byte, idSize int) uint64 {
	if idSize == 4 {
		return uint64(b[0])<<24 | uint64(b[1])<<16 | uint64(b[2])<<8 | uint64(b[3])
	}
	var v uint64
	for _, c := range b[:8] {
		v = v<<8 | uint64(c)
	}
	return v
}

// weakClasses are the classes whose referent field (and their
// subclasses') keeps nothing alive.
var weakClasses = map[string]bool{
	"java.lang.ref.WeakReference": true, "java.lang.ref.SoftReference": true,
	"java.lang.ref.FinalReference": true, "java.lang.ref.PhantomReference": true,
}

// resolveFields reads an instance's references: its class's own fields
// first, then each super class's. The referent of a subclass of Weak,
// Soft, Final or PhantomReference is a weak reference.
func resolveFields(o *obj, b []byte, classes map[uint64]*cdump, sz oracleSizes, strs map[uint64]string, idSize int) {
	weakClass := false
	for id, n := o.class, 0; id != 0 && n < 256 && classes[id] != nil; n++ {
		weakClass = weakClass || weakClasses[sz.name[id]]
		id = classes[id].super
	}
	off := 0
	for id, n := o.class, 0; id != 0 && n < 256 && classes[id] != nil; n++ {
		for _, f := range classes[id].fields {
			if f.Type == hprof.TypeObject && off+idSize <= len(b) {
				if v := readID(b[off:], idSize); v != 0 {
					if weakClass && strs[f.NameID] == "referent" {
						o.weak = append(o.weak, v)
					} else {
						o.strong = append(o.strong, v)
					}
				}
			}
			off += f.Type.Size(idSize)
		}
		id = classes[id].super
	}
}

// dense is the graph in dense numbers: node i is the object ids[i].
type dense struct {
	name   []string
	size   []int64
	strong [][]int32
	weak   [][]int32
	class  []int32 // the node of an instance's class object; -1 for none
	roots  []int32
}

func toDense(objs map[uint64]*obj, roots []uint64) *dense {
	ids := make([]uint64, 0, len(objs))
	for id := range objs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	num := make(map[uint64]int32, len(ids))
	for i, id := range ids {
		num[id] = int32(i)
	}
	conv := func(refs []uint64) []int32 {
		var out []int32
		for _, r := range refs {
			if i, ok := num[r]; ok {
				out = append(out, i)
			}
		}
		return out
	}
	d := &dense{}
	for _, id := range ids {
		o := objs[id]
		d.name = append(d.name, o.name)
		d.size = append(d.size, o.size)
		d.strong = append(d.strong, conv(o.strong))
		d.weak = append(d.weak, conv(o.weak))
		c, ok := num[o.class]
		if o.class == 0 || !ok || objs[o.class].class != 0 {
			c = -1
		}
		d.class = append(d.class, c)
	}
	d.roots = conv(roots)
	return d
}

// independentCum builds the object graph of path's last heap dump and
// returns, per class name, the objects and bytes its reachable objects
// not dominated by another object of that name retain.
func independentCum(t *testing.T, path string) (map[string][2]int64, int) {
	t.Helper()
	sz := readOracleSizes(t, path+".oracle")
	objs, roots, _ := readGraph(t, path, sz)
	d := toDense(objs, roots)
	live := d.strongReachable()
	order, idom := d.dominatorsCHK(live)
	// Class objects below the virtual root that are no GC root: those no
	// reference reached by the end of the round that found their class.
	isRoot := map[int32]bool{}
	for _, r := range d.roots {
		isRoot[r] = true
	}
	classRoots := 0
	for _, v := range d.virtualRootEdges(live, d.liveSucc(live)) {
		if !isRoot[v] {
			classRoots++
		}
	}
	// Retained sizes: children after their dominators in reverse postorder.
	n := len(d.name)
	retObjs, retBytes := make([]int64, n+1), make([]int64, n+1) // index n: the virtual root
	for i := len(order) - 1; i >= 1; i-- {
		v := order[i]
		retObjs[v]++
		retBytes[v] += d.size[v]
		retObjs[idom[v]] += retObjs[v]
		retBytes[idom[v]] += retBytes[v]
	}
	// Per name: a walk of the dominator tree counting the open objects
	// of each name; an object counts when none of its name is open.
	kids := make([][]int32, n+1)
	for _, v := range order[1:] {
		kids[idom[v]] = append(kids[idom[v]], v)
	}
	cum := map[string][2]int64{}
	open := map[string]int{}
	type frame struct{ v, k int32 }
	stack := []frame{{int32(n), 0}}
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if int(top.k) < len(kids[top.v]) {
			w := kids[top.v][top.k]
			top.k++
			nm := d.name[w]
			if open[nm] == 0 {
				c := cum[nm]
				c[0] += retObjs[w]
				c[1] += retBytes[w]
				cum[nm] = c
			}
			open[nm]++
			stack = append(stack, frame{w, 0})
			continue
		}
		if int(top.v) != n {
			open[d.name[top.v]]--
		}
		stack = stack[:len(stack)-1]
	}
	return cum, classRoots
}

// strongReachable marks what the roots reach through strong references,
// then, until nothing changes, adds the class objects of reached
// instances (the VM and their loader hold them) with what they reach.
func (d *dense) strongReachable() []bool {
	live := make([]bool, len(d.name))
	var stack []int32
	push := func(v int32) {
		if !live[v] {
			live[v] = true
			stack = append(stack, v)
		}
	}
	for _, r := range d.roots {
		push(r)
	}
	for {
		for len(stack) > 0 {
			v := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, w := range d.strong[v] {
				push(w)
			}
		}
		for v, ok := range live {
			if c := d.class[v]; ok && c >= 0 {
				push(c)
			}
		}
		if len(stack) == 0 {
			return live
		}
	}
}

// dominatorsCHK returns, in the graph of strong and weak references
// restricted to the live objects, below a virtual root (number n) that
// points at every root and at the class objects of reached instances
// that nothing reached holds (in rounds, as the class objects' statics
// reach more), the nodes in reverse postorder (the virtual root first)
// and their immediate dominators.
func (d *dense) dominatorsCHK(live []bool) (order []int32, idom []int32) {
	n := int32(len(d.name))
	succ := d.liveSucc(live)
	top := d.virtualRootEdges(live, succ)
	rpo, num := reversePostorder(n, top, succ)
	preds := make([][]int32, n+1)
	for _, r := range top {
		preds[r] = append(preds[r], n)
	}
	for _, v := range rpo[1:] {
		for _, w := range succ(v) {
			preds[w] = append(preds[w], v)
		}
	}
	return rpo, iterateDominators(n, rpo, num, preds)
}

// virtualRootEdges are the live roots, then the class objects of reached
// instances not reached yet, round after round.
// liveSucc returns the successors of a node among the live ones, through
// strong and weak references.
func (d *dense) liveSucc(live []bool) func(int32) []int32 {
	return func(v int32) []int32 {
		var out []int32
		for _, w := range d.strong[v] {
			if live[w] {
				out = append(out, w)
			}
		}
		for _, w := range d.weak[v] {
			if live[w] {
				out = append(out, w)
			}
		}
		return out
	}
}

func (d *dense) virtualRootEdges(live []bool, succ func(int32) []int32) []int32 {
	var top []int32
	n := len(d.name)
	reached, inTop := make([]bool, n), make([]bool, n)
	var work []int32
	visit := func(from []int32) {
		for _, r := range from {
			if live[r] && !inTop[r] {
				inTop[r] = true
				top = append(top, r)
			}
			if live[r] && !reached[r] {
				reached[r] = true
				work = append(work, r)
			}
		}
		for len(work) > 0 {
			v := work[len(work)-1]
			work = work[:len(work)-1]
			for _, w := range succ(v) {
				if !reached[w] {
					reached[w] = true
					work = append(work, w)
				}
			}
		}
	}
	visit(d.roots)
	for {
		var extra []int32
		for v, ok := range reached {
			if c := d.class[v]; ok && c >= 0 && !reached[c] && !slices.Contains(extra, c) {
				extra = append(extra, c)
			}
		}
		if len(extra) == 0 {
			return top
		}
		slices.Sort(extra)
		visit(extra)
	}
}

// reversePostorder numbers what the virtual root n reaches (through top,
// then succ) in reverse postorder: rpo[0] is n; num[v] is v's index.
func reversePostorder(n int32, top []int32, succ func(int32) []int32) (rpo, num []int32) {
	seen := make([]bool, n+1)
	seen[n] = true
	var post []int32
	type frame struct {
		v    int32
		next []int32
	}
	stack := []frame{{n, top}}
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		if len(f.next) > 0 {
			w := f.next[0]
			f.next = f.next[1:]
			if !seen[w] {
				seen[w] = true
				stack = append(stack, frame{w, succ(w)})
			}
			continue
		}
		post = append(post, f.v)
		stack = stack[:len(stack)-1]
	}
	rpo = make([]int32, len(post))
	num = make([]int32, n+1)
	for i, v := range post {
		rpo[len(post)-1-i] = v
		num[v] = int32(len(post) - 1 - i)
	}
	return rpo, num
}

// iterateDominators is Cooper, Harvey and Kennedy's algorithm: each
// node's dominator is the intersection of its processed predecessors',
// over the nodes in reverse postorder, until nothing changes.
func iterateDominators(n int32, rpo, num []int32, preds [][]int32) []int32 {
	idom := make([]int32, n+1)
	for i := range idom {
		idom[i] = -1
	}
	idom[n] = n
	intersect := func(a, b int32) int32 {
		for a != b {
			for num[a] > num[b] {
				a = idom[a]
			}
			for num[b] > num[a] {
				b = idom[b]
			}
		}
		return a
	}
	for changed := true; changed; {
		changed = false
		for _, v := range rpo[1:] {
			dom := int32(-1)
			for _, p := range preds[v] {
				if idom[p] < 0 {
					continue
				}
				if dom < 0 {
					dom = p
				} else {
					dom = intersect(p, dom)
				}
			}
			if idom[v] != dom {
				idom[v] = dom
				changed = true
			}
		}
	}
	return idom
}
