package otlp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// PartResult is what became of one Part.
type PartResult struct {
	Part
	Result Result
	Err    error
}

// Stored reports whether the receiver took every profile of the part.
func (r PartResult) Stored() bool { return r.Err == nil && r.Result.Accepted() }

// Pacer spaces requests so that their estimated bytes stay under a
// rate with a burst, as the backend's token-bucket limiter counts them.
// The zero Pacer (or a zero Rate) never waits. It is safe for
// concurrent use: callers wait in turn.
type Pacer struct {
	mu    sync.Mutex
	Rate  int // bytes per second
	Burst int // bucket size in bytes
	// tokens in the bucket at last
	tokens float64
	last   time.Time
	now    func() time.Time
}

// NewPacer starts a full bucket.
func NewPacer(lim Limits) *Pacer {
	return &Pacer{Rate: lim.Rate, Burst: lim.Burst, tokens: float64(lim.Burst)}
}

// Wait blocks until n bytes may be sent, then takes them from the
// bucket. A request larger than the burst waits for a full bucket.
func (p *Pacer) Wait(ctx context.Context, n int) error {
	if p == nil || p.Rate <= 0 {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.now == nil {
		p.now = time.Now
	}
	now := p.now()
	if !p.last.IsZero() {
		p.tokens += now.Sub(p.last).Seconds() * float64(p.Rate)
	}
	p.last = now
	limit := float64(p.Burst)
	if limit <= 0 {
		limit = float64(p.Rate)
	}
	p.tokens = min(p.tokens, limit)
	need := min(float64(n), limit)
	if p.tokens < need {
		wait := time.Duration((need - p.tokens) / float64(p.Rate) * float64(time.Second))
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		p.tokens = need
		p.last = p.now()
	}
	p.tokens -= need
	return nil
}

// Ship sends every part in order, one request each, paced by p; a part
// refused does not stop the rest. Each result says whether that part
// was stored.
func Ship(ctx context.Context, c *Client, parts []Part, p *Pacer) []PartResult {
	out := make([]PartResult, 0, len(parts))
	for _, part := range parts {
		r := PartResult{Part: part}
		if err := p.Wait(ctx, part.Bytes); err != nil {
			r.Err = fmt.Errorf("not sent: %w", err)
			out = append(out, r)
			continue
		}
		r.Result, r.Err = c.Push(ctx, part.Req)
		if r.Err != nil {
			r.Err = explain(r.Err)
		}
		out = append(out, r)
	}
	return out
}

// explain adds what to do to a refusal the user can fix: a profile too
// old or too new for the backend's ingestion window.
func explain(err error) error {
	msg := err.Error()
	if errors.Is(err, ErrRefused) && (strings.Contains(msg, "ingestion window") || strings.Contains(msg, "too old")) {
		return fmt.Errorf("%w: the backend refused the profiles for their age (they carry the input's own time); --now stamps them with the time of the push and keeps the input's time as the attribute %s", err, AttrTime)
	}
	return err
}
