package hprof

import "testing"

// TestDumpCounter numbers dumps as the converter's first pass does
// (convert/heapdump.go): segments up to HEAP DUMP END are one dump, a
// HEAP DUMP record alone is one, and a HEAP DUMP record met while
// segments are open is their dump's last record.
func TestDumpCounter(t *testing.T) {
	seq := []struct {
		tag  Tag
		want int
	}{
		{TagHeapDumpSegment, 1}, {TagHeapDumpSegment, 1}, {TagHeapDumpEnd, 0},
		{TagHeapDump, 2},
		{TagHeapDump, 3},
		{TagHeapDumpSegment, 4}, {TagHeapDump, 4},
		{TagHeapDumpSegment, 5}, {TagLoadClass, 0}, {TagHeapDumpSegment, 5}, {TagHeapDumpEnd, 0},
		{TagHeapDumpEnd, 0}, {TagHeapDumpSegment, 6},
	}
	var c DumpCounter
	for i, s := range seq {
		if got := c.Dump(s.tag); got != s.want {
			t.Fatalf("record %d (%v): dump %d, want %d", i, s.tag, got, s.want)
		}
	}
}
