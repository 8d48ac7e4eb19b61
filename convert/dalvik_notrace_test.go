package convert

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestDalvikNoTraceSerial: Dalvik writes stack serial 0xFFFFFFFF on the
// thread roots it has no trace for (LeakCanary's test dumps); that is
// "no trace", as 0 is, not a reference to a missing STACK TRACE.
func TestDalvikNoTraceSerial(t *testing.T) {
	f := androidFile().
		record(0x01, be(uint32(1), []byte("java.lang.Object"))).
		record(0x01, be(uint32(2), []byte("java.lang.Thread"))).
		record(0x02, be(uint32(1), uint32(100), uint32(0), uint32(1))).
		record(0x02, be(uint32(2), uint32(200), uint32(0), uint32(2))).
		record(0x1C, bytes.Join([][]byte{
			be(uint8(0x20), uint32(100), uint32(0), uint32(0), uint32(0), uint32(0), uint32(0), uint32(0), uint32(0), uint32(8), uint16(0), uint16(0), uint16(0)),
			be(uint8(0x20), uint32(200), uint32(0), uint32(100), uint32(0), uint32(0), uint32(0), uint32(0), uint32(0), uint32(8), uint16(0), uint16(0), uint16(0)),
			be(uint8(0x21), uint32(7), uint32(0), uint32(200), uint32(0)),
			be(uint8(0x08), uint32(7), uint32(1), uint32(0xFFFFFFFF)), // ROOT THREAD OBJECT, no trace
		}, nil)).
		record(0x2C, nil)
	g, err := Convert(context.Background(), bytes.NewReader(f.Bytes()), "dalvik", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if g.SoftTotal() != 0 {
		t.Errorf("soft failures %v", g.Soft)
	}
	if len(g.Threads) != 1 || g.Threads[0].Stack != 0 {
		t.Errorf("threads %+v", g.Threads)
	}
	// The real files, when the shared corpus is here.
	files, _ := filepath.Glob("../../shared/corpus/external/leakcanary-*.hprof")
	for _, path := range files {
		if _, err := os.Stat(path); err != nil {
			continue
		}
		g := mustConvert(t, path, Options{})
		if g.SoftTotal() != 0 {
			t.Errorf("%s: soft failures %v", filepath.Base(path), g.Soft)
		}
	}
}
