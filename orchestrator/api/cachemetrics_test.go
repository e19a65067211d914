package api

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/glimpse/glimpse/metrics"
	"github.com/glimpse/glimpse/orchestrator/cache"
	"github.com/glimpse/glimpse/orchestrator/query"
	"github.com/glimpse/glimpse/storage"
)

// TestCacheHitsAreCountedByTheLayerThatAnswered runs two replicas on one
// shared store: what one rendered, the other answers from the store first
// and from its memory after. No browser is needed; every answer is a hit.
func TestCacheHitsAreCountedByTheLayerThatAnswered(t *testing.T) {
	shared, err := storage.NewLocal(storage.LocalConfig{Dir: t.TempDir(), PublicBaseURL: "http://127.0.0.1:1/files/"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { shared.Close() })
	replica := func() *Server {
		return NewServer(Config{Region: "test"}, Deps{Store: shared, Registry: metrics.NewRegistry(),
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	}
	first, second := replica(), replica()

	const raw = "url=https://example.com/layered"
	req, err := query.Parse(raw, query.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	first.Cache().Put(&cache.Entry{Key: query.Key(req), Body: []byte(`{"status":"success","data":{}}`), ETag: `"e"`,
		Created: now, Expires: now.Add(time.Hour), TTL: time.Hour, FetchMode: "prerender"})
	if err := first.Cache().Wait(context.Background()); err != nil {
		t.Fatal(err)
	}

	get := func(s *Server) {
		t.Helper()
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/?"+raw, nil))
		if rec.Code != http.StatusOK || rec.Header().Get("x-cache-status") != "HIT" {
			t.Fatalf("GET /?%s answered %d with x-cache-status %q, want a 200 from the cache: %s",
				raw, rec.Code, rec.Header().Get("x-cache-status"), rec.Body)
		}
	}
	get(first)
	get(second)
	get(second)
	get(second)

	counts := []struct {
		name           string
		s              *Server
		result, source string
		want           float64
	}{
		{"the replica that rendered answers from its memory", first, metrics.CacheHit, metrics.CacheFromMemory, 1},
		{"the replica that rendered never reads the store", first, metrics.CacheHit, metrics.CacheFromShared, 0},
		{"the other replica reads the store once", second, metrics.CacheHit, metrics.CacheFromShared, 1},
		{"and then answers from its memory", second, metrics.CacheHit, metrics.CacheFromMemory, 2},
		{"no hit is counted as stale", second, metrics.CacheStale, metrics.CacheFromMemory, 0},
		{"no hit is counted as a miss", second, metrics.CacheMiss, metrics.CacheFromRender, 0},
	}
	for _, c := range counts {
		t.Run(c.name, func(t *testing.T) {
			if got := testutil.ToFloat64(c.s.Metrics().Cache.WithLabelValues(c.result, c.source)); got != c.want {
				t.Errorf("glimpse_cache_requests_total{result=%q,source=%q} = %v, want %v", c.result, c.source, got, c.want)
			}
		})
	}
}
