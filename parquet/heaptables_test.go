package parquet

import (
	"compress/gzip"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/hprof2pprof/hprof2pprof/convert"
	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/hprof"
	"github.com/hprof2pprof/hprof2pprof/convert/javaname"
)

// heapDump is a real dump the heap tables are tested on, with the source
// name its rows get and whether the retained view is computed with it.
type heapDump struct {
	source, file string
	retained     bool
	dump         int // the heap dump of the file the oracle read (0: the only one)
}

var heapDumps = []heapDump{
	{"before.hprof", "jdk17-zoo-live.hprof", true, 0},
	{"after.hprof", "jdk25-zoo-live.hprof.gz", true, 0},
	{"jdk6.hprof", "mat-sun_jdk6_31_hprofagent_compressedOops.hprof.gz", false, 1},
}

// writeHeapTables converts the dumps into one directory with every heap
// table, small row groups so that several are written.
// convertWithRows decodes path and then reads its heap rows into sink,
// as the command does.
func convertWithRows(ctx context.Context, path string, opts convert.Options, sink *graph.ObjectSink) (*graph.Graph, error) {
	opts.Rows, opts.ObjectRetained = sink != nil, sink != nil && sink.Object != nil
	d, err := convert.DecodeFile(ctx, path, opts)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	if err := d.Rows(ctx, sink); err != nil {
		return nil, err
	}
	return d.Graph(), nil
}

