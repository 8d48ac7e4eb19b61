package convert

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/hprof"
	"github.com/hprof2pprof/hprof2pprof/pprofout"
)

// The mutation sweep: real fixtures cut at record boundaries and at
// random offsets, and with bytes flipped in record headers and bodies.
// Every damaged input must decode without a panic, give a typed error
// with an offset inside the input, keep every record before the damage,
// and yield views that are valid pprof profiles.

// rawRecord is a top-level record found by scanRecords.
type rawRecord struct {
	tag        byte
	start, end int // the record's bytes: header and body
}

// scanRecords finds the top-level records of a binary HPROF file by hand,
// independently of package hprof: the header ends at the first NUL plus
// 12 bytes; each record is a tag, a u4 time, a u4 length and the body.
// It stops at the first record that does not fit.
func scanRecords(t *testing.T, data []byte) (header int, recs []rawRecord) {
	t.Helper()
	nul := bytes.IndexByte(data, 0)
	if nul < 0 {
		t.Fatal("no header")
	}
	header = nul + 1 + 12
	for off := header; off+9 <= len(data); {
		end := off + 9 + int(binary.BigEndian.Uint32(data[off+5:]))
		if end > len(data) {
			break
		}
		recs = append(recs, rawRecord{tag: data[off], start: off, end: end})
		off = end
	}
	return header, recs
}

// countBefore counts, by tag name, the records that end at or before cut.
func countBefore(recs []rawRecord, cut int) map[string]int64 {
	n := map[string]int64{}
	for _, r := range recs {
		if r.end <= cut {
			n[hprof.Tag(r.tag).String()]++
		}
	}
	return n
}

// cpuTotalBefore sums the total field (the body's first u4) of the CPU
// SAMPLES records that end at or before cut.
func cpuTotalBefore(data []byte, recs []rawRecord, cut int) int64 {
	var n int64
	for _, r := range recs {
		if r.end <= cut && hprof.Tag(r.tag) == hprof.TagCPUSamples {
			n += int64(binary.BigEndian.Uint32(data[r.start+9:]))
		}
	}
	return n
}

// decodeDamaged converts data and checks what every damaged input must
// satisfy; it returns the graph (nil when nothing usable was read).
func decodeDamaged(t *testing.T, what string, data []byte) *graph.Graph {
	t.Helper()
	g, err := Convert(context.Background(), bytes.NewReader(data), what, Options{})
	if err != nil {
		if !typed(err) {
			t.Fatalf("%s: untyped error %v", what, err)
		}
		return nil
	}
	if g.Damage != nil {
		if !typed(g.Damage) {
			t.Fatalf("%s: untyped damage %v", what, g.Damage)
		}
		var fe *hprof.FormatError
		if !errors.As(g.Damage, &fe) {
			t.Fatalf("%s: damage without an offset: %v", what, g.Damage)
		}
		if fe.Off < 0 || fe.Off > int64(len(data)) {
			t.Fatalf("%s: damage at byte %d of a %d-byte input", what, fe.Off, len(data))
		}
		if g.Lost == "" {
			t.Fatalf("%s: damage %v but nothing says what was lost", what, g.Damage)
		}
	}
	for _, v := range g.Views {
		if _, err := pprofout.Profile(g, v.Name); err != nil {
			t.Fatalf("%s: view %s: %v", what, v.Name, err)
		}
	}
	sameFromFile(t, what, data, g)
	return g
}

// sameFromFile decodes data again from a file, which reads plain files'
// heap segments in parallel (parallel.go), and requires the same damage
// and byte-identical views as the stream gave.
func sameFromFile(t *testing.T, what string, data []byte, streamed *graph.Graph) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "damaged.hprof")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	g, err := ConvertFile(context.Background(), p, Options{})
	if err != nil {
		return // no graph either way; the stream's error was checked
	}
	g.Source.Path = streamed.Source.Path // named in the profiles
	if fmt.Sprint(g.Damage) != fmt.Sprint(streamed.Damage) {
		t.Fatalf("%s: from a file, damage %v; streamed, %v", what, g.Damage, streamed.Damage)
	}
	for _, v := range streamed.Views {
		var a, b bytes.Buffer
		errA := pprofout.Write(&a, g, v.Name)
		errB := pprofout.Write(&b, streamed, v.Name)
		if errA != nil || errB != nil || !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Fatalf("%s: view %s differs when read from a file (%v, %v)", what, v.Name, errA, errB)
		}
	}
}

