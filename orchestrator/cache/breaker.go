package cache

import (
	"log/slog"
	"sync"
	"time"
)

// The shared store's own budget. A lookup in it is worth a few hundred
// milliseconds: past that a render is the better use of the request's
// time, and a store that hangs must not turn every memory miss into a
// time-out.
const (
	// SharedReadBudget bounds one read of the shared store.
	SharedReadBudget = 300 * time.Millisecond
	// sharedBreakAfter failures in a row open the breaker.
	sharedBreakAfter = 3
	// sharedRetryAfter is how long an open breaker keeps the store out of
	// requests before one is let through to try it again.
	sharedRetryAfter = 5 * time.Second
)

// breaker keeps a failing shared store out of the request path, as the
// Redis quota does: after a few failures in a row the store is not asked
// for a while, then one request tries it again.
type breaker struct {
	log *slog.Logger
	now func() time.Time

	mu        sync.Mutex
	failures  int
	openUntil time.Time
	lastErr   string
}

// allow reports whether the store may be asked now. When the breaker's
// wait is over, one caller is let through and the wait starts again, so
// a store that is still down costs one request each time.
func (b *breaker) allow() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.failures < sharedBreakAfter {
		return true
	}
	now := b.now()
	if now.Before(b.openUntil) {
		return false
	}
	b.openUntil = now.Add(sharedRetryAfter)
	return true
}

func (b *breaker) failed(err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.failures++
	b.lastErr = err.Error()
	if b.failures == sharedBreakAfter {
		b.openUntil = b.now().Add(sharedRetryAfter)
		b.log.Warn("The shared cache store keeps failing, so answers are looked up and kept in memory only until it answers again; renders may repeat across replicas meanwhile.",
			"err", err, "retry_every", sharedRetryAfter)
	}
}

func (b *breaker) succeeded() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.failures >= sharedBreakAfter {
		b.log.Info("The shared cache store answers again: answers are shared across replicas again.")
	}
	b.failures, b.lastErr = 0, ""
}

// failing is the store's last error while the breaker is open, or "".
func (b *breaker) failing() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.failures < sharedBreakAfter {
		return ""
	}
	return b.lastErr
}
