package convert

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestMemoryLimit(t *testing.T) {
	const path = "../testdata/jdk17-zoo-live.hprof"
	// A limit below what the process already holds: the decode stops at
	// its first context check with a clear error, and returns no graph.
	g, err := ConvertFile(context.Background(), path, Options{MaxMemory: 1 << 10})
	if !errors.Is(err, ErrMemoryLimit) || g != nil {
		t.Fatalf("graph %v, err %v; want ErrMemoryLimit", g != nil, err)
	}
	if !strings.Contains(err.Error(), "--max-memory") {
		t.Errorf("the error does not say how to raise the limit: %v", err)
	}
	// A generous limit changes nothing.
	g, err = ConvertFile(context.Background(), path, Options{MaxMemory: 8 << 30})
	if err != nil || g.View("heap") == nil {
		t.Fatalf("with a generous limit: %v", err)
	}
}