func typed(err error) bool {
	for _, s := range []error{hprof.ErrNotHPROF, hprof.ErrTruncated, hprof.ErrCorrupt, hprof.ErrUnsupported} {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}

// checkKept fails unless g counts at least every record that ends at or
// before cut.
func checkKept(t *testing.T, what string, g *graph.Graph, want map[string]int64) {
	t.Helper()
	for tag, n := range want {
		if g.Source.Records[tag] < n {
			t.Fatalf("%s: %d %s records, %d were complete before the damage", what, g.Source.Records[tag], tag, n)
		}
	}
}

func TestTruncateAtEveryRecord(t *testing.T) {
	const path = "../testdata/cpu-samples.cpuwork.jdk17.hprof"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, recs := scanRecords(t, data)
	if recs[len(recs)-1].end != len(data) {
		t.Fatal("the fixture is not a whole number of records")
	}
	// Two halves in parallel: a few thousand decodes.
	for half := range 2 {
		t.Run(fmt.Sprint("half", half), func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(1, uint64(half)))
			for i := half; i < len(recs); i += 2 {
				truncateAt(t, data, recs, i, rng)
			}
		})
	}
}

// truncateAt cuts data before record i, and (for every record of a rare
// kind, and one in sixteen of the many strings and classes) at a random
// byte inside it.
func truncateAt(t *testing.T, data []byte, recs []rawRecord, i int, rng *rand.Rand) {
	r := recs[i]
	// At the boundary: a clean end, exactly the records before it.
	cut := r.start
	what := fmt.Sprintf("cut before record %d at byte %d", i, cut)
	g := decodeDamaged(t, what, data[:cut])
	want := countBefore(recs, cut)
	for tag, n := range g.Source.Records {
		if want[tag] != n {
			t.Fatalf("%s: %d %s records, want %d", what, n, tag, want[tag])
		}
	}
	if g.Damage != nil {
		t.Fatalf("%s: damage %v at a record boundary", what, g.Damage)
	}
	if samples := cpuTotalBefore(data, recs, cut); samples > 0 || g.View(graph.ViewCPU) != nil {
		if v := g.View(graph.ViewCPU); v == nil || v.Totals()[0] != samples {
			t.Fatalf("%s: cpu view %v, the records before the cut hold %d samples", what, v, samples)
		}
	}
	tag := hprof.Tag(r.tag)
	if (tag == hprof.TagUTF8 || tag == hprof.TagLoadClass) && i%16 != 0 {
		return
	}
	// Inside the record (its header or its body): a typed truncation
	// error at the end of the input, naming the record.
	cut = r.start + 1 + rng.IntN(r.end-r.start-1)
	what = fmt.Sprintf("cut inside record %d at byte %d", i, cut)
	g = decodeDamaged(t, what, data[:cut])
	checkTruncated(t, what, g, cut, r.start)
	checkKept(t, what, g, countBefore(recs, cut))
}

// checkTruncated fails unless g's damage is a truncation at the end of
// the input naming the record that starts at recStart.
func checkTruncated(t *testing.T, what string, g *graph.Graph, cut, recStart int) {
	t.Helper()
	var fe *hprof.FormatError
	if g == nil || !errors.Is(g.Damage, hprof.ErrTruncated) || !errors.As(g.Damage, &fe) {
		t.Fatalf("%s: want a truncation error, got graph %v", what, g != nil)
	}
	if fe.Off != int64(cut) {
		t.Fatalf("%s: truncation reported at byte %d: %v", what, fe.Off, g.Damage)
	}
	if !strings.Contains(fe.Record, fmt.Sprintf("at byte %d", recStart)) {
		t.Fatalf("%s: damage does not name the record at byte %d: %v", what, recStart, g.Damage)
	}
}

func TestTruncateBigFixturesAtRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range []struct {
		path string
		cuts int
	}{
		{"../testdata/jdk17-zoo-live.hprof", 4},
		{"../testdata/jdk17-zoo-jhsdb.hprof", 2},
		{"../testdata/heap-dump.allocwork.jdk17.hprof", 3},
		{"../testdata/heap-sites.allocwork.jdk17.hprof", 3},
	} {
		data, err := os.ReadFile(c.path)
		if err != nil {
			t.Fatal(err)
		}
		_, recs := scanRecords(t, data)
		instEnds := instanceEnds(t, data)
		for range c.cuts {
			cut := 1 + rng.IntN(len(data)-1)
			what := fmt.Sprintf("%s cut at byte %d", c.path, cut)
			g := decodeDamaged(t, what, data[:cut])
			if g == nil {
				t.Fatalf("%s: no graph", what)
			}
			for _, r := range recs {
				if r.start < cut && cut < r.end {
					checkTruncated(t, what, g, cut, r.start)
				}
			}
			checkKept(t, what, g, countBefore(recs, cut))
			// Every INSTANCE DUMP that ends before the cut is counted,
			// and at most one more (the one whose header was read).
			var want int64
			for _, e := range instEnds {
				if e <= int64(cut) {
					want++
				}
			}
			if got := g.Source.Records[hprof.InstanceDump.String()]; got < want || got > want+1 {
				t.Fatalf("%s: %d instance dumps, %d were complete before the cut", what, got, want)
			}
		}
	}
}

