package text

import (
	"bytes"
	"runtime"
	"testing"
)

// FuzzParse: any input either parses or fails with an error; never a
// panic, and memory stays proportional to the input.
func FuzzParse(f *testing.F) {
	for _, path := range textFixtures(f) {
		// The first 16 KiB of each report: every record kind but the
		// longest sections, which the mutator would only slow down.
		b, err := readFixture(path, 16<<10)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("JAVA PROFILE 1.0.1, created Sat Nov 21 22:43:29 2026\n\n--------\n\nTRACE 1: (thread=2)\n\t<empty>\nCPU SAMPLES BEGIN (total = 1) x\n 1 100.00% 100.00% 1 1 <empty trace>\nCPU SAMPLES END\n"))
	f.Add([]byte("count callee caller time\n1 <unknown callee> <unknown caller> 1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		g, err := Parse(bytes.NewReader(data), Options{})
		runtime.ReadMemStats(&after)
		if err == nil && g == nil {
			t.Fatal("nil graph without error")
		}
		// Generous: the line scanner's buffer, the graph's maps, and a
		// few dozen bytes of bookkeeping per input byte.
		limit := uint64(4<<20) + 200*uint64(len(data))
		if used := after.TotalAlloc - before.TotalAlloc; used > limit {
			t.Fatalf("allocated %d bytes for %d bytes of input (limit %d)", used, len(data), limit)
		}
	})
}
