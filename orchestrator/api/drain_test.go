package api

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/glimpse/glimpse/orchestrator/cache"
	"github.com/glimpse/glimpse/storage"
)

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

// Shutdown keeps what the replica rendered for the others: the writes
// still in flight finish within the grace, and a grace too short says so.
func TestDrainFinishesSharedCacheWritesInFlight(t *testing.T) {
	local, err := storage.NewLocal(storage.LocalConfig{Dir: t.TempDir(), PublicBaseURL: "http://127.0.0.1:1/files/"})
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	store := &slowStore{Store: local, delay: 300 * time.Millisecond}
	s := NewServer(Config{Region: "test"}, Deps{Store: store, Logger: slog.New(slog.DiscardHandler)})
	now := time.Now()
	for _, k := range []string{"a", "b"} {
		s.cache.Put(&cache.Entry{Key: k, Body: []byte("{}"), Created: now, Expires: now.Add(time.Hour), TTL: time.Hour})
	}
	short, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if err := s.Drain(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Drain within a grace shorter than the writes: %v", err)
	}
	if err := s.Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := store.stored.Load(); n != 2 {
		t.Errorf("%d of 2 writes in flight were finished after Drain", n)
	}
}
