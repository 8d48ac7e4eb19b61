package convert

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/hprof"
)

// streamAll feeds a whole recording through a Stream and returns its
// windows, the final flush included, and the error that ended it.
func streamAll(t *testing.T, data []byte, opts StreamOptions) ([]*Window, error) {
	t.Helper()
	s, err := NewStream(bytes.NewReader(data), opts)
	if err != nil {
		t.Fatal(err)
	}
	var ws []*Window
	for {
		w, err := s.Next()
		if w != nil {
			ws = append(ws, w)
		}
		if err != nil {
			if w := s.Flush(); w != nil {
				ws = append(ws, w)
			}
			if err == io.EOF {
				return ws, nil
			}
			return ws, err
		}
	}
}

func total(t *testing.T, w *Window, view, typ string) int64 {
	t.Helper()
	v := w.Graph.View(view)
	if v == nil {
		t.Fatalf("window %d has no %s view", w.Seq, view)
	}
	return v.Totals()[v.Index(typ)]
}

// The recorded session answered CPU SAMPLES (454), CPU SAMPLES after a
// clear (349), ALLOC SITES (1698 sites), then the exit dump: ALLOC SITES
// (3 sites) and CPU SAMPLES (968). Those are the corpus README's numbers.
func TestStreamWindowsFromRecordedAnswers(t *testing.T) {
	data, err := os.ReadFile("../testdata/net-commands.cpuwork.jdk17.hprof.raw")
	if err != nil {
		t.Fatal(err)
	}
	ws, err := streamAll(t, data, StreamOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ws) != 3 {
		t.Fatalf("%d windows, want 3", len(ws))
	}
	// The first answer's total field says 454 but its traces sum to 460
	// (the agent counts while it writes): the window holds the traces'
	// counts and the comment the record's total, like a file conversion.
	want := []struct {
		off   int64
		total int
		alloc bool
		soft  int64
	}{{73998, 454, false, 1}, {74578, 349, true, 0}, {268071, 968, true, 0}}
	for i, w := range ws {
		rec := cpuSamplesAt(t, data, want[i].off)
		if int(rec.Total) != want[i].total {
			t.Fatalf("CPU SAMPLES at %d: total %d, want %d", want[i].off, rec.Total, want[i].total)
		}
		var sum int64
		for _, tr := range rec.Traces {
			sum += int64(tr.Count)
		}
		if got := total(t, w, graph.ViewCPU, "samples"); got != sum {
			t.Errorf("window %d: %d CPU samples, want %d", i+1, got, sum)
		}
		if c := fmt.Sprintf("total %d samples", rec.Total); !slices.ContainsFunc(w.Graph.View(graph.ViewCPU).Comments, func(s string) bool { return strings.Contains(s, c) }) {
			t.Errorf("window %d: no comment %q", i+1, c)
		}
		if (w.Graph.View(graph.ViewAlloc) != nil) != want[i].alloc {
			t.Errorf("window %d: alloc view present = %v", i+1, !want[i].alloc)
		}
		if w.Graph.SoftTotal() != want[i].soft {
			t.Errorf("window %d: soft failures %v", i+1, w.Graph.Soft)
		}
		if !w.End.After(w.Start) || (i > 0 && !w.Start.Equal(ws[i-1].End)) {
			t.Errorf("window %d: %v..%v does not follow the previous one", i+1, w.Start, w.End)
		}
		if w.Graph.View(graph.ViewThreads) == nil {
			t.Errorf("window %d: no threads view", i+1)
		}
	}

	// The 1698-site answer, read on its own by the reader, is the
	// independent answer for the first alloc window: everything since
	// the JVM started.
	sites := allocSitesAt(t, data, 182132)
	if len(sites.Sites) != 1698 {
		t.Fatalf("ALLOC SITES at 182132 has %d sites, want 1698", len(sites.Sites))
	}
	var objs, bytesAlloc, live int64
	for _, s := range sites.Sites {
		objs += int64(s.AllocObjects)
		bytesAlloc += int64(s.AllocBytes)
		live += int64(s.LiveBytes)
	}
	if got := total(t, ws[1], graph.ViewAlloc, "alloc_objects"); got != objs {
		t.Errorf("window 2 alloc_objects %d, want %d", got, objs)
	}
	if got := total(t, ws[1], graph.ViewAlloc, "alloc_space"); got != bytesAlloc {
		t.Errorf("window 2 alloc_space %d, want %d", got, bytesAlloc)
	}
	if got := total(t, ws[1], graph.ViewAlloc, "inuse_space"); got != live {
		t.Errorf("window 2 inuse_space %d, want %d", got, live)
	}

	// The exit answer lists 3 sites: its window holds their growth since
	// the 1698-site answer, and their live values.
	last := allocSitesAt(t, data, 267953)
	if len(last.Sites) != 3 {
		t.Fatalf("exit ALLOC SITES has %d sites, want 3", len(last.Sites))
	}
	var grow, liveNow int64
	for _, s := range last.Sites {
		liveNow += int64(s.LiveBytes)
		grow += int64(s.AllocBytes)
		for _, p := range sites.Sites {
			if p.ArrayType == s.ArrayType && p.ClassSerial == s.ClassSerial && p.TraceSerial == s.TraceSerial {
				grow -= int64(p.AllocBytes)
			}
		}
	}
	if got := total(t, ws[2], graph.ViewAlloc, "alloc_space"); got != grow {
		t.Errorf("window 3 alloc_space %d, want the growth %d", got, grow)
	}
	if got := total(t, ws[2], graph.ViewAlloc, "inuse_space"); got != liveNow {
		t.Errorf("window 3 inuse_space %d, want %d", got, liveNow)
	}
}

