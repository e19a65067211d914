package quota

import (
	"container/heap"
	"context"
	"sync"
	"time"
)

// DefaultMemoryBytes bounds the windows one process keeps: about 200,000
// callers. Callers choose their own number (every address of their
// networks), so the table is bounded by what it holds, not by who asks.
const DefaultMemoryBytes = 32 << 20

// windowOverhead is what one window costs beside its key: the map's slot,
// the window itself and its place in the heap.
const windowOverhead = 128

// sweepStep is how many ended windows one request drops at most, so that
// no request holds the lock for a sweep of the whole table.
const sweepStep = 32

// Memory is the Limiter of one process: each replica counts on its own and
// a restart starts every count again.
//
// It keeps at most its byte budget of windows. Ended windows are dropped a
// few at a time by the requests that come; when the budget is full, the
// window that ends first is dropped for a new one, and its caller starts
// afresh. Only a caller with more networks than the table holds windows
// (each of which has its own quota anyway) can make that happen.
type Memory struct {
	mu       sync.Mutex
	windows  map[string]*window
	ends     endHeap // every window, the one that ends first on top
	bytes    int64
	maxBytes int64
}

type window struct {
	key   string
	until time.Time
	count int
	index int // in ends
}

func (w *window) size() int64 { return int64(len(w.key)) + windowOverhead }

var _ Limiter = (*Memory)(nil)

// NewMemory returns a limiter that counts in this process's memory, within
// DefaultMemoryBytes.
func NewMemory() *Memory { return NewMemoryBounded(DefaultMemoryBytes) }

// NewMemoryBounded returns a limiter that keeps at most maxBytes of
// windows (DefaultMemoryBytes when not positive).
func NewMemoryBounded(maxBytes int64) *Memory {
	if maxBytes <= 0 {
		maxBytes = DefaultMemoryBytes
	}
	return &Memory{windows: map[string]*window{}, maxBytes: maxBytes}
}

// windowLocked is the caller's current window; a new one starts now when
// the last has ended (kept only when store is set).
func (l *Memory) windowLocked(k string, plan *Plan, now time.Time, store bool) *window {
	w, ok := l.windows[k]
	if ok && now.Before(w.until) {
		return w
	}
	if !store {
		return &window{key: k, until: now.Add(plan.Window)}
	}
	if ok {
		w.until, w.count = now.Add(plan.Window), 0
		heap.Fix(&l.ends, w.index)
		return w
	}
	return l.addLocked(&window{key: k, until: now.Add(plan.Window)})
}

// addLocked keeps a new window, dropping those that end first while the
// budget would be exceeded.
func (l *Memory) addLocked(w *window) *window {
	for l.bytes+w.size() > l.maxBytes && l.ends.Len() > 0 {
		l.removeLocked(l.ends[0])
	}
	l.windows[w.key] = w
	heap.Push(&l.ends, w)
	l.bytes += w.size()
	return w
}

func (l *Memory) removeLocked(w *window) {
	heap.Remove(&l.ends, w.index)
	delete(l.windows, w.key)
	l.bytes -= w.size()
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
	k := windowKey(id, plan)
	if w, ok := l.windows[k]; ok {
		w.until, w.count = until, count
		heap.Fix(&l.ends, w.index)
		return
	}
	l.addLocked(&window{key: k, until: until, count: count})
}

// sweepLocked drops a few ended windows, those that ended first.
func (l *Memory) sweepLocked(now time.Time) {
	for range sweepStep {
		if l.ends.Len() == 0 || now.Before(l.ends[0].until) {
			return
		}
		l.removeLocked(l.ends[0])
	}
}

// Size is how many windows are kept and what they cost, by the budget's
// measure.
func (l *Memory) Size() (windows int, bytes int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.windows), l.bytes
}

// endHeap orders windows by their end.
type endHeap []*window

func (h endHeap) Len() int           { return len(h) }
func (h endHeap) Less(i, j int) bool { return h[i].until.Before(h[j].until) }
func (h endHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *endHeap) Push(x any) {
	w := x.(*window)
	w.index = len(*h)
	*h = append(*h, w)
}
func (h *endHeap) Pop() any {
	old := *h
	w := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return w
}
