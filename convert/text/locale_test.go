package text

import (
	"bytes"
	"regexp"
	"slices"
	"testing"
)

// TestCommaLocaleAndUTF8: a JVM in a comma-decimal locale prints
// percentages as `16,71%` (the agent formats with the C library's printf),
// and identifiers may be any UTF-8. Such a report converts to the same
// totals as the dot-decimal original, and the non-ASCII names survive.
func TestCommaLocaleAndUTF8(t *testing.T) {
	for _, name := range []string{"cpu-times.cpuwork.jdk17.txt", "cpu-samples.cpuwork.jdk17.txt"} {
		t.Run(name, func(t *testing.T) {
			orig := mustRead(t, testdataDir+"/"+name)
			pct := regexp.MustCompile(`(\d+)\.(\d\d%)`)
			data := pct.ReplaceAll(orig, []byte("$1,$2"))
			if bytes.Equal(data, orig) {
				t.Fatal("no percentages rewritten")
			}
			data = bytes.ReplaceAll(data, []byte("java.lang.Thread"), []byte("java.lang.Fädenöß€"))
			want, err := Parse(bytes.NewReader(orig), Options{})
			if err != nil {
				t.Fatal(err)
			}
			got, err := Parse(bytes.NewReader(data), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got.Damage != nil || got.SoftTotal() != 0 {
				t.Fatalf("damage %v, soft %v", got.Damage, got.Soft)
			}
			for _, wv := range want.Views {
				gv := got.View(wv.Name)
				if gv == nil {
					t.Fatalf("no %s view", wv.Name)
				}
				if a, b := gv.Totals(), wv.Totals(); !slices.Equal(a, b) {
					t.Errorf("%s totals %v, original %v", wv.Name, a, b)
				}
			}
			found := false
			for _, f := range got.Frames {
				if f.Class == "java.lang.Fädenöß€" {
					found = true
				}
			}
			if !found {
				t.Error("UTF-8 class name lost")
			}
		})
	}
}
