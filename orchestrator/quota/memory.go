package quota

import (
	"context"
	"sync"
	"time"
)

// Memory is the Limiter of one process: each replica counts on its own and
// a restart starts every count again.
type Memory struct {
	mu      sync.Mutex
	windows map[string]*window
	sweep   time.Time
}

type window struct {
	until time.Time
	count int
}

var _ Limiter = (*Memory)(nil)

// NewMemory returns a limiter that counts in this process's memory.
func NewMemory() *Memory { return &Memory{windows: map[string]*window{}} }

// windowLocked is the caller's current window; a new one starts now when
// the last has ended (kept only when store is set).
func (l *Memory) windowLocked(k string, plan *Plan, now time.Time, store bool) *window {
	w, ok := l.windows[k]
	if !ok || !now.Before(w.until) {
		w = &window{until: now.Add(plan.Window)}
		if store {
			l.windows[k] = w
		}
	}
	return w
}

// Peek reports the caller's window without counting a request.
func (l *Memory) Peek(_ context.Context, id string, plan *Plan, now time.Time) Quota {
	l.mu.Lock()
	defer l.mu.Unlock()
	w := l.windowLocked(windowKey(id, plan), plan, now, false)
	return Quota{Limit: plan.Limit, Remaining: max(plan.Limit-w.count, 0), Reset: w.until, Allowed: w.count < plan.Limit}
}

// Take counts one request of caller id under plan.
func (l *Memory) Take(_ context.Context, id string, plan *Plan, now time.Time) Quota {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sweepLocked(now)
	w := l.windowLocked(windowKey(id, plan), plan, now, true)
	q := Quota{Limit: plan.Limit, Reset: w.until}
	if w.count >= plan.Limit {
		return q
	}
	w.count++
	q.Allowed = true
	q.Remaining = plan.Limit - w.count
	return q
}

// remember sets a caller's window to what the shared count said, so that
// counting here after the shared store fails goes on from there rather
// than from zero.
func (l *Memory) remember(id string, plan *Plan, until time.Time, count int, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sweepLocked(now)
	l.windows[windowKey(id, plan)] = &window{until: until, count: count}
}

// sweepLocked drops ended windows, at most once a minute.
func (l *Memory) sweepLocked(now time.Time) {
	if now.Sub(l.sweep) <= time.Minute {
		return
	}
	for k, w := range l.windows {
		if !now.Before(w.until) {
			delete(l.windows, k)
		}
	}
	l.sweep = now
}
