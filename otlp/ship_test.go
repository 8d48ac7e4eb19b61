package otlp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestExplainAge: a refusal for the profiles' age names --now; other
// refusals are left as they are.
func TestExplainAge(t *testing.T) {
	age := fmt.Errorf("%w by http://127.0.0.1:4040/v1development/profiles: 400: profile with labels '{…}' is outside of ingestion window (profile timestamp: 2026-11-21 22:43:00, the ingestion window starts at 2026-11-22 14:00:00)", ErrRefused)
	if got := explain(age).Error(); !strings.Contains(got, "--now") || !strings.Contains(got, "ingestion window") || !errors.Is(explain(age), ErrRefused) {
		t.Errorf("explain(age) = %q: want the backend's words, --now, and ErrRefused kept", got)
	}
	other := fmt.Errorf("%w: 400: invalid labels", ErrRefused)
	if got := explain(other); got != other {
		t.Errorf("explain(other) = %v, want it unchanged", got)
	}
	gaveUp := fmt.Errorf("%w: ingestion window", ErrGaveUp)
	if got := explain(gaveUp); got != gaveUp {
		t.Errorf("a retryable failure got advice: %v", got)
	}
}

// TestPacerBucket: the bucket starts full, a request takes its bytes,
// time refills it at the rate, and a wait ends early when the context
// does. The clock is the test's, so nothing depends on real timing.
func TestPacerBucket(t *testing.T) {
	clock := time.Unix(1000, 0)
	p := NewPacer(Limits{Rate: 1000, Burst: 2000})
	p.now = func() time.Time { return clock }
	ctx := context.Background()
	for _, n := range []int{1500, 500} { // the full bucket: no wait
		if err := p.Wait(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	if p.tokens != 0 {
		t.Fatalf("tokens %v after taking the burst, want 0", p.tokens)
	}
	clock = clock.Add(2 * time.Second) // refills 2000, capped at the burst
	if err := p.Wait(ctx, 2000); err != nil || p.tokens != 0 {
		t.Fatalf("after a 2 s refill: err %v, tokens %v", err, p.tokens)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := p.Wait(cancelled, 1000); !errors.Is(err, context.Canceled) {
		t.Errorf("an empty bucket and a cancelled context: %v, want context.Canceled", err)
	}
	var none *Pacer
	if err := none.Wait(cancelled, 1<<30); err != nil {
		t.Errorf("a nil pacer waited: %v", err)
	}
}

// TestCutAttr: a value over MaxAttrLen is cut on a character boundary and
// marked, well under Pyroscope's 2,048-byte label limit.
func TestCutAttr(t *testing.T) {
	long := strings.Repeat("é", MaxAttrLen) // 2 bytes each
	got := cut(long)
	if len(got) > MaxAttrLen+len("…") || !strings.HasSuffix(got, "…") || !utf8ValidPrefix(got) {
		t.Errorf("cut gave %d bytes, suffix %q", len(got), got[len(got)-3:])
	}
	if short := "Signal Dispatcher"; cut(short) != short {
		t.Errorf("a short value was cut")
	}
}

func utf8ValidPrefix(s string) bool {
	for _, r := range s {
		if r == '\uFFFD' {
			return false
		}
	}
	return true
}
