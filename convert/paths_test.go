package convert

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/hprof"
	"github.com/hprof2pprof/hprof2pprof/convert/internal/testhooks"
)

// TestMappedEqualsStreamed: the parallel in-memory path and the
// streaming path write byte-identical profiles for every view of every
// binary fixture, whole and truncated.
func TestMappedEqualsStreamed(t *testing.T) {
	files, _ := filepath.Glob("../testdata/*.hprof")
	if len(files) < 5 {
		t.Fatalf("only %d fixtures", len(files))
	}
	var cases []string
	cases = append(cases, files...)
	// Truncated copies: inside a heap segment, and inside the strings.
	b, err := os.ReadFile("../testdata/jdk17-zoo-live.hprof")
	if err != nil {
		t.Fatal(err)
	}
	// …and exactly between two sub-records of a heap segment.
	for _, n := range []int{len(b) / 2, len(b) / 50, len(b) - 9, subRecordStart(t, b, 1000)} {
		p := filepath.Join(t.TempDir(), "cut.hprof")
		os.WriteFile(p, b[:n], 0o644)
		cases = append(cases, p)
	}
	// A bad sub-record tag in the first heap segment: damage with more
	// segments after it (a window's scan fails while the next is noted).
	bad := slices.Clone(b)
	bad[subRecordStart(t, b, 1000)] = 0xEE
	p := filepath.Join(t.TempDir(), "damaged.hprof")
	os.WriteFile(p, bad, 0o644)
	cases = append(cases, p)
	for _, path := range cases {
		t.Run(filepath.Base(path), func(t *testing.T) {
			streamed, err := ConvertFile(testhooks.With(context.Background(), testhooks.Hooks{Sequential: true}), path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			// Spans parsed at the dump's end (the fixtures are smaller
			// than a window), and each span parsed as soon as it is
			// noted, while the first pass reads on.
			for _, window := range []int64{0, 1} {
				t.Run("window="+strconv.FormatInt(window, 10), func(t *testing.T) {
					mapped, err := ConvertFile(testhooks.With(context.Background(), testhooks.Hooks{SpanWindow: window}), path, Options{})
					if err != nil {
						t.Fatal(err)
					}
					sameAsStreamed(t, mapped, streamed)
				})
			}
		})
	}
}

// sameAsStreamed fails t unless the conversion mapped (the parallel
// path) equals streamed: damage, every view's encoding, soft failures.
func sameAsStreamed(t *testing.T, mapped, streamed *graph.Graph) {
	t.Helper()
	if (mapped.Damage == nil) != (streamed.Damage == nil) {
		t.Fatalf("damage: mapped %v, streamed %v", mapped.Damage, streamed.Damage)
	}
	if mapped.Damage != nil && mapped.Damage.Error() != streamed.Damage.Error() {
		t.Errorf("damage: mapped %q, streamed %q", mapped.Damage, streamed.Damage)
	}
	if len(mapped.Views) != len(streamed.Views) {
		t.Fatalf("%d views mapped, %d streamed", len(mapped.Views), len(streamed.Views))
	}
	for _, v := range streamed.Views {
		if !sameEncoding(t, mapped, streamed, v.Name) {
			t.Errorf("view %s differs between the mapped and streamed paths", v.Name)
		}
	}
	if strings.Join(mapSoft(mapped.Soft.Texts()), ",") != strings.Join(mapSoft(streamed.Soft.Texts()), ",") {
		t.Errorf("soft failures: mapped %v, streamed %v", mapped.Soft, streamed.Soft)
	}
}

// subRecordStart is the offset of the nth sub-record of the first heap
// record of the dump b.
func subRecordStart(t *testing.T, b []byte, nth int) int {
	t.Helper()
	r, err := hprof.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	at := -1
	hprof.Walk(context.Background(), r, func(rec hprof.Record) error {
		if rec.Tag != hprof.TagHeapDumpSegment && rec.Tag != hprof.TagHeapDump {
			return nil
		}
		hr := r.Heap()
		for i := 0; i <= nth; i++ {
			s, err := hr.Next()
			if err != nil {
				return hprof.ErrStop
			}
			at = int(s.Offset)
		}
		return hprof.ErrStop
	})
	if at <= 0 {
		t.Fatalf("no sub-record %d in the first heap record", nth)
	}
	return at
}

func mapSoft(m map[string]int64) []string {
	var out []string
	for k, v := range m {
		out = append(out, k+"="+strconv.FormatInt(v, 10))
	}
	slices.Sort(out)
	return out
}