func writeHeapTables(t *testing.T, dir string) {
	t.Helper()
	w, err := NewWriter(dir, Options{RowGroupRows: 10000, HeapTables: HeapTables})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range heapDumps {
		views := []string{graph.ViewHeap}
		if d.retained {
			views = append(views, graph.ViewRetained)
		}
		// Compared with the oracle: its size model (VisualVM's).
		opts := convert.Options{Views: views, Dump: d.dump, VisualVMSizes: true}
		g, err := convertWithRows(context.Background(), filepath.Join(moduleRoot(t), "testdata", d.file), opts, w.ObjectSink(d.source))
		if err != nil {
			t.Fatal(err)
		}
		if err := w.AddAs(d.source, g); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestHeapTablesREADMEQueries runs every heap query of the README in
// DuckDB over tables of three real dumps and checks each answer against
// one computed another way: the oracle's (VisualVM's library) histogram,
// GC roots and retained sizes, and a scan of the dumps' own records
// (scanDump, which shares nothing with the converter but the record
// reader).
func TestHeapTablesREADMEQueries(t *testing.T) {
	modules := duckdbModules(t)
	qs := readmeBlocks(t, "-- heap: ")
	dir := t.TempDir()
	writeHeapTables(t, dir)
	extra := []namedQuery{
		{"heap_view", "SELECT source, class, sum(instances) AS instances, sum(shallow_bytes) AS shallow_bytes FROM classes GROUP BY source, class"},
		{"heap_view_raw", "SELECT source, class_raw, instances, shallow_bytes FROM classes"},
		{"objects_raw", "SELECT source, class_raw, count(*) AS instances, sum(shallow_size) AS shallow_bytes FROM objects WHERE kind <> 'class' AND shallow_size IS NOT NULL GROUP BY source, class_raw"},
		{"root_kinds", "SELECT source, kind, count(*) AS n FROM roots GROUP BY source, kind"},
		{"string_count", "SELECT source, count(*) AS n FROM strings GROUP BY source"},
		{"ref_check", "SELECT r.source, r.kind, count(*) AS n FROM refs AS r LEFT JOIN objects AS o ON o.source = r.source AND o.object_id = r.to_id WHERE o.object_id IS NULL GROUP BY ALL"},
	}
	res := runDuckDB(t, modules, []string{dir}, append(qs, extra...))
	names := map[string]bool{}
	for _, q := range qs {
		names[q.Name] = true
	}
	for _, want := range []string{"class_histogram", "duplicate_strings", "collection_fill", "dominator_chain", "retained_over", "class_growth"} {
		if !names[want] {
			t.Errorf("README has no heap query %s", want)
		}
	}
	root := moduleRoot(t)
	hist := map[string][]string{}
	for _, d := range heapDumps {
		oracle := filepath.Join(root, "testdata", d.file+".oracle")
		for _, r := range readCSV(t, filepath.Join(oracle, "histogram-by-name.csv"))[1:] {
			if r[1] != "0" {
				hist[d.source] = append(hist[d.source], d.source+"|"+r[0]+"|"+r[1]+"|"+r[2])
			}
		}
	}
	checkSet := func(name string, got, want []string) {
		t.Helper()
		sort.Strings(got)
		sort.Strings(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s:\n got  %d rows %q\n want %d rows %q", name, len(got), got, len(want), want)
		} else {
			t.Logf("%s: %d rows agree", name, len(got))
		}
	}
	var allHist []string
	for _, d := range heapDumps {
		allHist = append(allHist, hist[d.source]...)
	}
	// The tables name a class as the oracle does in class_raw, and
	// hidden classes alike in class (javaname.Normalize).
	checkSet("objects by class_raw vs the oracle", res.rows(t, "objects_raw", "source", "class_raw", "instances", "shallow_bytes"), allHist)
	checkSet("classes by class_raw vs the oracle", res.rows(t, "heap_view_raw", "source", "class_raw", "instances", "shallow_bytes"), allHist)
	checkSet("class_histogram vs the oracle", res.rows(t, "class_histogram", "source", "class", "instances", "shallow_bytes"), normalizedHistogram(allHist))
	checkSet("class_histogram vs the heap view", res.rows(t, "class_histogram", "source", "class", "instances", "shallow_bytes"),
		res.rows(t, "heap_view", "source", "class", "instances", "shallow_bytes"))
	checkSet("class_growth vs the oracle", res.rows(t, "class_growth", "class", "instances_delta", "bytes_delta"),
		growth(hist["before.hprof"], hist["after.hprof"]))
	checkRoots(t, res, checkSet)

	for _, d := range heapDumps {
		scan := scanDump(t, filepath.Join(root, "testdata", d.file), max(d.dump, 1), oracleSize(hist[d.source], "java.lang.String"))
		if got := res.rows(t, "string_count", "source", "n"); !slices.Contains(got, fmt.Sprintf("%s|%d", d.source, scan.strings)) {
			t.Errorf("%s: strings table counts %q, the dump has %d Strings", d.source, got, scan.strings)
		}
		var dups []string
		for _, r := range res.rows(t, "duplicate_strings", "source", "value", "copies", "wasted_bytes") {
			if strings.HasPrefix(r, d.source+"|") {
				dups = append(dups, strings.TrimPrefix(r, d.source+"|"))
			}
		}
		checkSet(d.source+" duplicate_strings vs a scan of the dump", dups, scan.topDuplicates(20))
		var fill []string
		for _, r := range res.rows(t, "collection_fill", "source", "class", "instances", "empty", "under_filled", "unused_slots") {
			if strings.HasPrefix(r, d.source+"|") {
				fill = append(fill, strings.TrimPrefix(r, d.source+"|"))
			}
		}
		checkSet(d.source+" collection_fill vs a scan of the dump", fill, scan.fill())
	}
	checkRetained(t, res)
	t.Logf("references to objects not in the dump: %v", res.rows(t, "ref_check", "source", "kind", "n"))
}

// oracleSize is one instance's size of class in an oracle histogram.
func oracleSize(hist []string, class string) int64 {
	for _, r := range hist {
		if p := strings.Split(r, "|"); p[1] == class {
			n, _ := strconv.ParseInt(p[2], 10, 64)
			b, _ := strconv.ParseInt(p[3], 10, 64)
			return b / n
		}
	}
	return 0
}

// normalizedHistogram sums oracle histogram rows
// ("source|class|instances|bytes") by the class's normalised name
// (javaname.Normalize), as the tables' class column names it.
func normalizedHistogram(rows []string) []string {
	type cnt struct{ n, b int64 }
	m := map[string]cnt{}
	for _, r := range rows {
		p := strings.Split(r, "|")
		n, _ := strconv.ParseInt(p[2], 10, 64)
		b, _ := strconv.ParseInt(p[3], 10, 64)
		k := p[0] + "|" + javaname.Normalize(p[1])
		m[k] = cnt{m[k].n + n, m[k].b + b}
	}
	out := make([]string, 0, len(m))
	for k, c := range m {
		out = append(out, fmt.Sprintf("%s|%d|%d", k, c.n, c.b))
	}
	return out
}

// growth is the per-class difference of two oracle histograms
// ("source|class|instances|bytes" rows), by normalised class name, as
// class_growth computes it.
func growth(before, after []string) []string {
	type cnt struct{ n, b int64 }
	m := map[string]cnt{}
	add := func(rows []string, sign int64) {
		for _, r := range rows {
			p := strings.Split(r, "|")
			n, _ := strconv.ParseInt(p[2], 10, 64)
			b, _ := strconv.ParseInt(p[3], 10, 64)
			k := javaname.Normalize(p[1])
			c := m[k]
			c.n += sign * n
			c.b += sign * b
			m[k] = c
		}
	}
	add(before, -1)
	add(after, 1)
	var out []string
	for k, c := range m {
		out = append(out, fmt.Sprintf("%s|%d|%d", k, c.n, c.b))
	}
	return out
}

// checkRoots compares the roots by kind with the oracle's summary.
func checkRoots(t *testing.T, res duckdbResult, checkSet func(string, []string, []string)) {
	t.Helper()
	root := moduleRoot(t)
	for _, d := range heapDumps {
		b, err := os.ReadFile(filepath.Join(root, "testdata", d.file+".oracle", "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		var sum struct {
			Roots map[string]int64 `json:"gc_roots_by_kind"`
		}
		if err := json.Unmarshal(b, &sum); err != nil {
			t.Fatal(err)
		}
		var want []string
		for k, n := range sum.Roots {
			want = append(want, fmt.Sprintf("%s|%d", strings.ToLower(k), n))
		}
		var got []string
		for _, r := range res.rows(t, "root_kinds", "source", "kind", "n") {
			if strings.HasPrefix(r, d.source+"|") {
				got = append(got, strings.TrimPrefix(r, d.source+"|"))
			}
		}
		checkSet(d.source+" roots by kind vs the oracle", got, want)
	}
}

// checkRetained checks the dominator chain and the retained filter
// against the oracle's retained sizes of its top objects.
func checkRetained(t *testing.T, res duckdbResult) {
	t.Helper()
	root := moduleRoot(t)
	for _, d := range heapDumps {
		if !d.retained {
			continue
		}
		top := map[string]int64{}
		cls := map[string]string{}
		minTop := int64(-1)
		for _, r := range readCSV(t, filepath.Join(root, "testdata", d.file+".oracle", "retained-top-objects.csv"))[1:] {
			id, err := strconv.ParseUint(strings.TrimPrefix(r[1], "0x"), 16, 64)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := strconv.ParseInt(r[4], 10, 64)
			key := strconv.FormatUint(id, 10)
			top[key], cls[key] = b, r[2]
			if minTop < 0 || b < minTop {
				minTop = b
			}
		}
		var chain [][]string
		for _, r := range res.rows(t, "dominator_chain", "source", "object_id", "class", "retained_size", "dominator_id", "root_kinds", "kind") {
			if p := strings.Split(r, "|"); p[0] == d.source {
				chain = append(chain, p[1:])
			}
		}
		checkChain(t, d.source, chain, top)
		// retained_over lists every HashMap over 250,000 bytes; the
		// oracle's top list holds them all when its smallest is smaller.
		if minTop >= 250000 {
			t.Fatalf("%s: the oracle's top objects stop at %d bytes", d.source, minTop)
		}
		var want []string
		for id, b := range top {
			if cls[id] == "java.util.HashMap" && b > 250000 {
				want = append(want, fmt.Sprintf("%s|%s|%d", d.source, id, b))
			}
		}
		var got []string
		for _, r := range res.rows(t, "retained_over", "source", "object_id", "retained_size") {
			if strings.HasPrefix(r, d.source+"|") {
				got = append(got, r)
			}
		}
		sort.Strings(got)
		sort.Strings(want)
		if len(want) == 0 || !slices.Equal(got, want) {
			t.Errorf("%s retained_over: got %q, the oracle has %q", d.source, got, want)
		}
	}
}

// checkChain checks one dominator chain (object_id, class, retained,
// dominator_id, root_kinds, kind rows, from the object up): each link's
// dominator is the next row, retained sizes grow along it, it ends at an
// object the virtual root dominates that is a GC root or a class object,
// and the sizes the oracle also lists are equal, but for class objects
// (the oracle weighs them, the retained view does not: docs/retained.md).
// Any of these objects whose class is in garbageHeld may retain more than
// the oracle says (see there).
func checkChain(t *testing.T, source string, chain [][]string, top map[string]int64) {
	t.Helper()
	if len(chain) == 0 {
		t.Fatalf("%s: no dominator chain", source)
	}
	var prev int64 = -1
	for i, c := range chain {
		b, _ := strconv.ParseInt(c[2], 10, 64)
		if b < prev {
			t.Errorf("%s: chain row %d retains %d, less than the object it dominates (%d)", source, i, b, prev)
		}
		prev = b
		if i+1 < len(chain) && c[3] != chain[i+1][0] {
			t.Errorf("%s: chain row %d has dominator %s, next row is %s", source, i, c[3], chain[i+1][0])
		}
		if want, ok := top[c[0]]; ok && want != b && c[5] != "class" && !(garbageHeld[c[1]] && b > want) {
			t.Errorf("%s: object %s (%s) retains %d, the oracle says %d", source, c[0], c[1], b, want)
		}
	}
	last := chain[len(chain)-1]
	if last[3] != "0" || (last[4] == "NULL" && last[5] != "class") {
		t.Errorf("%s: the chain ends at %v, not at a GC root the virtual root dominates", source, last)
	}
	if _, ok := top[chain[0][0]]; !ok {
		t.Errorf("%s: the biggest object %v is not in the oracle's top objects", source, chain[0])
	}
	t.Logf("%s: dominator chain of %d objects, %s (%s bytes) up to %s %s", source, len(chain), chain[0][1], chain[0][2], last[1], last[4])
}

// dumpScan is what scanDump finds in a dump's records.
type dumpScan struct {
	strings int
	// values: for each String text, its copies, distinct value arrays,
	// the String's shallow size and its smallest array's.
	values map[string]*dupCount
	// collections by class: size and capacity of each instance.
	colls map[string][][2]int64
}

type dupCount struct {
	copies, strBytes, arrBytes int64
	arrays                     map[uint64]bool
}

// topDuplicates is the duplicate_strings answer: "value|copies|wasted".
func (s *dumpScan) topDuplicates(n int) []string {
	type row struct {
		v         string
		c, wasted int64
	}
	var rows []row
	for v, d := range s.values {
		if d.copies > 1 {
			rows = append(rows, row{v, d.copies, (d.copies-1)*d.strBytes + int64(len(d.arrays)-1)*d.arrBytes})
		}
	}
	sort.Slice(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if a.wasted != b.wasted {
			return a.wasted > b.wasted
		}
		if a.c != b.c {
			return a.c > b.c
		}
		return a.v < b.v
	})
	var out []string
	for i := 0; i < len(rows) && i < n; i++ {
		out = append(out, fmt.Sprintf("%s|%d|%d", rows[i].v, rows[i].c, rows[i].wasted))
	}
	return out
}

// fill is the collection_fill answer: "class|instances|empty|under|unused".
func (s *dumpScan) fill() []string {
	var out []string
	for _, cls := range []string{"java.util.ArrayList", "java.util.HashMap"} {
		var empty, under, unused int64
		for _, c := range s.colls[cls] {
			switch {
			case c[0] == 0:
				empty++
			case c[0]*4 < c[1]:
				under++
			}
			if c[1] >= 0 {
				unused += c[1] - c[0]
			}
		}
		if n := len(s.colls[cls]); n > 0 {
			out = append(out, fmt.Sprintf("%s|%d|%d|%d|%d", cls, n, empty, under, unused))
		}
	}
	return out
}

// scanDump reads a dump's records on its own: names, class layouts, the
// Strings and their arrays, and HashMap/ArrayList sizes and capacities.
// A String weighs strSize (the oracle's histogram says it); arrays follow
// the oracle's model for these dumps: a header of 12 bytes with 4-byte
// IDs, 16 with 8-byte IDs (compressed references, as the oracle found).
func scanDump(t *testing.T, path string, dump int, strSize int64) *dumpScan {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var in io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		z, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		in = z
	}
	r, err := hprof.NewReader(in)
	if err != nil {
		t.Fatal(err)
	}
	idSize := r.IDSize()
	arrHeader := int64(16)
	if idSize == 4 {
		arrHeader = 12
	}
	readID := func(b []byte) uint64 {
		if idSize == 4 {
			return uint64(binary.BigEndian.Uint32(b))
		}
		return binary.BigEndian.Uint64(b)
	}
	names := map[uint64]string{}
	classNames := map[uint64]uint64{}
	type class struct {
		super  uint64
		fields []hprof.FieldDecl
	}
	classes := map[uint64]class{}
	type inst struct {
		class uint64
		data  []byte
	}
	var insts []inst
	arrays := map[uint64][2]any{} // id → {elem type, data}
	lengths := map[uint64]int64{}
	var dumps hprof.DumpCounter
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if n := dumps.Dump(rec.Tag); n != 0 && n != dump {
			continue
		}
		switch rec.Tag {
		case hprof.TagUTF8:
			b, err := r.Body()
			if err != nil {
				t.Fatal(err)
			}
			names[readID(b)] = string(b[idSize:])
		case hprof.TagLoadClass:
			b, err := r.Body()
			if err != nil {
				t.Fatal(err)
			}
			classNames[readID(b[4:])] = readID(b[8+idSize:])
		case hprof.TagHeapDump, hprof.TagHeapDumpSegment:
			hr := r.Heap()
			for {
				s, err := hr.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				switch s.Tag {
				case hprof.ClassDump:
					classes[s.Class.ID] = class{s.Class.SuperID, slices.Clone(s.Class.Fields)}
				case hprof.InstanceDump:
					b, err := hr.Payload()
					if err != nil {
						t.Fatal(err)
					}
					insts = append(insts, inst{s.ClassID, slices.Clone(b)})
				case hprof.ObjArrayDump:
					lengths[s.ID] = int64(s.Length)
				case hprof.PrimArrayDump:
					lengths[s.ID] = int64(s.Length)
					b, err := hr.Payload()
					if err != nil {
						t.Fatal(err)
					}
					if s.ElemType == hprof.TypeByte || s.ElemType == hprof.TypeChar {
						arrays[s.ID] = [2]any{s.ElemType, slices.Clone(b)}
					}
				}
			}
		}
	}
	className := func(id uint64) string { return strings.ReplaceAll(names[classNames[id]], "/", ".") }
	// field reads an int or reference field by name, own fields first.
	field := func(cls uint64, data []byte, name string) (int64, bool) {
		off := 0
		for c := cls; c != 0; c = classes[c].super {
			for _, f := range classes[c].fields {
				sz := f.Type.Size(idSize)
				if names[f.NameID] == name && off+sz <= len(data) {
					switch sz {
					case 1:
						return int64(int8(data[off])), true
					case 4:
						if f.Type == hprof.TypeObject {
							return int64(binary.BigEndian.Uint32(data[off:])), true
						}
						return int64(int32(binary.BigEndian.Uint32(data[off:]))), true
					case 8:
						return int64(binary.BigEndian.Uint64(data[off:])), true
					}
				}
				off += sz
			}
		}
		return 0, false
	}
	scan := &dumpScan{values: map[string]*dupCount{}, colls: map[string][][2]int64{}}
	for _, o := range insts {
		switch name := className(o.class); name {
		case "java.lang.String":
			arr, _ := field(o.class, o.data, "value")
			a, ok := arrays[uint64(arr)]
			if !ok {
				continue
			}
			scan.strings++
			coder, hasCoder := field(o.class, o.data, "coder")
			data := a[1].([]byte)
			var text string
			switch {
			case hasCoder && coder == 0:
				rs := make([]rune, len(data))
				for i, c := range data {
					rs[i] = rune(c)
				}
				text = string(rs)
			default:
				u := make([]uint16, len(data)/2)
				for i := range u {
					if a[0] == hprof.TypeChar {
						u[i] = binary.BigEndian.Uint16(data[2*i:])
					} else {
						u[i] = binary.LittleEndian.Uint16(data[2*i:])
					}
				}
				if off, ok := field(o.class, o.data, "offset"); ok {
					if n, ok := field(o.class, o.data, "count"); ok && off+n <= int64(len(u)) {
						u = u[off : off+n]
					}
				}
				text = string(utf16.Decode(u))
			}
			d := scan.values[text]
			if d == nil {
				d = &dupCount{arrays: map[uint64]bool{}}
				scan.values[text] = d
			}
			d.copies++
			d.arrays[uint64(arr)] = true
			d.strBytes = strSize
			if b := (arrHeader + int64(len(data)) + 7) &^ 7; d.arrBytes == 0 || b < d.arrBytes {
				d.arrBytes = b
			}
		case "java.util.HashMap", "java.util.ArrayList":
			size, _ := field(o.class, o.data, "size")
			ref := "table"
			if name == "java.util.ArrayList" {
				ref = "elementData"
			}
			capacity := int64(-1)
			if arr, _ := field(o.class, o.data, ref); arr != 0 {
				capacity = lengths[uint64(arr)]
			}
			scan.colls[name] = append(scan.colls[name], [2]int64{size, capacity})
		}
	}
	return scan
}

