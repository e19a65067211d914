package api

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/glimpse/glimpse/orchestrator/cache"
	"github.com/glimpse/glimpse/sidecar/guard"
	"github.com/glimpse/glimpse/storage"
	"github.com/glimpse/glimpse/storage/miniotest"
)

// A shared store that hangs costs each request a lookup of the store's own
// budget, not the request's, and /readyz says the store is left out.
func TestAHungSharedStoreDoesNotHoldRequests(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a MinIO server; skipped with -short")
	}
	srv := miniotest.New(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s3, err := storage.NewS3(ctx, storage.S3Config{Endpoint: srv.Endpoint, Bucket: "hung-api",
		AccessKey: srv.AccessKey, SecretKey: srv.SecretKey})
	if err != nil {
		t.Fatal(err)
	}
	defer s3.Close()
	s := NewServer(Config{Region: "test"}, Deps{
		Store:  s3,
		Policy: guard.NewPolicy([]netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}),
		Logger: slog.New(slog.DiscardHandler),
	})
	hs := httptest.NewServer(s.Handler())
	defer hs.Close()
	srv.Pause(t)

	for i := range 5 {
		start := time.Now()
		resp, err := hs.Client().Get(hs.URL + "/?meta=false&url=" + url.QueryEscape("http://127.0.0.1:1/p"+string(rune('a'+i))))
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if d := time.Since(start); resp.StatusCode != http.StatusOK || d > cache.SharedReadBudget+time.Second {
			t.Errorf("request %d with the store hung: %d after %s", i+1, resp.StatusCode, d)
		}
	}
	resp, err := hs.Client().Get(hs.URL + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var ready map[string]string
	_ = json.NewDecoder(resp.Body).Decode(&ready)
	if !strings.HasPrefix(ready["shared_cache"], "bypassed") || ready["status"] == "ok" {
		t.Errorf("/readyz says %v with the shared store hung", ready)
	}
}
