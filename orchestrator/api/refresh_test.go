package api

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/glimpse/glimpse/orchestrator/cache"
	"github.com/glimpse/glimpse/orchestrator/query"
	"github.com/glimpse/glimpse/storage"
)

// lockedBuffer is a log destination read while the server writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// A caller who read the stale entry a moment before an earlier refresh
// stored its answer asks for a refresh that is already done: it renders
// nothing. An entry still inside its refresh window is rendered again.
// The server has no browser, so a render that runs fails, and says so in
// the log: that is how the test tells a render from none.
func TestARefreshOfAnEntryAlreadyRenewedRendersNothing(t *testing.T) {
	local, err := storage.NewLocal(storage.LocalConfig{Dir: t.TempDir(), PublicBaseURL: "http://127.0.0.1:1/files/"})
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	req, err := query.Parse("url=https://example.com/refreshed&ttl=10m&staleTtl=4m&prerender=false", query.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		age      time.Duration // of the entry in the cache when the refresh starts
		rendered bool
	}{
		{"an entry renewed a moment ago", time.Second, false},
		{"an entry inside its refresh window", 7 * time.Minute, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var log lockedBuffer
			s := NewServer(Config{Region: "test"}, Deps{Store: local, Logger: slog.New(slog.NewTextHandler(&log, nil))})
			created := time.Now().Add(-tc.age)
			s.cache.Put(&cache.Entry{Key: query.Key(req), Body: []byte(`{"status":"success","data":{}}`), ETag: `"e"`,
				Created: created, Expires: created.Add(10 * time.Minute), TTL: 10 * time.Minute, FetchMode: "fetch"})
			s.refresh(req, query.Key(req))
			if err := s.Drain(context.Background()); err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(log.String(), "refreshing a stale cache entry failed"); got != tc.rendered {
				t.Errorf("the refresh rendered: %t, want %t; log:\n%s", got, tc.rendered, log.String())
			}
		})
	}
}