// cpuSamplesAt decodes the CPU SAMPLES record at byte off with the record
// reader alone.
func cpuSamplesAt(t *testing.T, data []byte, off int64) hprof.CPUSamples {
	t.Helper()
	r, body := recordAt(t, data, off)
	v, err := r.DecodeCPUSamples(hprof.Record{Tag: hprof.TagCPUSamples, Offset: off, Length: uint32(len(body))}, body)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func recordAt(t *testing.T, data []byte, off int64) (*hprof.Reader, []byte) {
	t.Helper()
	r, err := hprof.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	for {
		rec, err := r.Next()
		if err != nil {
			t.Fatalf("no record at byte %d: %v", off, err)
		}
		if rec.Offset == off {
			body, err := r.Body()
			if err != nil {
				t.Fatal(err)
			}
			return r, body
		}
	}
}

// allocSitesAt decodes the ALLOC SITES record at byte off with the
// record reader alone.
func allocSitesAt(t *testing.T, data []byte, off int64) hprof.AllocSites {
	t.Helper()
	r, err := hprof.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	for {
		rec, err := r.Next()
		if err != nil {
			t.Fatalf("no ALLOC SITES at byte %d: %v", off, err)
		}
		if rec.Offset != off {
			continue
		}
		body, err := r.Body()
		if err != nil {
			t.Fatal(err)
		}
		v, err := r.DecodeAllocSites(rec, body)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

// A plain net= session (no commands): the exit dump is one window, with
// the file's own CPU total.
func TestStreamPlainSession(t *testing.T) {
	data, err := os.ReadFile("../testdata/net-heap-sites-cpu-samples.allocwork.jdk17.hprof.raw")
	if err != nil {
		t.Fatal(err)
	}
	ws, err := streamAll(t, data, StreamOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ws) != 1 || !ws[0].CPU || !ws[0].Alloc {
		t.Fatalf("%d windows, want one with CPU and alloc", len(ws))
	}
	if got := total(t, ws[0], graph.ViewCPU, "samples"); got != 105 {
		t.Errorf("%d CPU samples, want 105", got)
	}
	// The same bytes as a file give the same alloc view: the first
	// window's deltas are everything since start.
	g, err := Convert(t.Context(), bytes.NewReader(data), "raw", Options{})
	if err != nil {
		t.Fatal(err)
	}
	fv := g.View(graph.ViewAlloc)
	for i, typ := range fv.SampleTypes {
		if got, want := total(t, ws[0], graph.ViewAlloc, typ.Type), fv.Totals()[i]; got != want {
			t.Errorf("%s: window %d, file %d", typ.Type, got, want)
		}
	}
}

// Cut anywhere inside a record: the stream says truncated, and the
// answers that arrived before the cut still make their windows.
func TestStreamCutMidRecord(t *testing.T) {
	data, err := os.ReadFile("../testdata/net-commands.cpuwork.jdk17.hprof.raw")
	if err != nil {
		t.Fatal(err)
	}
	ws, err := streamAll(t, data[:100000], StreamOptions{}) // inside the frames before the 1698-site answer
	if !errors.Is(err, hprof.ErrTruncated) {
		t.Fatalf("error %v, want truncated", err)
	}
	if len(ws) != 2 || total(t, ws[0], graph.ViewCPU, "samples") != 460 || total(t, ws[1], graph.ViewCPU, "samples") != 349 {
		t.Fatalf("want the windows of the two CPU answers before the cut (460 and 349 samples), got %d windows", len(ws))
	}
}

func TestStreamLimits(t *testing.T) {
	data, err := os.ReadFile("../testdata/net-commands.cpuwork.jdk17.hprof.raw")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := streamAll(t, data, StreamOptions{MaxRecord: 1000}); !errors.Is(err, ErrLimit) {
		t.Errorf("MaxRecord 1000: %v, want ErrLimit", err)
	}
	if _, err := streamAll(t, data, StreamOptions{MaxState: 10000}); !errors.Is(err, ErrLimit) {
		t.Errorf("MaxState 10000: %v, want ErrLimit", err)
	}
	// A record claiming a 4 GiB body is refused before any of it is read.
	hostile := append(append([]byte(nil), data[:46]...), 0x01, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff)
	if _, err := streamAll(t, hostile, StreamOptions{}); !errors.Is(err, ErrLimit) {
		t.Errorf("4 GiB record: %v, want ErrLimit", err)
	}
}
