package convert

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/internal/jvmtest"
)

// TestCompactObjectHeaders: a JDK 25 heap dump taken with
// -XX:+UseCompactObjectHeaders (8-byte headers, array elements from
// byte 12) gets the JVM's own sizes, as its GC.class_histogram printed
// them just before the dump: the heap view says it found compact
// headers, and the classes whose objects the two agree on agree in
// bytes, but for the few the VM gives fields a dump leaves out.
// With the usual 12-byte header, 170 of them came out larger.
func TestCompactObjectHeaders(t *testing.T) {
	const dump = "../testdata/jdk25-compact-headers.hprof.gz"
	histo, err := os.ReadFile(dump + ".jcmd-histo.txt")
	if err != nil {
		t.Fatal(err)
	}
	g, err := ConvertFile(context.Background(), dump, Options{})
	if err != nil {
		t.Fatal(err)
	}
	v := g.View(graph.ViewHeap)
	if v == nil {
		t.Fatal("no heap view")
	}
	if !strings.Contains(strings.Join(v.Comments, "\n"), "object header 8 bytes, array header 12 (jdk.internal.misc.Unsafe.ARRAY_BYTE_BASE_OFFSET = 12)") ||
		!strings.Contains(strings.Join(v.Comments, "\n"), "compact object headers yes") {
		t.Errorf("the size model does not say compact headers: %v", v.Comments)
	}
	got := heapHistogram(t, g)
	want := jvmtest.HistogramSizes(string(histo))
	// Known gap: int[] includes the GC's fillers of dead space, which
	// the histogram counts as jdk.internal.vm.FillerElement[] of other
	// sizes. (The fields the JVM injects are in the model.)
	known := map[string]bool{"int[]": true}
	same, compared := 0, 0
	for c, w := range want {
		if got[c][0] != w[0] {
			continue
		}
		compared++
		switch {
		case got[c][1] == w[1]:
			same++
		case !known[c]:
			t.Errorf("%s: %d objects, %d bytes; the JVM says %d bytes", c, w[0], got[c][1], w[1])
		}
	}
	if compared < 300 {
		t.Errorf("only %d of %d classes have the JVM's object counts", compared, len(want))
	}
	for _, c := range []string{"byte[]", "java.lang.Object[]", "java.util.HashMap$Node", "java.lang.Long", "LiveHeap$Item", "LiveHeap$Item[]"} {
		if got[c] != want[c] {
			t.Errorf("%s: %d objects %d bytes, the JVM says %d objects %d bytes", c, got[c][0], got[c][1], want[c][0], want[c][1])
		}
	}
	t.Logf("%d of %d classes compared, %d equal in bytes", compared, len(want), same)
}
