package convert

import (
	"bytes"
	"context"
	"testing"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
)

// Each kind of soft failure is counted under its typed kind, the one
// code reads back (describe reads SoftZeroLengthSegment so), with the
// detail where the kind takes one.
func TestSoftFailureKinds(t *testing.T) {
	for _, c := range []struct {
		name string
		file *hprofFile
		kind graph.SoftKind
		n    int64
		text string // the text `info` prints for it
	}{
		{"trace names missing frame", base().record(0x05, traceRec(2, 0, 1, 99)).record(0x0D, cpuSamples(2, 3)),
			graph.SoftTraceMissingFrame, 1, "trace names missing frame"},
		{"duplicate string", base().record(0x01, utf8Rec(2, "run")), graph.SoftDuplicateString, 1, "duplicate string ID"},
		{"duplicate STACK TRACE", base().record(0x05, traceRec(1, 0, 1)), graph.SoftDuplicateTrace, 1, "duplicate STACK TRACE serial"},
		{"END THREAD of unknown thread", base().record(0x0B, be(uint32(7))), graph.SoftEndUnknownThread, 1, "END THREAD names unknown thread"},
		{"objects name missing class", base().record(0x1C, append(classDumpSub(100), append(instanceSub(1, 100), append(instanceSub(2, 555), instanceSub(3, 555)...)...)...)).record(0x2C, nil),
			graph.SoftObjectsMissingClassDump, 2, "objects of a class with no CLASS DUMP (not counted)"},
		{"zero-length segment", base().record(0x1C, classDumpSub(100)).record(0x1C, nil).record(0x2C, nil),
			graph.SoftZeroLengthSegment, 1, "zero-length heap dump segment"},
		{"unknown record tag", base().record(0x7E, be(uint32(1))).record(0x7E, nil), graph.SoftUnknownRecordTag, 2, "unknown record tag 0x7E skipped"},
		{"CPU samples name a missing trace", base().record(0x0D, cpuSamples(9, 2)), graph.SoftMissingTrace, 1, "reference to missing STACK TRACE (serial 9)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			g, err := Convert(context.Background(), bytes.NewReader(c.file.Bytes()), c.name, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := g.Soft.Count(c.kind); got != c.n {
				t.Errorf("Count(%v) = %d, want %d (all: %v)", c.kind, got, c.n, g.Soft.Texts())
			}
			if got := g.Soft.Texts()[c.text]; got != c.n {
				t.Errorf("text %q counted %d, want %d (all: %v)", c.text, got, c.n, g.Soft.Texts())
			}
			if g.SoftTotal() != c.n {
				t.Errorf("other soft failures: %v", g.Soft.Texts())
			}
		})
	}
}
