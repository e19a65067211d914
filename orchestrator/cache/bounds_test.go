package cache

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/glimpse/glimpse/storage"
)

func TestCacheBoundsCountWhatEntriesHold(t *testing.T) {
	now := time.Now()

	t.Run("a render too large to keep still replaces the answer it supersedes", func(t *testing.T) {
		c, _ := newTestCache(64<<10, nil)
		c.Put(cacheEntry("k", "old answer", now, time.Hour))
		c.Put(cacheEntry("k", strings.Repeat("n", 40<<10), now, time.Hour)) // over a quarter of the cache
		if got := c.Get(context.Background(), "k", now); got != nil && string(got.Body) == "old answer" {
			t.Error("the superseded answer is still served")
		}
	})

	t.Run("compressed bodies and texts count against the budget", func(t *testing.T) {
		const budget = 256 << 10
		c, _ := newTestCache(budget, nil)
		var body strings.Builder
		for i := range 3000 {
			body.WriteString(`{"n":` + strings.Repeat("7", i%13) + `,"w":"` + strings.Repeat("ab", i%29) + `"}`)
		}
		for i := range 40 {
			e := cacheEntry("e"+strings.Repeat("x", i), body.String()[:20<<10], now, time.Hour)
			e.Texts = map[string]Text{"rule": {Body: strings.Repeat("t", 8<<10), ContentType: "text/plain"}}
			c.Put(e)
			got := c.Get(context.Background(), e.Key, now)
			got.Encoded("br")
			got.Encoded("gzip")
		}
		var held int64
		c.mu.Lock()
		for el := c.ll.Front(); el != nil; el = el.Next() {
			e := el.Value.(*Entry)
			held += int64(len(e.Body) + len(e.enc.gzip) + len(e.enc.br))
			for _, t := range e.Texts {
				held += int64(len(t.Body))
			}
		}
		counted := c.bytes
		c.mu.Unlock()
		if held > budget || counted > budget {
			t.Errorf("the cache holds %d bytes of bodies, compressed bodies and texts and counts %d; its budget is %d", held, counted, budget)
		}
	})
}

// slowStore is a store whose writes take a while, as a far one's do.
type slowStore struct {
	storage.Store
	delay  time.Duration
	stored atomic.Int32
}

func (s *slowStore) Put(ctx context.Context, key string, r io.Reader, size int64, ct string) (storage.Object, error) {
	select {
	case <-time.After(s.delay):
	case <-ctx.Done():
		return storage.Object{}, ctx.Err()
	}
	s.stored.Add(1)
	return s.Store.Put(ctx, key, r, size, ct)
}

func TestWaitKeepsTheWritesInFlight(t *testing.T) {
	local, err := storage.NewLocal(storage.LocalConfig{Dir: t.TempDir(), PublicBaseURL: "http://127.0.0.1:1/files/"})
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	store := &slowStore{Store: local, delay: 300 * time.Millisecond}
	c, _ := newTestCache(1<<20, store)
	now := time.Now()
	for _, k := range []string{"a", "b", "c"} {
		c.Put(cacheEntry(k, "{}", now, time.Hour))
	}
	short, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if err := c.Wait(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Wait with a grace shorter than the writes: %v", err)
	}
	if err := c.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := store.stored.Load(); n != 3 {
		t.Errorf("%d of 3 writes in flight were finished when Wait returned", n)
	}
}
