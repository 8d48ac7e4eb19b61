package convert

import (
	"context"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/internal/jvmtest"
)

// TestSizesMatchLiveJVMs runs a JVM of every object layout a user can
// have, asks it for its class histogram and a heap dump, and holds the
// heap view against the histogram (compareWithJVM): compressed oops,
// none (the layout of every heap of 32 GB or more), ZGC, Parallel and
// Serial GC, uncompressed class pointers, and on JDK 25 compact object
// headers with and without compressed oops. JDK 25 is used where
// installed; JDK 17 always is under CI.
func TestSizesMatchLiveJVMs(t *testing.T) {
	if testing.Short() {
		t.Skip("starts JVMs")
	}
	layouts := map[int][][]string{
		17: {{}, {"-XX:-UseCompressedOops"}, {"-XX:+UseZGC"}, {"-XX:+UseParallelGC"}, {"-XX:+UseSerialGC"}, {"-XX:-UseCompressedClassPointers"}},
		25: {{}, {"-XX:-UseCompressedOops"}, {"-XX:+UseZGC"}, {"-XX:+UseSerialGC"}, {"-XX:+UseCompactObjectHeaders"},
			{"-XX:+UseCompactObjectHeaders", "-XX:-UseCompressedOops"}},
	}
	for _, major := range []int{17, 25} {
		t.Run("jdk"+strconv.Itoa(major), func(t *testing.T) {
			home := jvmtest.Home(t, major)
			for _, flags := range layouts[major] {
				name := strings.Join(flags, " ")
				if name == "" {
					name = "default"
				}
				t.Run(name, func(t *testing.T) { liveSizes(t, home, flags) })
			}
		})
	}
}

// liveSizes takes one JVM's histogram and heap dump, and compares.
func liveSizes(t *testing.T, home string, flags []string) {
	j := jvmtest.Start(t, jvmtest.Spec{Home: home, JVMArgs: append([]string{"-Xmx128m"}, flags...), Args: []string{"park", "2000"}})
	jcmd := filepath.Join(home, "bin", "jcmd")
	pid := strconv.Itoa(j.PID)
	dump := filepath.Join(t.TempDir(), "live.hprof")
	// The dump first: GC.heap_dump collects the garbage, so the
	// histogram right after it sees the same objects.
	if out, err := exec.Command(jcmd, pid, "GC.heap_dump", dump).CombinedOutput(); err != nil {
		t.Fatalf("jcmd GC.heap_dump: %v: %s", err, out)
	}
	histo, err := exec.Command(jcmd, pid, "GC.class_histogram").CombinedOutput()
	if err != nil {
		t.Fatalf("jcmd GC.class_histogram: %v: %s", err, histo)
	}
	g, err := ConvertFile(context.Background(), dump, Options{Views: []string{graph.ViewHeap}})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(g.View(graph.ViewHeap).Comments[1])
	compareWithJVM(t, byStableName(heapHistogram(t, g)), byStableName(jvmtest.HistogramSizes(string(histo))), 250)
}
