package api

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/glimpse/glimpse/orchestrator/quota"
	"github.com/glimpse/glimpse/orchestrator/quota/redistest"
	"github.com/glimpse/glimpse/sidecar/guard"
)

// quotaServer is the API without a browser, on limiter, with a clock fixed
// at now: it answers meta=false requests, which are counted like any other.
func quotaServer(t *testing.T, limiter quota.Limiter, plans *quota.Plans, now time.Time) *httptest.Server {
	t.Helper()
	s := NewServer(Config{Region: "test"}, Deps{
		Plans:   plans,
		Limiter: limiter,
		Policy:  guard.NewPolicy([]netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}),
		Logger:  slog.New(slog.DiscardHandler),
	})
	s.SetClock(func() time.Time { return now })
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(hs.Close)
	return hs
}

func redisLimiter(t *testing.T, srv *redistest.Server) *quota.Redis {
	t.Helper()
	r, err := quota.NewRedis(context.Background(), quota.RedisConfig{URL: srv.URL(), Logger: slog.New(slog.DiscardHandler),
		RetryAfter: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// quotaAnswer is what a caller learns about its quota from one answer.
type quotaAnswer struct {
	status                                    int
	limit, remaining, reset, retryAfter, plan string
}

func askQuota(t *testing.T, hs *httptest.Server, rawQuery string) quotaAnswer {
	t.Helper()
	resp, err := hs.Client().Get(hs.URL + "/?" + rawQuery)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	h := resp.Header
	return quotaAnswer{resp.StatusCode, h.Get("x-rate-limit-limit"), h.Get("x-rate-limit-remaining"), h.Get("x-rate-limit-reset"),
		h.Get("retry-after"), h.Get("x-pricing-plan")}
}

func TestReplicasOnOneRedisAnswerQuotasAsOneServer(t *testing.T) {
	plans, err := quota.ParsePlans([]byte(`
anonymous: {name: walk-in, limit: 4, window: 1h}
plans: [{name: pro, limit: 3, window: 1h}]
keys: [{key: k-outage-1, plan: pro}]
`))
	if err != nil {
		t.Fatal(err)
	}
	srv := redistest.New(t, "quota-pass")
	// Mid-second, so the rounded-up reset is exercised.
	now := time.Date(2026, 11, 20, 10, 0, 0, 250_000_000, time.UTC)
	replicas := []*httptest.Server{
		quotaServer(t, redisLimiter(t, srv), plans, now),
		quotaServer(t, redisLimiter(t, srv), plans, now),
	}
	single := quotaServer(t, quota.NewMemory(), plans, now)

	target := "url=" + url.QueryEscape("http://127.0.0.1:1/")
	steps := []struct {
		query  string
		status int
	}{
		{target + "&meta=false", http.StatusOK},
		{target + "&meta=false&pdf.scale=9", http.StatusBadRequest}, // not counted, but told where the window stands
		{target + "&meta=false", http.StatusOK},
		{target + "&meta=false", http.StatusOK},
		{target + "&meta=false", http.StatusOK},
		{target + "&meta=false", http.StatusTooManyRequests},
		{target + "&meta=false&pdf.scale=9", http.StatusBadRequest},
		{target + "&meta=false", http.StatusTooManyRequests},
	}
	for i, s := range steps {
		got := askQuota(t, replicas[i%2], s.query)
		want := askQuota(t, single, s.query)
		if got != want || got.status != s.status {
			t.Errorf("request %d on replica %d: %+v; one server alone answers %+v (status %d)", i+1, i%2+1, got, want, s.status)
		}
	}
	if got := askQuota(t, replicas[0], target+"&meta=false"); got.remaining != "0" || got.reset != strconv.FormatInt(now.Add(time.Hour).Unix()+1, 10) || got.retryAfter != "3600" {
		t.Errorf("the refusal carries %+v, want 0 remaining, the reset rounded up and retry-after of the window", got)
	}

	t.Run("with Redis gone the replicas keep answering, each counting on its own", func(t *testing.T) {
		const key = "k-outage-1"
		ask := func(r *httptest.Server) quotaAnswer {
			req, _ := http.NewRequest(http.MethodGet, r.URL+"/?"+target+"&meta=false", nil)
			req.Header.Set("x-api-key", key)
			resp, err := r.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			io.Copy(io.Discard, resp.Body)
			return quotaAnswer{status: resp.StatusCode, remaining: resp.Header.Get("x-rate-limit-remaining"), plan: resp.Header.Get("x-pricing-plan")}
		}
		if got := ask(replicas[0]); got.status != http.StatusOK || got.remaining != "2" || got.plan != "pro" {
			t.Fatalf("the key's first request: %+v", got)
		}
		srv.Stop(t)
		// Replica 1 goes on from the shared count it last saw; replica 2
		// never saw this caller and counts from zero.
		for i, want := range []struct {
			replica, status int
			remaining       string
		}{
			{0, 200, "1"}, {0, 200, "0"}, {0, 429, "0"},
			{1, 200, "2"}, {1, 200, "1"}, {1, 200, "0"}, {1, 429, "0"},
		} {
			got := ask(replicas[want.replica])
			if got.status != want.status || got.remaining != want.remaining {
				t.Errorf("request %d during the outage, on replica %d: %+v, want %d with %s remaining", i+1, want.replica+1, got, want.status, want.remaining)
			}
		}
	})
}

// An IPv6 subscriber holds a whole /64: its addresses share one anonymous
// quota, in memory and in Redis alike, while another /64 and each IPv4
// address count apart.
func TestAnonymousCallersShareAQuotaPerIPv6Network(t *testing.T) {
	plans, err := quota.ParsePlans([]byte("anonymous: {name: walk-in, limit: 2, window: 1h}\n"))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	srv := redistest.New(t, "quota-net")
	limiters := map[string]quota.Limiter{"memory": quota.NewMemory(), "redis": redisLimiter(t, srv)}
	for name, limiter := range limiters {
		t.Run(name, func(t *testing.T) {
			s := NewServer(Config{Region: "test", TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}}, Deps{
				Plans: plans, Limiter: limiter,
				Policy: guard.NewPolicy([]netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}),
				Logger: slog.New(slog.DiscardHandler),
			})
			s.SetClock(func() time.Time { return now })
			hs := httptest.NewServer(s.Handler())
			defer hs.Close()
			target := "url=" + url.QueryEscape("http://127.0.0.1:1/") + "&meta=false"
			for i, step := range []struct {
				from   string
				status int
			}{
				{"2001:db8:1:2::1", 200},
				{"2001:db8:1:2:aaaa::9", 200},
				{"2001:db8:1:2:ffff:ffff:ffff:ffff", 429},
				{"2001:db8:1:3::1", 200},
				{"198.51.100.7", 200},
				{"198.51.100.8", 200},
			} {
				req, _ := http.NewRequest(http.MethodGet, hs.URL+"/?"+target, nil)
				req.Header.Set("X-Forwarded-For", step.from)
				resp, err := hs.Client().Do(req)
				if err != nil {
					t.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != step.status {
					t.Errorf("request %d from %s: %d, want %d", i+1, step.from, resp.StatusCode, step.status)
				}
			}
		})
	}
}
