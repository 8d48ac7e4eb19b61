package source

import (
	"context"
	"errors"
	"fmt"
	"runtime/metrics"
	"time"
)

// ErrMemoryLimit: decoding needed more memory than Options.MaxMemory.
var ErrMemoryLimit = errors.New("convert: memory limit reached")

// memoryPoll is how often the heap is measured against the limit.
const memoryPoll = 20 * time.Millisecond

// heapMetric is the Go heap occupied by objects, live or not yet swept.
const heapMetric = "/memory/classes/heap/objects:bytes"

// WatchMemory returns a context that is cancelled with an error wrapping
// ErrMemoryLimit once the process's Go heap exceeds limit bytes. The
// decoders stop at their next context check, so a hostile or huge input
// ends with a clear error instead of the kernel's OOM killer. stop ends
// the watch.
func WatchMemory(parent context.Context, limit int64) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	done := make(chan struct{})
	sample := []metrics.Sample{{Name: heapMetric}}
	over := func() bool {
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 {
			return false
		}
		if used := int64(sample[0].Value.Uint64()); used > limit {
			cancel(fmt.Errorf("%w: the heap holds %s, over the limit of %s (raise it with --max-memory)", ErrMemoryLimit, SizeText(used), SizeText(limit)))
			return true
		}
		return false
	}
	if over() {
		return ctx, func() { cancel(nil) }
	}
	go func() {
		t := time.NewTicker(memoryPoll)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				if over() {
					return
				}
			}
		}
	}()
	return ctx, func() { close(done); cancel(nil) }
}

// SizeText prints a byte count in MiB or GiB.
func SizeText(n int64) string {
	if n >= 1<<30 {
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
