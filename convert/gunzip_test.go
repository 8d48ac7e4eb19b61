package convert

import (
	"os"
	"path/filepath"
	"testing"
)

const jdkGz = "../testdata/jdk25-zoo-live.hprof.gz"

// TestGzipTruncatedIsPartial: the converter reports a cut JDK -gz file
// as partial input (source's tests check what the inflater gives).
func TestGzipTruncatedIsPartial(t *testing.T) {
	b, err := os.ReadFile(jdkGz)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{len(b) / 3, len(b) - 20, len(b) - 1} {
		p := filepath.Join(t.TempDir(), "cut.hprof.gz")
		os.WriteFile(p, b[:n], 0o644)
		g := mustConvert(t, p, Options{})
		if g.Damage == nil {
			t.Errorf("cut at %d: no damage reported", n)
		}
	}
}

func TestGzipHeapMatchesOracleBothWays(t *testing.T) {
	want := oracleHistogram(t, jdkGz+".oracle")
	// The oracle's size model (convertForOracle says why).
	compareHistograms(t, heapHistogram(t, mustConvert(t, jdkGz, Options{VisualVMSizes: true})), want)
	f, err := os.Open(jdkGz)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	g, err := Convert(t.Context(), f, "stream", Options{VisualVMSizes: true}) // no file: sequential inflate
	if err != nil {
		t.Fatal(err)
	}
	compareHistograms(t, heapHistogram(t, g), want)
}
