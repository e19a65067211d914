package quota

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// limiterKinds are the implementations of Limiter; each must behave the
// same, so the API's quota headers do not depend on where counts are kept.
func limiterKinds(t *testing.T) []struct {
	name string
	new  func(t *testing.T) Limiter
} {
	return []struct {
		name string
		new  func(t *testing.T) Limiter
	}{
		{"in memory", func(t *testing.T) Limiter { return NewMemory() }},
		{"in Redis", func(t *testing.T) Limiter { return newTestRedis(t, startRedis(t, ""), nil) }},
	}
}

func TestLimiter(t *testing.T) {
	ctx := context.Background()
	plan := &Plan{Name: "tiny", Limit: 3, Window: 2 * time.Second}
	// Nanoseconds in the start time: a window's end must be kept exactly,
	// or the rounded-up x-rate-limit-reset could differ by a second.
	t0 := time.Date(2026, 11, 20, 10, 0, 0, 123456789, time.UTC)

	for _, kind := range limiterKinds(t) {
		t.Run(kind.name, func(t *testing.T) {
			t.Run("a window admits its limit and refuses the rest until it ends", func(t *testing.T) {
				l := kind.new(t)
				steps := []struct {
					at        time.Duration
					allowed   bool
					remaining int
					reset     time.Duration
				}{
					{0, true, 2, 2 * time.Second},
					{100 * time.Millisecond, true, 1, 2 * time.Second},
					{time.Second, true, 0, 2 * time.Second},
					{1500 * time.Millisecond, false, 0, 2 * time.Second},
					{2*time.Second - time.Nanosecond, false, 0, 2 * time.Second},
					{2 * time.Second, true, 2, 4 * time.Second}, // the window ends at its reset
					{2500 * time.Millisecond, true, 1, 4 * time.Second},
				}
				for i, s := range steps {
					q := l.Take(ctx, "ip:192.0.2.1", plan, t0.Add(s.at))
					if q.Allowed != s.allowed || q.Remaining != s.remaining || !q.Reset.Equal(t0.Add(s.reset)) || q.Limit != 3 {
						t.Errorf("request %d at +%s: %+v, want allowed %t, remaining %d, reset +%s",
							i+1, s.at, q, s.allowed, s.remaining, s.reset)
					}
				}
			})

			t.Run("the window starts with the caller's first request", func(t *testing.T) {
				l := kind.new(t)
				first := t0.Add(1234 * time.Millisecond)
				if q := l.Take(ctx, "ip:192.0.2.1", plan, first); !q.Reset.Equal(first.Add(plan.Window)) {
					t.Errorf("reset %s, want %s", q.Reset, first.Add(plan.Window))
				}
			})

			t.Run("a peek counts nothing and tells where the window stands", func(t *testing.T) {
				l := kind.new(t)
				if q := l.Peek(ctx, "key:a", plan, t0); !q.Allowed || q.Remaining != 3 || !q.Reset.Equal(t0.Add(plan.Window)) {
					t.Errorf("a peek before any request: %+v, want 3 remaining and a window starting now", q)
				}
				later := t0.Add(time.Second)
				if q := l.Peek(ctx, "key:a", plan, later); !q.Reset.Equal(later.Add(plan.Window)) {
					t.Errorf("a second peek found a window the first one started: %+v", q)
				}
				for range 3 {
					l.Take(ctx, "key:a", plan, t0)
				}
				for range 2 {
					if q := l.Peek(ctx, "key:a", plan, later); q.Allowed || q.Remaining != 0 || !q.Reset.Equal(t0.Add(plan.Window)) {
						t.Errorf("a peek at a used-up window: %+v", q)
					}
				}
			})

			t.Run("callers and plans count separately", func(t *testing.T) {
				l := kind.new(t)
				other := &Plan{Name: "other", Limit: 3, Window: time.Hour}
				for range 3 {
					l.Take(ctx, "key:a", plan, t0)
				}
				if q := l.Take(ctx, "key:a", plan, t0); q.Allowed {
					t.Fatal("the fourth request was admitted")
				}
				if q := l.Take(ctx, "key:b", plan, t0); !q.Allowed || q.Remaining != 2 {
					t.Errorf("another caller of the same plan: %+v", q)
				}
				if q := l.Take(ctx, "key:a", other, t0); !q.Allowed || q.Remaining != 2 {
					t.Errorf("the same caller under another plan: %+v", q)
				}
			})

			t.Run("concurrent requests never pass the limit", func(t *testing.T) {
				l := kind.new(t)
				big := &Plan{Name: "fifty", Limit: 50, Window: time.Hour}
				var admitted atomic.Int32
				var wg sync.WaitGroup
				for range 200 {
					wg.Add(1)
					go func() {
						defer wg.Done()
						if l.Take(ctx, "key:busy", big, t0).Allowed {
							admitted.Add(1)
						}
					}()
				}
				wg.Wait()
				if n := admitted.Load(); n != 50 {
					t.Errorf("%d of 200 concurrent requests were admitted, want 50", n)
				}
			})
		})
	}
}
