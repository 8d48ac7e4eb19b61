package convert

import (
	"context"
	"path/filepath"
	"testing"
)

// TestThirdPartySweep converts every binary heap dump with an oracle in
// the shared third-party corpus (files from other projects' test data:
// Android, JDK 5-11, 32-bit, the legacy agent), when it is present.
func TestThirdPartySweep(t *testing.T) {
	dumps := oracleDirs(t, "../../shared/corpus/thirdparty")
	if len(dumps) == 0 {
		t.Skip("../shared/corpus/thirdparty not present")
	}
	for _, dump := range dumps {
		t.Run(filepath.Base(dump), func(t *testing.T) {
			if testing.Short() && filepath.Base(dump) == "mat-java_pid1884.0001.hprof.gz" {
				t.Skip("522 MB unpacked")
			}
			g, err := ConvertFile(context.Background(), dump, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if g.Damage != nil {
				t.Fatalf("damage: %v", g.Damage)
			}
			compareHistograms(t, heapHistogram(t, g), oracleHistogram(t, dump+".oracle"))
		})
	}
}
