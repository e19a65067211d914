package cache

import (
	"context"
	"testing"
	"time"

	"github.com/glimpse/glimpse/metrics"
	"github.com/glimpse/glimpse/storage"
)

func TestLookupSaysWhichLayerAnsweredFromAsTheMetricsCountIt(t *testing.T) {
	dir := t.TempDir()
	shared, err := storage.NewLocal(storage.LocalConfig{Dir: dir, PublicBaseURL: "http://127.0.0.1:1/files/"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { shared.Close() })
	now := time.Now()

	// One replica writes the entries; another, sharing the store, reads them.
	writer, _ := newTestCache(1<<20, shared)
	writer.Put(cacheEntry("k-shared", "from the store", now, time.Hour))
	writer.Put(cacheEntry("k-expired", "expired in the store", now.Add(-2*time.Hour), time.Hour))
	sharedEntryStored(t, shared, "k-shared")
	sharedEntryStored(t, shared, "k-expired")
	if err := writer.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}

	reader, _ := newTestCache(1<<20, shared)
	reader.Put(cacheEntry("k-memory", "in memory", now, time.Hour))
	memoryOnly, _ := newTestCache(1<<20, nil)

	steps := []struct {
		name  string
		c     *Cache
		key   string
		found bool
		from  string
	}{
		{"an entry this replica holds is from memory", reader, "k-memory", true, metrics.CacheFromMemory},
		{"an entry only another replica wrote is from the shared store", reader, "k-shared", true, metrics.CacheFromShared},
		{"the same entry, read again, is from memory: the store's copy was kept", reader, "k-shared", true, metrics.CacheFromMemory},
		{"an entry expired in the store is not found", reader, "k-expired", false, ""},
		{"an unknown key is not found", reader, "k-unknown", false, ""},
		{"without a shared store only memory answers", memoryOnly, "k-shared", false, ""},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			e, from := s.c.Lookup(context.Background(), s.key, now)
			if (e != nil) != s.found || from != s.from {
				t.Errorf("Lookup(%q) found %v from %q; want found %v from %q", s.key, e != nil, from, s.found, s.from)
			}
			if e != nil && e.Key != s.key {
				t.Errorf("Lookup(%q) returned the entry of %q", s.key, e.Key)
			}
		})
	}
}
