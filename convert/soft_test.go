package convert

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/hprof"
	"github.com/hprof2pprof/hprof2pprof/pprofout"
)

// Inconsistent but real input: files that break the format's promises
// in ways writers do. Each must decode completely, count the problem in
// Graph.Soft (which `info` prints), and still give valid views.

// Record bodies for synthetic files (ID size 8).
func utf8Rec(id uint64, s string) []byte { return be(id, []byte(s)) }
func loadClass(serial uint32, obj, name uint64) []byte {
	return be(serial, obj, uint32(0), name)
}
func frameRec(id, method uint64, classSerial uint32) []byte {
	return be(id, method, uint64(0), uint64(0), classSerial, int32(10))
}
func traceRec(serial, thread uint32, frames ...uint64) []byte {
	return be(serial, thread, uint32(len(frames)), frames)
}
func cpuSamples(trace uint32, n uint32) []byte { return be(n, uint32(1), n, trace) }
func startThread(serial uint32, obj uint64) []byte {
	return be(serial, obj, uint32(0), uint64(0), uint64(0), uint64(0))
}
func classDumpSub(id uint64) []byte {
	return be(uint8(0x20), id, uint32(0), uint64(0), uint64(0), uint64(0), uint64(0), uint64(0), uint64(0), uint32(0), uint16(0), uint16(0), uint16(0))
}
func instanceSub(id, class uint64) []byte { return be(uint8(0x21), id, uint32(0), class, uint32(0)) }
func threadRootSub(obj uint64, serial uint32) []byte {
	return be(uint8(0x08), obj, serial, uint32(0))
}

// base is a consistent start: a class Foo (serial 1, object 100) with a
// method run (frame 1) and a trace 1 of that frame.
func base() *hprofFile {
	return newHprofFile().
		record(0x01, utf8Rec(1, "Foo")).
		record(0x01, utf8Rec(2, "run")).
		record(0x02, loadClass(1, 100, 1)).
		record(0x04, frameRec(1, 2, 1)).
		record(0x05, traceRec(1, 0, 1))
}

func TestSoftFailures(t *testing.T) {
	for _, c := range []struct {
		name string
		file *hprofFile
		soft map[string]int64
	}{
		{"consistent", base().record(0x0D, cpuSamples(1, 3)), map[string]int64{}},
		{"trace names missing frame", base().record(0x05, traceRec(2, 0, 1, 99)).record(0x0D, cpuSamples(2, 3)),
			map[string]int64{"trace names missing frame": 1}},
		{"frame names missing class", base().record(0x04, frameRec(5, 2, 42)).record(0x05, traceRec(2, 0, 5)).record(0x0D, cpuSamples(2, 1)),
			map[string]int64{"frame names missing class": 1}},
		{"site names missing class", base().record(0x06, be(uint16(0), uint32(0), uint32(8), uint32(1), uint64(8), uint64(1), uint32(1),
			uint8(0), uint32(42), uint32(1), uint32(8), uint32(1), uint32(8), uint32(1))),
			map[string]int64{"site names missing class": 1}},
		{"objects name missing class", base().record(0x1C, append(classDumpSub(100), append(instanceSub(1, 100), append(instanceSub(2, 555), instanceSub(3, 555)...)...)...)).record(0x2C, nil),
			map[string]int64{"objects of a class with no CLASS DUMP (not counted)": 2}},
		{"duplicate string", base().record(0x01, utf8Rec(2, "run")), map[string]int64{"duplicate string ID": 1}},
		// HotSpot writes a second LOAD CLASS for array classes: a habit
		// (counted in info's notes), not a soft failure.
		{"repeated LOAD CLASS", base().record(0x02, loadClass(2, 100, 1)), map[string]int64{}},
		{"class ID under two names", base().record(0x02, loadClass(2, 100, 2)), map[string]int64{"class ID loaded under two names": 1}},
		{"duplicate STACK FRAME", base().record(0x04, frameRec(1, 2, 1)), map[string]int64{"duplicate STACK FRAME ID": 1}},
		{"duplicate STACK TRACE", base().record(0x05, traceRec(1, 0, 1)), map[string]int64{"duplicate STACK TRACE serial": 1}},
		{"duplicate CLASS DUMP", base().record(0x1C, append(classDumpSub(100), classDumpSub(100)...)).record(0x2C, nil),
			map[string]int64{"duplicate CLASS DUMP": 1}},
		{"zero-length segment", base().record(0x1C, classDumpSub(100)).record(0x1C, nil).record(0x2C, nil),
			map[string]int64{"zero-length heap dump segment": 1}},
		// jhsdb and old JDKs write one HEAP DUMP record and no END: normal.
		{"HEAP DUMP record without END", base().record(0x0C, append(classDumpSub(100), instanceSub(1, 100)...)), map[string]int64{}},
		{"thread serial reused while running", base().record(0x0A, startThread(1, 500)).record(0x0A, startThread(1, 501)),
			map[string]int64{"START THREAD reuses the serial of a running thread": 1}},
		{"thread serial reused after END THREAD", base().record(0x0A, startThread(1, 500)).record(0x0B, be(uint32(1))).record(0x0A, startThread(1, 501)),
			map[string]int64{}},
		{"END THREAD of unknown thread", base().record(0x0B, be(uint32(7))), map[string]int64{"END THREAD names unknown thread": 1}},
		{"two thread objects share a serial", base().record(0x1C, append(threadRootSub(500, 1), append(threadRootSub(501, 1), threadRootSub(500, 1)...)...)).record(0x2C, nil),
			map[string]int64{"thread serial shared by two thread objects": 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			g, err := Convert(context.Background(), bytes.NewReader(c.file.Bytes()), c.name, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if g.Damage != nil {
				t.Fatalf("damage %v: an inconsistency is not damage", g.Damage)
			}
			for k, n := range c.soft {
				if g.Soft.Texts()[k] != n {
					t.Errorf("Soft[%q] = %d, want %d (all: %v)", k, g.Soft.Texts()[k], n, g.Soft.Texts())
				}
			}
			if len(c.soft) == 0 && len(g.Soft) != 0 {
				t.Errorf("soft failures in a consistent file: %v", g.Soft)
			}
			for _, v := range g.Views {
				if _, err := pprofout.Profile(g, v.Name); err != nil {
					t.Errorf("view %s: %v", v.Name, err)
				}
			}
		})
	}
}

// A dump without HEAP DUMP END is used, and reported as damage: the
// writer may have stopped between two segments.
func TestDumpWithoutEndIsUsed(t *testing.T) {
	f := base().record(0x1C, append(classDumpSub(100), append(instanceSub(1, 100), instanceSub(2, 100)...)...))
	g, err := Convert(context.Background(), bytes.NewReader(f.Bytes()), "noend", Options{})
	if err != nil {
		t.Fatal(err)
	}
	v := g.View(graph.ViewHeap)
	if v == nil || v.Totals()[0] != 2 {
		t.Fatalf("heap view %v, want the 2 objects", v)
	}
	if !errors.Is(g.Damage, hprof.ErrTruncated) || g.Lost == "" {
		t.Errorf("damage %v, lost %q: the missing HEAP DUMP END is not reported", g.Damage, g.Lost)
	}
}
