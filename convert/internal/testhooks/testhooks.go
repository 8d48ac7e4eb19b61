// Package testhooks carries what convert's tests change about a
// conversion in the context, so that no field of the public Options
// exists only for tests.
package testhooks

import (
	"context"

	"github.com/hprof2pprof/hprof2pprof/convert/internal/heapdump"
	"github.com/hprof2pprof/hprof2pprof/convert/retained"
)

// Hooks are the test settings of one conversion; the zero value is a
// normal conversion.
type Hooks struct {
	// Sequential reads plain files as one stream, without the parallel
	// heap pass (tests compare the two paths).
	Sequential bool
	// SpanWindow, when set, is how many bytes of spans the first pass
	// notes before the workers parse them (spanWindow otherwise), so
	// that the small fixtures are parsed in several windows.
	SpanWindow int64
	// Retained, when set, receives the retained analysis for per-object
	// queries.
	Retained *Retained
	// RetainedFeed is what the first pass hands the retained view of
	// what it noted (heapdump.FeedNoted: all of it), so that tests reach
	// the paths a library caller or a dump mixing spans and streamed
	// records takes.
	RetainedFeed heapdump.Feed
}

// Retained asks for the retained analysis under the oracle's model
// (GarbageHolds, retained.Input.GarbageHolds) and receives it in Result.
type Retained struct {
	GarbageHolds bool
	Result       *retained.Result
}

type key struct{}

// With returns ctx carrying h.
func With(ctx context.Context, h Hooks) context.Context { return context.WithValue(ctx, key{}, h) }

// From returns the hooks ctx carries (the zero value when none).
func From(ctx context.Context) Hooks {
	h, _ := ctx.Value(key{}).(Hooks)
	return h
}