// TestHeapTablesCorpus sweeps the heap dumps of ../shared/corpus when it
// is there: for each with an oracle, the class histogram query, the GC
// roots by kind and the number of Strings must equal the oracle's.
func TestHeapTablesCorpus(t *testing.T) {
	modules := duckdbModules(t)
	corpus := filepath.Join(moduleRoot(t), "..", "shared", "corpus", "heapdump")
	oracles, _ := filepath.Glob(filepath.Join(corpus, "*.oracle"))
	if len(oracles) == 0 {
		t.Skip("../shared/corpus not present")
	}
	var hist []namedQuery
	for _, q := range readmeBlocks(t, "-- heap: ") {
		if q.Name == "class_histogram" {
			hist = append(hist, q)
		}
	}
	for _, o := range oracles {
		dump := strings.TrimSuffix(o, ".oracle")
		t.Run(filepath.Base(dump), func(t *testing.T) {
			dir := t.TempDir()
			w, err := NewWriter(dir, Options{HeapTables: HeapTables})
			if err != nil {
				t.Fatal(err)
			}
			// Compared with the oracle: its size model (VisualVM's).
			g, err := convertWithRows(context.Background(), dump, convert.Options{Views: []string{graph.ViewHeap}, VisualVMSizes: true}, w.ObjectSink("d"))
			if err != nil {
				t.Fatal(err)
			}
			if err := w.AddAs("d", g); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			res := runDuckDB(t, modules, []string{dir}, append(slices.Clone(hist),
				namedQuery{"roots", "SELECT kind, count(*) AS n FROM roots GROUP BY kind"},
				namedQuery{"strings", "SELECT count(*) AS n FROM strings"}))
			var want []string
			strs := "0"
			for _, r := range readCSV(t, filepath.Join(o, "histogram-by-name.csv"))[1:] {
				if r[1] != "0" {
					want = append(want, "d|"+strings.Join(r[:3], "|"))
				}
				if r[0] == "java.lang.String" {
					strs = r[1]
				}
			}
			got := res.rows(t, "class_histogram", "source", "class", "instances", "shallow_bytes")
			sort.Strings(got)
			sort.Strings(want)
			want = normalizedHistogram(want)
			sort.Strings(want)
			if !slices.Equal(got, want) {
				t.Errorf("class_histogram: %d rows differ from the oracle's %d", len(got), len(want))
			}
			if got := res.rows(t, "strings", "n"); got[0] != strs {
				t.Errorf("strings: %s rows, the oracle counts %s Strings", got[0], strs)
			}
			b, err := os.ReadFile(filepath.Join(o, "summary.json"))
			if err != nil {
				t.Fatal(err)
			}
			var sum struct {
				Roots map[string]int64 `json:"gc_roots_by_kind"`
			}
			if err := json.Unmarshal(b, &sum); err != nil {
				t.Fatal(err)
			}
			var wantRoots []string
			for k, n := range sum.Roots {
				wantRoots = append(wantRoots, fmt.Sprintf("%s|%d", strings.ToLower(k), n))
			}
			gotRoots := res.rows(t, "roots", "kind", "n")
			sort.Strings(gotRoots)
			sort.Strings(wantRoots)
			if !slices.Equal(gotRoots, wantRoots) {
				t.Errorf("roots by kind: got %q, the oracle %q", gotRoots, wantRoots)
			}
		})
	}
}
