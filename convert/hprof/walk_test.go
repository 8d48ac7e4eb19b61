package hprof

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"slices"
	"testing"
)

// walkFile is a header with ID size 4, then records of the given tags,
// each with a body of n bytes.
func walkFile(tags []Tag, n int) []byte {
	out := append([]byte("JAVA PROFILE 1.0.2\x00"), 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0)
	for _, t := range tags {
		out = append(out, byte(t), 0, 0, 0, 0)
		out = binary.BigEndian.AppendUint32(out, uint32(n))
		out = append(out, make([]byte, n)...)
	}
	return out
}

func walkTags(t *testing.T, ctx context.Context, file []byte, fn func(Record) error) ([]Tag, []int64, error) {
	t.Helper()
	r, err := NewReader(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	var tags []Tag
	var offs []int64
	err = Walk(ctx, r, func(rec Record) error {
		tags = append(tags, rec.Tag)
		offs = append(offs, rec.Offset)
		return fn(rec)
	})
	return tags, offs, err
}

// TestWalkPolicy checks each clause of Walk's documented error policy.
func TestWalkPolicy(t *testing.T) {
	const unknown = Tag(0x7F)
	tags := []Tag{TagUTF8, unknown, TagUTF8}
	file := walkFile(tags, 8)
	const header, record = 31, 9 + 8
	ok := func(Record) error { return nil }

	got, offs, err := walkTags(t, context.Background(), file, ok)
	if err != nil || !slices.Equal(got, tags) {
		t.Fatalf("whole file: tags %v, err %v; want %v, nil (an unknown record is passed on and skipped)", got, err, tags)
	}
	if want := []int64{header, header + record, header + 2*record}; !slices.Equal(offs, want) {
		t.Errorf("offsets %v, want %v", offs, want)
	}

	got, _, err = walkTags(t, context.Background(), file[:len(file)-3], ok)
	if !errors.Is(err, ErrTruncated) || !slices.Equal(got, tags) {
		t.Errorf("cut file: tags %v, err %v; want every record header and ErrTruncated", got, err)
	}

	got, _, err = walkTags(t, context.Background(), file, func(Record) error { return ErrStop })
	if err != nil || len(got) != 1 {
		t.Errorf("ErrStop: %d records, err %v; want 1, nil", len(got), err)
	}

	mine := errors.New("mine")
	if _, _, err = walkTags(t, context.Background(), file, func(Record) error { return mine }); err != mine {
		t.Errorf("callback error: got %v, want it as is", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if got, _, err = walkTags(t, ctx, file, ok); !errors.Is(err, context.Canceled) || len(got) != 0 {
		t.Errorf("cancelled: %d records, err %v; want 0, context.Canceled", len(got), err)
	}
}
