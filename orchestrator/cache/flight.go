package cache

import (
	"context"
	"fmt"
	"runtime/debug"
	"sync"
	"time"
)

// Flight makes identical requests that arrive while one is rendering wait
// for that one render. Each caller waits within its own context; the render
// itself stops only when every caller has gone, so one impatient client
// does not fail the others.
type Flight struct {
	mu        sync.Mutex
	calls     map[string]*call
	isTimeout func(error) bool
}

type call struct {
	done    chan struct{}
	entry   *Entry
	err     error
	waiters int
	cancel  context.CancelFunc
}

// NewFlight makes a Flight. isTimeout tells a render that ran out of its
// first caller's time from other failures.
func NewFlight(isTimeout func(error) bool) *Flight {
	return &Flight{calls: map[string]*call{}, isTimeout: isTimeout}
}

// Do runs fn once for key among concurrent callers. shared reports that
// this caller got another caller's result. A caller whose own budget
// outlasts a joined render that timed out on its first caller's budget
// renders again within what it has left: identical requests wait within
// their own time-outs, not the first one's. So does a caller whose budget
// outlasts the timeout that cut a joined render's answer short; such
// callers of one timeout share that second render too.
func (f *Flight) Do(ctx context.Context, key string, budget time.Duration,
	fn func(ctx context.Context) (*Entry, error)) (*Entry, bool, error) {
	e, shared, err := f.do(ctx, key, budget, fn)
	if shared && err != nil && ctx.Err() == nil && f.isTimeout(err) {
		if dl, ok := ctx.Deadline(); ok {
			budget = time.Until(dl)
		}
		e, _, err = f.do(ctx, key, budget, fn)
	}
	if shared && err == nil && e.CutShortFor(budget) && ctx.Err() == nil {
		// The render joined was cut short by its first caller's shorter
		// timeout. Callers with this one's timeout render again, once
		// for all of them: the answer they make is theirs to share.
		left := budget
		if dl, ok := ctx.Deadline(); ok {
			left = time.Until(dl)
		}
		e, _, err = f.do(ctx, key+"\x00timeout="+budget.String(), left, fn)
	}
	return e, shared, err
}

func (f *Flight) do(ctx context.Context, key string, budget time.Duration,
	fn func(ctx context.Context) (*Entry, error)) (e *Entry, shared bool, err error) {
	f.mu.Lock()
	c, ok := f.calls[key]
	if ok {
		c.waiters++
		f.mu.Unlock()
		e, err := f.wait(ctx, key, c)
		return e, true, err
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), budget)
	c = &call{done: make(chan struct{}), waiters: 1, cancel: cancel}
	f.calls[key] = c
	f.mu.Unlock()

	go func() {
		defer cancel()
		var entry *Entry
		var err error
		func() {
			// This goroutine is outside Echo's recovery: a panic here would
			// take the whole service down, so it becomes every waiter's
			// failure instead.
			defer func() {
				if p := recover(); p != nil {
					err = fmt.Errorf("a render panicked: %v\n%s", p, debug.Stack())
				}
			}()
			entry, err = fn(rctx)
		}()
		f.mu.Lock()
		c.entry, c.err = entry, err
		if f.calls[key] == c {
			delete(f.calls, key)
		}
		f.mu.Unlock()
		close(c.done)
	}()
	e, err = f.wait(ctx, key, c)
	return e, false, err
}

func (f *Flight) wait(ctx context.Context, key string, c *call) (*Entry, error) {
	select {
	case <-c.done:
		return c.entry, c.err
	case <-ctx.Done():
		f.mu.Lock()
		c.waiters--
		if c.waiters == 0 {
			c.cancel()
			// A newcomer must start afresh rather than join a cancelled render.
			if f.calls[key] == c {
				delete(f.calls, key)
			}
		}
		f.mu.Unlock()
		return nil, ctx.Err()
	}
}
