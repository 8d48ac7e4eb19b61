package convert

import (
	"path/filepath"
	"testing"
)

// thirdParty is the shared corpus of files other projects wrote (Android,
// JDK 5-11, 32-bit, the legacy agent), present beside the repository on
// development machines only.
const thirdParty = "../../shared/corpus/thirdparty"

// TestThirdPartySweep converts every binary heap dump with an oracle in
// the third-party corpus and compares the heap view with the oracle per
// class: counts and bytes.
func TestThirdPartySweep(t *testing.T) {
	dumps := oracleDirs(t, thirdParty)
	if len(dumps) == 0 {
		t.Skip(thirdParty + " not present")
	}
	for _, dump := range dumps {
		t.Run(filepath.Base(dump), func(t *testing.T) {
			if testing.Short() && filepath.Base(dump) == "mat-java_pid1884.0001.hprof.gz" {
				t.Skip("522 MB unpacked")
			}
			g := convertForOracle(t, dump)
			compareHistograms(t, heapHistogram(t, g), oracleHistogram(t, dump+".oracle"))
		})
		t.Run(filepath.Base(dump)+"/threads", func(t *testing.T) {
			if testing.Short() && filepath.Base(dump) == "mat-java_pid1884.0001.hprof.gz" {
				t.Skip("522 MB unpacked")
			}
			compareThreads(t, dump)
		})
	}
}
