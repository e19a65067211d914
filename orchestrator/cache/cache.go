package cache

import (
	"bytes"
	"container/list"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/glimpse/glimpse/metrics"
	"github.com/glimpse/glimpse/storage"
)

// Entry is one cached answer. Body is the finished JSON envelope, so a hit
// is written as it is; the rest is what headers and embed need.
type Entry struct {
	Key       string        `json:"key"`
	Body      []byte        `json:"body"`
	ETag      string        `json:"etag"`
	Created   time.Time     `json:"created"`
	Expires   time.Time     `json:"expires"`
	TTL       time.Duration `json:"ttl"`
	FetchMode string        `json:"fetch_mode"`
	// FetchTime is how long the target took to fetch or render and
	// read, for x-fetch-time.
	FetchTime time.Duration     `json:"fetch_time,omitempty"`
	Embeds    map[string]string `json:"embeds,omitempty"` // "pdf.url" → storage key or URL
	// Texts are data rule values an `embed` answers with, by rule name.
	Texts map[string]Text `json:"texts,omitempty"`
	// CutShortAt is the request timeout that cut the render short, the
	// page still loading; 0 for a render that finished.
	CutShortAt time.Duration `json:"cut_short_at,omitempty"`
	// Wall is the vendor of the bot wall a screenshot or PDF shows instead
	// of the page. Such an entry is answered, never stored.
	Wall string `json:"-"`

	enc encoded // compressed bodies, made on first use
}

// Text is a body `embed` answers with instead of the envelope.
type Text struct {
	Body        string `json:"body"`
	ContentType string `json:"content_type"`
}

// FreshUntil is when the entry stops being fresh for a caller asking for
// ttl: a caller asking a shorter ttl than the entry was made with gets a
// fresher answer.
func (e *Entry) FreshUntil(ttl time.Duration) time.Time {
	return e.Created.Add(min(e.TTL, ttl))
}

// CutShortFor reports whether the entry was cut short by a timeout shorter
// than the caller's: such a caller gets a render of its own.
func (e *Entry) CutShortFor(timeout time.Duration) bool {
	return e.CutShortAt > 0 && e.CutShortAt < timeout
}

// size is what the entry holds in memory besides its compressed bodies:
// its body, the texts `embed` answers with and its file names. The
// compressed bodies a hit makes once and keeps are counted when they are
// made (see grown).
func (e *Entry) size() int64 {
	n := len(e.Body) + len(e.Key) + len(e.ETag) + len(e.FetchMode) + 256
	for k, t := range e.Texts {
		n += len(k) + len(t.Body) + len(t.ContentType) + 64
	}
	for k, v := range e.Embeds {
		n += len(k) + len(v) + 64
	}
	return int64(n)
}

// Cache keeps answers in a bounded in-memory LRU (by bytes) in front of the
// shared store, so every replica behind a load balancer sees the same
// entries.
type Cache struct {
	max    int64
	shared storage.Store // nil: memory only
	log    *slog.Logger
	m      *metrics.Orchestrator

	breaker breaker
	writes  sync.WaitGroup // shared-store writes still running

	mu    sync.Mutex
	bytes int64
	ll    *list.List // front = most recent
	items map[string]*list.Element
}

// New makes a cache of at most maxBytes in memory.
func New(maxBytes int64, shared storage.Store, log *slog.Logger, m *metrics.Orchestrator) *Cache {
	return &Cache{max: maxBytes, shared: shared, log: log, m: m, ll: list.New(), items: map[string]*list.Element{},
		breaker: breaker{log: log, now: time.Now}}
}

// SharedFailing is the shared store's last error while the cache keeps
// it out of requests after repeated failures, or "" while it is used.
func (c *Cache) SharedFailing() string {
	if c.shared == nil {
		return ""
	}
	return c.breaker.failing()
}

// Get returns a live entry from memory, else from the shared store. The
// store gets SharedReadBudget of the request's time, and none while it
// keeps failing.
func (c *Cache) Get(ctx context.Context, key string, now time.Time) *Entry {
	e, _ := c.Lookup(ctx, key, now)
	return e
}

// Lookup is Get that also says where the entry was found:
// metrics.CacheFromMemory or metrics.CacheFromShared, "" with no entry.
func (c *Cache) Lookup(ctx context.Context, key string, now time.Time) (*Entry, string) {
	if e := c.getMemory(key, now); e != nil {
		return e, metrics.CacheFromMemory
	}
	if e := c.getShared(ctx, key, now); e != nil {
		return e, metrics.CacheFromShared
	}
	return nil, ""
}

