package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hprof2pprof/hprof2pprof/convert"
	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/hprof"
	"github.com/hprof2pprof/hprof2pprof/convert/retained"
)

// manifest reads FILE.manifest.tsv: per class and, after "# retained",
// per root kind, [objects, bytes].
func manifest(t *testing.T, path string) (classes, retained map[string][2]int64) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	classes, retained = map[string][2]int64{}, map[string][2]int64{}
	into := classes
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "# retained" {
			into = retained
		}
		if strings.HasPrefix(line, "#") {
			continue
		}
		cols := strings.Split(line, "\t")
		if len(cols) != 3 {
			t.Fatalf("manifest line %q: want 3 columns", line)
		}
		n, err1 := strconv.ParseInt(cols[1], 10, 64)
		b, err2 := strconv.ParseInt(cols[2], 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("manifest line %q", line)
		}
		into[cols[0]] = [2]int64{n, b}
	}
	return classes, retained
}

func generateFile(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out := filepath.Join(dir, "gen.hprof")
	var stderr bytes.Buffer
	if err := run(append(args, "-o", out), &stderr); err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	return out
}

// The converter's heap view and retained view of a generated dump
// against the generator's own accounts of what it wrote.
func TestConverterAgreesWithManifest(t *testing.T) {
	for name, extra := range map[string][]string{
		"plain":       nil,
		"gz":          {"-gz"},
		"unreachable": {"-unreachable", "0.6"},
	} {
		t.Run(name, func(t *testing.T) {
			args := append([]string{"-size", "3M", "-seed", "7", "-classes", "200"}, extra...)
			path := generateFile(t, t.TempDir(), args...)
			classes, retained := manifest(t, path+".manifest.tsv")
			g, err := convert.ConvertFile(context.Background(), path, convert.Options{Views: []string{graph.ViewHeap, graph.ViewRetained}})
			if err != nil {
				t.Fatal(err)
			}
			if n := g.SoftTotal(); n != 0 {
				t.Errorf("%d soft failures: %v", n, g.Soft)
			}
			if name == "unreachable" && classes["java.lang.Object"][0] < 100000 {
				t.Errorf("%d java.lang.Object instances: the unreachable ones are missing", classes["java.lang.Object"][0])
			}
			compare(t, "heap view class", heapByClass(t, g), classes)
			compare(t, "retained view root", retainedByRoot(t, g), retained)
		})
	}
}

func compare(t *testing.T, what string, got, want map[string][2]int64) {
	t.Helper()
	if len(want) < 9 {
		t.Fatalf("manifest has %d %ss", len(want), what)
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s %s: %d objects, %d bytes; the generator wrote %d, %d", what, k, got[k][0], got[k][1], w[0], w[1])
		}
	}
	for k, v := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s %s: %v, not in the manifest", what, k, v)
		}
	}
}

func heapByClass(t *testing.T, g *graph.Graph) map[string][2]int64 {
	v := g.View(graph.ViewHeap)
	if v == nil {
		t.Fatal("no heap view")
	}
	out := map[string][2]int64{}
	for _, s := range v.Samples {
		for _, l := range s.Labels {
			if l.Key == graph.LabelClass {
				x := out[l.Str]
				out[l.Str] = [2]int64{x[0] + s.Values[0], x[1] + s.Values[1]}
			}
		}
	}
	return out
}

// retainedByRoot sums the retained view's samples by their root frame:
// the cumulative values of the root kinds.
func retainedByRoot(t *testing.T, g *graph.Graph) map[string][2]int64 {
	v := g.View(graph.ViewRetained)
	if v == nil {
		t.Fatal("no retained view")
	}
	// The manifest names the ROOT sub-record kinds as the format does;
	// the view's root label as a Java user does.
	names := map[string]string{}
	for tag := range 256 {
		t := hprof.SubTag(tag)
		if t.IsRoot() {
			names[retained.Root{Kind: t}.Name()] = t.String()
		}
	}
	out := map[string][2]int64{}
	for _, s := range v.Samples {
		root := ""
		for _, l := range s.Labels {
			if l.Key == retained.LabelRoot {
				root = names[l.Str]
			}
		}
		x := out[root]
		out[root] = [2]int64{x[0] + s.Values[0], x[1] + s.Values[1]}
	}
	return out
}

func TestSameSeedSameBytes(t *testing.T) {
	a := generateFile(t, t.TempDir(), "-objects", "20000", "-seed", "3", "-gz")
	b := generateFile(t, t.TempDir(), "-objects", "20000", "-seed", "3", "-gz")
	c := generateFile(t, t.TempDir(), "-objects", "20000", "-seed", "4", "-gz")
	read := func(p string) []byte {
		x, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		m, err := os.ReadFile(p + ".manifest.tsv")
		if err != nil {
			t.Fatal(err)
		}
		return append(x, m...)
	}
	if !bytes.Equal(read(a), read(b)) {
		t.Error("seed 3 twice: different bytes")
	}
	if bytes.Equal(read(a), read(c)) {
		t.Error("seeds 3 and 4: the same bytes")
	}
	// -gz writes the same HPROF, in members of 1 MiB that say so
	plain := generateFile(t, t.TempDir(), "-objects", "20000", "-seed", "3")
	f, err := os.Open(a)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	if zr.Comment != "HPROF BLOCKSIZE=1048576" {
		t.Errorf("first member's comment %q", zr.Comment)
	}
	inflated, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(plain)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(inflated, want) || len(want) < 2*gzBlock {
		t.Errorf("-gz inflates to %d bytes, not the %d of the plain file", len(inflated), len(want))
	}
}

func TestFlags(t *testing.T) {
	for s, want := range map[string]int64{"1000": 1000, "3M": 3 << 20, "16G": 16 << 30, "1.5k": 1536, "2T": 2 << 40} {
		if got, err := parseSize(s); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"", "G", "-1", "0", "12Q", "1e400", "9e9T"} {
		if n, err := parseSize(s); err == nil {
			t.Errorf("parseSize(%q) = %d, want an error", s, n)
		}
	}
	for _, args := range [][]string{
		{"-size", "1M"}, // no -o
		{"-o", "x"},     // neither -size nor -objects
		{"-o", "x", "-size", "1M", "-objects", "10"},   // both
		{"-o", "x", "-size", "1M", "-classes", "0"},    // no generated class
		{"-o", "x", "-objects", "10", "-threads", "0"}, // no thread
	} {
		if err := run(args, &bytes.Buffer{}); err == nil {
			t.Errorf("%q: want an error", args)
		}
	}
}
