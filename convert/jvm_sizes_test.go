package convert

import (
	"cmp"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/internal/testhooks"
	"github.com/hprof2pprof/hprof2pprof/internal/jvmtest"
)

// The heap view against the JVM's own GC.class_histogram, taken right
// after each dump: the ground truth for sizes, where VisualVM (the
// oracle) differs from JDK 15 on. The fixtures cover 12-byte headers
// with 8-byte references (ZGC), compact headers, and the shared corpus
// when present adds compressed oops, -XX:-UseCompressedOops, Parallel
// and -all dumps of JDK 17 and 25 (HPROF_JVM_DUMPS names more dumps, each
// beside its FILE.jcmd-histo.txt).
func jvmHistogramDumps(t *testing.T) []string {
	dumps := []string{
		"../testdata/jdk17-zgc.hprof.gz",
		"../testdata/jdk25-zgc.hprof.gz",
		"../testdata/jdk25-compact-headers.hprof.gz",
	}
	histos, _ := filepath.Glob("../../shared/corpus/heapdump/*.jcmd-histo.txt")
	for _, h := range histos {
		// jhsdb's histogram is not of the dump's moment (the agent
		// detaches between the two).
		if d := strings.TrimSuffix(h, ".jcmd-histo.txt"); !strings.Contains(d, "jhsdb") {
			dumps = append(dumps, d)
		}
	}
	return append(dumps, strings.Fields(os.Getenv("HPROF_JVM_DUMPS"))...)
}

// hiddenSuffix is what a hidden class's name carries that changes with
// every run: HPROF writes Foo$$Lambda+0x…, the JVM Foo$$Lambda/0x….
var hiddenSuffix = regexp.MustCompile(`(\$\$[A-Za-z]+)(\$\d+)?[./+]0x[0-9a-f]+`)

func byStableName(h map[string][2]int64) map[string][2]int64 {
	out := map[string][2]int64{}
	for k, v := range h {
		k = hiddenSuffix.ReplaceAllString(k, "$1")
		o := out[k]
		out[k] = [2]int64{o[0] + v[0], o[1] + v[1]}
	}
	return out
}

func TestSizesMatchTheJVM(t *testing.T) {
	for _, dump := range jvmHistogramDumps(t) {
		t.Run(filepath.Base(dump), func(t *testing.T) {
			histo, err := os.ReadFile(dump + ".jcmd-histo.txt")
			if err != nil {
				t.Fatal(err)
			}
			g, err := ConvertFile(context.Background(), dump, Options{Views: []string{graph.ViewHeap}})
			if err != nil {
				t.Fatal(err)
			}
			got := byStableName(heapHistogram(t, g))
			want := byStableName(jvmtest.HistogramSizes(string(histo)))
			compareWithJVM(t, got, want, 300)
		})
	}
}

// compareWithJVM: of the classes whose instance counts agree (at least
// minClasses), at least 99% have exactly the JVM's bytes; the total is
// within 1% of the JVM's.
func compareWithJVM(t *testing.T, got, want map[string][2]int64, minClasses int) {
	t.Helper()
	var gotTotal, wantTotal int64
	for _, v := range got {
		gotTotal += v[1]
	}
	same, compared := 0, 0
	for c, w := range want {
		wantTotal += w[1]
		if got[c][0] != w[0] {
			continue
		}
		compared++
		if got[c][1] == w[1] {
			same++
		} else {
			t.Logf("%s: %d objects, %d bytes; the JVM says %d", c, w[0], got[c][1], w[1])
		}
	}
	if compared < minClasses || same*100 < compared*99 {
		t.Errorf("%d of %d classes with the JVM's counts have its bytes", same, compared)
	}
	// With class data sharing, the JVM's heap holds a mirror for every
	// class in the archive, loaded or not; a heap dump has the loaded
	// classes only, so the JVM counts more java.lang.Class objects than
	// any dump shows. Those are set aside: every other byte must agree.
	if g, w := got["java.lang.Class"], want["java.lang.Class"]; g[0] < w[0] {
		wantTotal -= w[1] - g[1]
		t.Logf("java.lang.Class: %d in the dump, %d in the JVM's heap (class data sharing)", g[0], w[0])
	}
	if d := gotTotal - wantTotal; d*100 > wantTotal || -d*100 > wantTotal {
		t.Errorf("total %d bytes, the JVM's %d (%.2f%%)", gotTotal, wantTotal, 100*float64(d)/float64(wantTotal))
	}
	t.Logf("%d of %d classes have the JVM's bytes; total %d, the JVM's %d", same, compared, gotTotal, wantTotal)
}

// TestOneSizeEverywhere: an object has one size in every output. Per
// class, the heap tables' shallow sizes sum to the heap view's bytes, and
// the retained view's reachable and unreachable bytes sum to the heap
// view's total, in the JVM's model (class mirrors, injected fields).
func TestOneSizeEverywhere(t *testing.T) {
	for _, dump := range []string{"../testdata/jdk25-zgc.hprof.gz", "../testdata/jdk17-zoo-live.hprof"} {
		t.Run(filepath.Base(dump), func(t *testing.T) {
			probe := &testhooks.Retained{}
			ctx := testhooks.With(context.Background(), testhooks.Hooks{Retained: probe})
			d, err := DecodeFile(ctx, dump, Options{Views: []string{graph.ViewHeap, graph.ViewRetained}, Rows: true})
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			rows := map[string][2]int64{}
			err = d.Rows(context.Background(), &graph.ObjectSink{Object: func(o *graph.Object) error {
				if o.HasShallow {
					// By exact name, as heapHistogram gives the heap view.
					c := cmp.Or(o.RawClass, o.Class)
					r := rows[c]
					rows[c] = [2]int64{r[0] + 1, r[1] + o.Shallow}
				}
				return nil
			}})
			if err != nil {
				t.Fatal(err)
			}
			g := d.Graph()
			heap := heapHistogram(t, g)
			var total int64
			for c, h := range heap {
				total += h[1]
				if rows[c] != h {
					t.Errorf("%s: heap view %d objects %d bytes, heap tables %d objects %d bytes", c, h[0], h[1], rows[c][0], rows[c][1])
				}
			}
			for c, r := range rows {
				if _, ok := heap[c]; !ok {
					t.Errorf("%s: %d objects in the heap tables only", c, r[0])
				}
			}
			if probe.Result == nil {
				t.Fatal("no retained analysis")
			}
			st := probe.Result.Stats
			if st.ReachableBytes+st.UnreachableBytes != total {
				t.Errorf("retained view: reachable %d + unreachable %d bytes, heap view %d", st.ReachableBytes, st.UnreachableBytes, total)
			}
		})
	}
}