// getShared reads a live entry from the shared store and keeps it in
// memory.
func (c *Cache) getShared(ctx context.Context, key string, now time.Time) *Entry {
	if c.shared == nil || !c.breaker.allow() {
		return nil
	}
	sctx, cancel := context.WithTimeout(ctx, SharedReadBudget)
	defer cancel()
	var e Entry
	err := c.readShared(sctx, key, &e)
	switch {
	case errors.Is(err, storage.ErrNotFound):
		c.breaker.succeeded()
		return nil
	case err != nil && ctx.Err() == nil:
		c.breaker.failed(err)
		c.m.StorageErrors.WithLabelValues("get").Inc()
		c.log.Warn("reading a shared cache entry failed; rendering instead", "err", err)
		return nil
	case err != nil:
		return nil // the caller went away: no word on the store
	}
	c.breaker.succeeded()
	if e.Key != key {
		return nil
	}
	if !now.Before(e.Expires) {
		return nil
	}
	c.putMemory(&e)
	return &e
}

// readShared reads and decodes the entry of key from the shared store
// within ctx. An object that is not an entry reads as not found.
func (c *Cache) readShared(ctx context.Context, key string, e *Entry) error {
	rc, _, err := c.shared.Get(ctx, ObjectKey(key))
	if err != nil {
		return err
	}
	defer rc.Close()
	if err := json.NewDecoder(rc).Decode(e); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var syntax *json.SyntaxError
		var typ *json.UnmarshalTypeError
		if errors.As(err, &syntax) || errors.As(err, &typ) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return storage.ErrNotFound
		}
		return err
	}
	return nil
}

func (c *Cache) getMemory(key string, now time.Time) *Entry {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[key]
	if !ok {
		return nil
	}
	e := el.Value.(*Entry)
	if !now.Before(e.Expires) {
		c.removeLocked(el)
		return nil
	}
	c.ll.MoveToFront(el)
	return e
}

// Put stores the entry in memory and, in the background, in the shared
// store. A failure of the shared store costs a future render, never this
// answer.
func (c *Cache) Put(e *Entry) {
	c.putMemory(e)
	if c.shared == nil {
		return
	}
	if !c.breaker.allow() {
		return // the store keeps failing: the entry lives in memory only
	}
	b, err := json.Marshal(e)
	if err != nil {
		return
	}
	c.writes.Add(1)
	go func() {
		defer c.writes.Done()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := c.shared.Put(ctx, ObjectKey(e.Key), bytes.NewReader(b), int64(len(b)), "application/json"); err != nil {
			c.breaker.failed(err)
			c.m.StorageErrors.WithLabelValues("put").Inc()
			c.log.Warn("writing a shared cache entry failed", "err", err)
			return
		}
		c.breaker.succeeded()
	}()
}

// Wait waits until the shared-store writes started so far have finished,
// or ctx ends: a replica shutting down keeps what it rendered for the
// others.
func (c *Cache) Wait(ctx context.Context) error {
	done := make(chan struct{})
	go func() {
		c.writes.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (c *Cache) putMemory(e *Entry) {
	sz := e.size()
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[e.Key]; ok {
		// Replaced even when the new answer is too large to keep: the old
		// one must not outlive a render that superseded it (force=true).
		c.removeLocked(el)
	}
	if sz > c.max/4 {
		return // one huge answer must not flush the whole cache
	}
	c.items[e.Key] = c.ll.PushFront(e)
	e.enc.cache.Store(c)
	c.bytes += sz + e.enc.counted
	c.evictLocked()
}

func (c *Cache) evictLocked() {
	for c.bytes > c.max && c.ll.Len() > 0 {
		c.removeLocked(c.ll.Back())
	}
}

// grown counts n bytes of compressed body that e made while it is kept.
func (c *Cache) grown(e *Entry, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e.enc.counted += int64(n)
	if el, ok := c.items[e.Key]; ok && el.Value.(*Entry) == e {
		c.bytes += int64(n)
		c.evictLocked()
	}
}

func (c *Cache) removeLocked(el *list.Element) {
	e := el.Value.(*Entry)
	c.ll.Remove(el)
	delete(c.items, e.Key)
	c.bytes -= e.size() + e.enc.counted
}

// Snapshot is the cache's size for metrics.
func (c *Cache) Snapshot() metrics.CacheSnapshot {
	c.mu.Lock()
	defer c.mu.Unlock()
	return metrics.CacheSnapshot{Entries: c.ll.Len(), Bytes: c.bytes, MaxBytes: c.max}
}

// ObjectKey is where an entry lives in the shared store: under the
// private prefix, never publicly readable.
func ObjectKey(key string) string { return "cache/" + key + ".json" }
