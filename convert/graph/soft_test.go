package graph

import "testing"

// Every kind has its own text, and a failure's text is the kind's with
// the detail in place: `info` and Parquet print these texts.
func TestSoftKindTexts(t *testing.T) {
	seen := map[string]SoftKind{}
	for _, k := range SoftKinds() {
		s := k.String()
		if s == "" {
			t.Errorf("kind %d has no text", k)
		}
		if o, ok := seen[s]; ok {
			t.Errorf("kinds %d and %d share the text %q", o, k, s)
		}
		seen[s] = k
	}
	if got := SoftKind(0).String(); got != "SoftKind(0)" {
		t.Errorf("zero kind: %q", got)
	}
	for _, c := range []struct {
		f    SoftFailure
		want string
	}{
		{SoftFailure{SoftUnknownRecordTag, "0x2A"}, "unknown record tag 0x2A skipped"},
		{SoftFailure{SoftMissingTrace, "7"}, "reference to missing STACK TRACE (serial 7)"},
		{SoftFailure{SoftThreadNamePassFailed, "EOF"}, "thread name pass failed: EOF"},
		{SoftFailure{SoftTraceMissingFrame, ""}, "trace names missing frame"},
	} {
		if got := c.f.String(); got != c.want {
			t.Errorf("%v: %q, want %q", c.f, got, c.want)
		}
	}
}

// Counts are per kind over every detail, and the texts keep details apart.
func TestSoftCounts(t *testing.T) {
	g := New()
	g.SoftFailDetail(SoftUnknownRecordTag, "0x2A")
	g.SoftFailDetail(SoftUnknownRecordTag, "0x2A")
	g.SoftFailDetail(SoftUnknownRecordTag, "0x30")
	g.SoftFail(SoftDuplicateString)
	g.Soft.Add(SoftObjectsMissingClassDump, "", 5)
	g.Soft.Add(SoftThreadNamesUnresolved, "", 0)
	if n := g.Soft.Count(SoftUnknownRecordTag); n != 3 {
		t.Errorf("unknown tags: %d, want 3", n)
	}
	if n := g.Soft.Count(SoftThreadNamesUnresolved); n != 0 {
		t.Errorf("nothing added, yet %d counted", n)
	}
	if n := g.SoftTotal(); n != 9 {
		t.Errorf("total %d, want 9", n)
	}
	texts := g.Soft.Texts()
	want := map[string]int64{
		"unknown record tag 0x2A skipped":                     2,
		"unknown record tag 0x30 skipped":                     1,
		"duplicate string ID":                                 1,
		"objects of a class with no CLASS DUMP (not counted)": 5,
	}
	if len(texts) != len(want) {
		t.Errorf("texts %v, want %v", texts, want)
	}
	for k, v := range want {
		if texts[k] != v {
			t.Errorf("%q: %d, want %d", k, texts[k], v)
		}
	}
	sorted := g.Soft.Sorted()
	for i := 1; i < len(sorted); i++ {
		if sorted[i-1].String() >= sorted[i].String() {
			t.Errorf("not sorted: %v", sorted)
		}
	}
	if SoftCounts(nil).Texts() != nil || SoftCounts(nil).Total() != 0 {
		t.Error("a nil SoftCounts is not empty")
	}
}
