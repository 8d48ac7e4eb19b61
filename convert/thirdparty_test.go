package convert

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
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

// TestWritersAndQuirks: `info` names each file's writer and quirks as the
// corpus README describes the file.
func TestWritersAndQuirks(t *testing.T) {
	cases := []struct {
		file   string
		writer string
		notes  []string
	}{
		{"../testdata/ahat-test-dump.hprof.gz", "Android ART", []string{"Android heaps: app (24793 objects)", "java.lang.Object: 8 bytes"}},
		{"../testdata/mat-sun_jdk6_31_hprofagent_compressedOops.hprof.gz", "hprof agent", []string{"1 UNLOAD CLASS", "2 heap dumps"}},
		{"../testdata/mat-oracle_jdk7_21_hprofagent.hprof.gz", "hprof agent", []string{"2 heap dumps"}},
		{thirdParty + "/perflib-dialer.android-hprof", "Android Dalvik", []string{"Android heaps: zygote", ", app ("}},
		{thirdParty + "/mat-sun_jdk5_13_x32.hprof", "JDK 5 to 8", nil},
		{thirdParty + "/mat-openjdk_jdk11_04_x64.hprof.gz", "HotSpot heap dumper", []string{"defined by more than one class loader"}},
		{thirdParty + "/ahat-RI.hprof", "hprof agent", nil},
		{thirdParty + "/netbeans-heap_dump.bin", "JDK 5 to 8", []string{"LOAD CLASS records repeat a class"}},
	}
	for _, c := range cases {
		t.Run(filepath.Base(c.file), func(t *testing.T) {
			if _, err := os.Stat(c.file); err != nil {
				t.Skip(err)
			}
			g := mustConvert(t, c.file, Options{})
			if !strings.Contains(g.Source.Writer, c.writer) {
				t.Errorf("writer %q, want %q", g.Source.Writer, c.writer)
			}
			all := strings.Join(g.Source.Notes, "\n")
			for _, n := range c.notes {
				if !strings.Contains(all, n) {
					t.Errorf("notes lack %q:\n%s", n, all)
				}
			}
		})
	}
}

// TestStreamingBigArray: the 522 MB dump that is one byte[] of 521,141,248
// elements converts while allocating a small fraction of its size (the
// array is skipped, never buffered).
func TestStreamingBigArray(t *testing.T) {
	path := thirdParty + "/mat-java_pid1884.0001.hprof.gz"
	if _, err := os.Stat(path); err != nil || testing.Short() {
		t.Skip("not present, or -short")
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	g := mustConvert(t, path, Options{Views: []string{"heap"}})
	runtime.ReadMemStats(&after)
	if g.Source.Bytes < 500_000_000 {
		t.Fatalf("read %d bytes", g.Source.Bytes)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
		t.Errorf("allocated %d MiB converting a %d MiB dump", alloc>>20, g.Source.Bytes>>20)
	} else {
		t.Logf("allocated %d MiB converting a %d MiB dump", alloc>>20, g.Source.Bytes>>20)
	}
}