// instanceEnds reads the whole file once with the record reader and
// returns the end offset of every INSTANCE DUMP sub-record.
func instanceEnds(t *testing.T, data []byte) []int64 {
	t.Helper()
	r, err := hprof.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var ends []int64
	for {
		rec, err := r.Next()
		if err != nil {
			return ends
		}
		if rec.Tag != hprof.TagHeapDump && rec.Tag != hprof.TagHeapDumpSegment {
			continue
		}
		h := r.Heap()
		for {
			s, err := h.Next()
			if err != nil {
				break
			}
			if s.Tag != hprof.InstanceDump {
				continue
			}
			if _, err := h.Payload(); err != nil {
				break
			}
			ends = append(ends, r.Offset())
		}
	}
}

// flipFields lists byte positions worth damaging in record r: the tag,
// each length byte, and a few body bytes (IDs, counts, serials).
func flipFields(r rawRecord, rng *rand.Rand) []int {
	pos := []int{r.start, r.start + 5, r.start + 6, r.start + 7, r.start + 8}
	if body := r.end - r.start - 9; body > 0 {
		for range 3 {
			pos = append(pos, r.start+9+rng.IntN(body))
		}
		// The element count of a STACK TRACE, CPU SAMPLES or ALLOC
		// SITES record.
		switch hprof.Tag(r.tag) {
		case hprof.TagTrace:
			pos = append(pos, r.start+9+8)
		case hprof.TagCPUSamples:
			pos = append(pos, r.start+9+4)
		case hprof.TagAllocSites:
			pos = append(pos, r.start+9+30)
		}
	}
	return pos
}

func TestFlipBytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, c := range []struct {
		path    string
		prefix  int // bytes of the fixture used (0: all)
		records int // records damaged
	}{
		{"../testdata/cpu-samples.cpuwork.jdk17.hprof", 0, 40},
		{"../testdata/heap-sites.allocwork.jdk17.hprof", 0, 30},
		{"../testdata/heap-dump.allocwork.jdk17.hprof", 200 << 10, 20},
		{"../testdata/jdk17-zoo-jhsdb.hprof", 300 << 10, 10},
	} {
		full, err := os.ReadFile(c.path)
		if err != nil {
			t.Fatal(err)
		}
		data := full
		if c.prefix > 0 {
			data = full[:c.prefix]
		}
		header, recs := scanRecords(t, data)
		// The file header itself: magic, version, ID size.
		for _, p := range []int{0, 13, header - 12, header - 9} {
			flipOne(t, c.path, data, p, nil)
		}
		// Rare record kinds always, then records at random; heap
		// records get extra flips inside their sub-records.
		var picks []int
		for i, r := range recs {
			if tag := hprof.Tag(r.tag); tag != hprof.TagUTF8 && tag != hprof.TagLoadClass && tag != hprof.TagFrame && tag != hprof.TagTrace {
				picks = append(picks, i)
			}
		}
		for range c.records {
			picks = append(picks, rng.IntN(len(recs)))
		}
		for _, i := range picks[:min(len(picks), 2*c.records)] {
			r := recs[i]
			for _, p := range flipFields(r, rng) {
				flipOne(t, c.path, data, p, countBefore(recs, r.start))
			}
		}
	}
}

// flipOne decodes data with the byte at p changed; the records that end
// before the damaged one must all be kept.
func flipOne(t *testing.T, path string, data []byte, p int, kept map[string]int64) {
	t.Helper()
	old := data[p]
	data[p] ^= 0xFF
	defer func() { data[p] = old }()
	what := fmt.Sprintf("%s with byte %d flipped", path, p)
	g := decodeDamaged(t, what, data)
	if kept != nil {
		if g == nil {
			t.Fatalf("%s: no graph", what)
		}
		checkKept(t, what, g, kept)
	}
}
