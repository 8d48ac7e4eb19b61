package otlp

import (
	"math/rand/v2"
	"time"
)

// Retry is an exponential backoff policy with jitter.
type Retry struct {
	// Disabled sends once.
	Disabled bool
	// Initial is the first wait; zero means 500ms.
	Initial time.Duration
	// Max caps one wait; zero means 5s.
	Max time.Duration
	// MaxElapsed stops retrying once this much time passed since the
	// first attempt; zero means 30s.
	MaxElapsed time.Duration
}

// DefaultRetry is what the zero Retry means.
var DefaultRetry = Retry{Initial: 500 * time.Millisecond, Max: 5 * time.Second, MaxElapsed: 30 * time.Second}

type backoff struct {
	p     Retry
	start time.Time
	cur   time.Duration
}

func (r Retry) start() *backoff {
	if r.Initial <= 0 {
		r.Initial = DefaultRetry.Initial
	}
	if r.Max <= 0 {
		r.Max = DefaultRetry.Max
	}
	if r.MaxElapsed <= 0 {
		r.MaxElapsed = DefaultRetry.MaxElapsed
	}
	return &backoff{p: r, start: time.Now(), cur: r.Initial}
}

// next returns how long to wait before the next attempt, at least
// serverDelay, and false when no further attempt fits the budget.
func (b *backoff) next(serverDelay time.Duration) (time.Duration, bool) {
	if b.p.Disabled {
		return 0, false
	}
	// Full interval ±50% jitter, so many clients do not retry in step.
	d := b.cur/2 + rand.N(b.cur)
	b.cur = min(2*b.cur, b.p.Max)
	d = max(d, serverDelay)
	if time.Since(b.start)+d > b.p.MaxElapsed {
		return 0, false
	}
	return d, true
}
