package heaprows_test

import (
	"context"
	"maps"
	"path/filepath"
	"testing"

	"github.com/hprof2pprof/hprof2pprof/convert"
	"github.com/hprof2pprof/hprof2pprof/convert/graph"
	"github.com/hprof2pprof/hprof2pprof/convert/internal/heaprows"
)

// TestStringPasses: with few Strings allowed to wait for their arrays,
// the dump is read once per batch, and every String gets the same row as
// with a single string pass.
func TestStringPasses(t *testing.T) {
	dump := filepath.Join("..", "..", "..", "testdata", "jdk17-zoo-live.hprof")
	read := func(limit int) map[uint64]graph.String {
		old := *heaprows.MaxPending
		*heaprows.MaxPending = limit
		defer func() { *heaprows.MaxPending = old }()
		got := map[uint64]graph.String{}
		sink := &graph.ObjectSink{String: func(s *graph.String) error {
			if _, dup := got[s.ID]; dup {
				t.Errorf("String 0x%x written twice", s.ID)
			}
			got[s.ID] = *s
			return nil
		}}
		d, err := convert.DecodeFile(context.Background(), dump, convert.Options{Views: []string{graph.ViewHeap}, Rows: true})
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		if err := d.Rows(context.Background(), sink); err != nil {
			t.Fatal(err)
		}
		return got
	}
	one, many := read(1<<30), read(1000)
	if len(one) < 10000 || !maps.Equal(one, many) {
		t.Errorf("one string pass: %d Strings; passes of 1,000: %d, equal %v", len(one), len(many), maps.Equal(one, many))
	}
}
