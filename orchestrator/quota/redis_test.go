package quota

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/glimpse/glimpse/orchestrator/quota/redistest"
)

func startRedis(t *testing.T, password string) *redistest.Server {
	t.Helper()
	return redistest.New(t, password)
}

// testLog keeps what a limiter logs, for counting its lines.
type testLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *testLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *testLog) count(s string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Count(l.buf.String(), s)
}

func (l *testLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// newTestRedis is a limiter on srv, closed when the test ends; adjust
// changes its configuration first.
func newTestRedis(t *testing.T, srv *redistest.Server, adjust func(*RedisConfig)) *Redis {
	t.Helper()
	cfg := RedisConfig{URL: srv.URL(), Logger: slog.New(slog.DiscardHandler)}
	if adjust != nil {
		adjust(&cfg)
	}
	r, err := NewRedis(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

const (
	outageLine   = "Quotas cannot be counted in Redis"
	recoveryLine = "Redis is back"
)

func TestRedisLimiterSharesOneCountAmongReplicas(t *testing.T) {
	ctx := context.Background()
	srv := startRedis(t, "")
	plan := &Plan{Name: "five", Limit: 5, Window: time.Hour}
	t0 := time.Now()

	t.Run("two replicas on one Redis admit the plan's limit once, not twice", func(t *testing.T) {
		replicas := []Limiter{newTestRedis(t, srv, nil), newTestRedis(t, srv, nil)}
		admitted := 0
		var resets []time.Time
		for i := range 12 {
			q := replicas[i%2].Take(ctx, "key:shared", plan, t0.Add(time.Duration(i)*time.Millisecond))
			if q.Allowed {
				admitted++
				if q.Remaining != plan.Limit-admitted {
					t.Errorf("request %d on replica %d: %d remaining, want %d", i+1, i%2+1, q.Remaining, plan.Limit-admitted)
				}
			}
			resets = append(resets, q.Reset)
		}
		if admitted != plan.Limit {
			t.Errorf("two replicas admitted %d requests of a plan of %d", admitted, plan.Limit)
		}
		for i, r := range resets {
			if !r.Equal(t0.Add(plan.Window)) {
				t.Errorf("request %d saw the window end at %s, want %s, when the first request came", i+1, r, t0.Add(plan.Window))
			}
		}
		for i, l := range replicas {
			if q := l.Peek(ctx, "key:shared", plan, t0); q.Allowed || q.Remaining != 0 {
				t.Errorf("replica %d peeks %+v at a window the other used up", i+1, q)
			}
		}
	})

	t.Run("a restarted replica goes on from the shared count", func(t *testing.T) {
		first := newTestRedis(t, srv, nil)
		for range 3 {
			first.Take(ctx, "key:restart", plan, t0)
		}
		first.Close()
		again := newTestRedis(t, srv, nil)
		if q := again.Take(ctx, "key:restart", plan, t0.Add(time.Minute)); !q.Allowed || q.Remaining != 1 || !q.Reset.Equal(t0.Add(plan.Window)) {
			t.Errorf("the fourth request, after a restart: %+v, want 1 remaining in the same window", q)
		}
	})

	t.Run("a window is deleted from Redis after it ends", func(t *testing.T) {
		short := &Plan{Name: "short", Limit: 5, Window: 10 * time.Second}
		newTestRedis(t, srv, nil).Take(ctx, "key:expiry", short, t0)
		c := redis.NewClient(&redis.Options{Addr: srv.Addr})
		defer c.Close()
		ttl, err := c.PTTL(ctx, keyPrefix+windowKey("key:expiry", short)).Result()
		if err != nil {
			t.Fatal(err)
		}
		if ttl <= short.Window || ttl > short.Window+expiryMargin {
			t.Errorf("the window expires in %s, want a little more than its %s", ttl, short.Window)
		}
	})
}

func TestRedisLimiterAnswersLikeTheMemoryOne(t *testing.T) {
	ctx := context.Background()
	srv := startRedis(t, "")
	plans := []*Plan{
		{Name: "three", Limit: 3, Window: 1500 * time.Millisecond},
		{Name: "one", Limit: 1, Window: time.Second},
	}
	mem, red := NewMemory(), newTestRedis(t, srv, nil)
	t0 := time.Date(2026, 11, 20, 10, 0, 59, 999_999_999, time.UTC)
	at := t0
	for i := range 40 {
		plan := plans[i%3%2]
		caller := []string{"ip:192.0.2.1", "key:0123456789abcdef"}[i%2]
		var m, r Quota
		if i%5 == 4 {
			m, r = mem.Peek(ctx, caller, plan, at), red.Peek(ctx, caller, plan, at)
		} else {
			m, r = mem.Take(ctx, caller, plan, at), red.Take(ctx, caller, plan, at)
		}
		if m.Allowed != r.Allowed || m.Limit != r.Limit || m.Remaining != r.Remaining || !m.Reset.Equal(r.Reset) {
			t.Errorf("step %d at %s, %s on %s: memory says %+v, Redis %+v", i+1, at.Format(time.RFC3339Nano), caller, plan.Name, m, r)
		}
		at = at.Add(time.Duration(137+i*31) * time.Millisecond)
	}
}

func TestRedisLimiterFailsOpenWhenRedisGoesAway(t *testing.T) {
	ctx := context.Background()
	srv := startRedis(t, "")
	var log testLog
	var errs atomic.Int32
	l := newTestRedis(t, srv, func(c *RedisConfig) {
		c.Logger = slog.New(slog.NewTextHandler(&log, nil))
		c.OnError = func() { errs.Add(1) }
		c.RetryAfter = 300 * time.Millisecond
	})
	plan := &Plan{Name: "five", Limit: 5, Window: time.Hour}
	t0 := time.Now()
	for range 2 {
		l.Take(ctx, "key:a", plan, t0)
	}

	srv.Stop(t)
	// Remaining goes on from the last shared count, 3, in this replica.
	for i, want := range []int{2, 1, 0} {
		start := time.Now()
		q := l.Take(ctx, "key:a", plan, t0)
		if took := time.Since(start); took > 2*time.Second {
			t.Errorf("request %d during the outage waited %s for its quota", i+1, took)
		}
		if !q.Allowed || q.Remaining != want {
			t.Errorf("request %d during the outage: %+v, want admitted with %d remaining", i+1, q, want)
		}
	}
	if q := l.Take(ctx, "key:a", plan, t0); q.Allowed {
		t.Errorf("the sixth request was admitted during the outage: %+v", q)
	}
	if q := l.Take(ctx, "ip:192.0.2.9", plan, t0); !q.Allowed || q.Remaining != 4 {
		t.Errorf("a new caller during the outage: %+v, want admitted with 4 remaining", q)
	}
	if errs.Load() == 0 {
		t.Error("no failed operation was reported to OnError")
	}
	time.Sleep(400 * time.Millisecond) // past RetryAfter: Redis is asked again, and fails again
	before := errs.Load()
	l.Take(ctx, "ip:192.0.2.9", plan, t0)
	if errs.Load() == before {
		t.Error("after RetryAfter, Redis was not asked again")
	}
	if n := log.count(outageLine); n != 1 {
		t.Errorf("the outage was logged %d times, want once:\n%s", n, log.String())
	}

	srv.Start(t) // empty: nothing was saved
	time.Sleep(400 * time.Millisecond)
	if q := l.Take(ctx, "key:a", plan, t0.Add(time.Minute)); !q.Allowed || q.Remaining != 4 || !q.Reset.Equal(t0.Add(time.Minute+plan.Window)) {
		t.Errorf("the first request after Redis came back empty: %+v, want a fresh shared window", q)
	}
	l.Take(ctx, "key:a", plan, t0.Add(time.Minute))
	if n := log.count(recoveryLine); n != 1 {
		t.Errorf("the end of the outage was logged %d times, want once:\n%s", n, log.String())
	}
	if n := log.count(outageLine); n != 1 {
		t.Errorf("the outage was logged %d times, want once:\n%s", n, log.String())
	}
}

func TestRedisLimiterStartsWithoutRedis(t *testing.T) {
	ctx := context.Background()
	srv := startRedis(t, "")
	srv.Stop(t) // a free address where nothing listens
	var log testLog
	var errs atomic.Int32
	l := newTestRedis(t, srv, func(c *RedisConfig) {
		c.Logger = slog.New(slog.NewTextHandler(&log, nil))
		c.OnError = func() { errs.Add(1) }
	})
	plan := &Plan{Name: "two", Limit: 2, Window: time.Hour}
	for i, want := range []bool{true, true, false} {
		if q := l.Take(ctx, "key:a", plan, time.Now()); q.Allowed != want {
			t.Errorf("request %d: %+v, want allowed %t, counted in memory", i+1, q, want)
		}
	}
	if errs.Load() == 0 || log.count(outageLine) != 1 {
		t.Errorf("a Redis that is down at start is not reported: %d errors, log:\n%s", errs.Load(), log.String())
	}
}

func TestRedisLimiterLogsInWithAPassword(t *testing.T) {
	ctx := context.Background()
	const password = "s3cret-quota-pass"
	srv := startRedis(t, password)
	plan := &Plan{Name: "two", Limit: 2, Window: time.Hour}

	t.Run("the right password counts in Redis", func(t *testing.T) {
		var errs atomic.Int32
		replicas := []*Redis{
			newTestRedis(t, srv, func(c *RedisConfig) { c.OnError = func() { errs.Add(1) } }),
			newTestRedis(t, srv, func(c *RedisConfig) { c.OnError = func() { errs.Add(1) } }),
		}
		replicas[0].Take(ctx, "key:a", plan, time.Now())
		replicas[1].Take(ctx, "key:a", plan, time.Now())
		if q := replicas[0].Take(ctx, "key:a", plan, time.Now()); q.Allowed {
			t.Errorf("a third request of a plan of 2 was admitted: %+v", q)
		}
		if n := errs.Load(); n != 0 {
			t.Errorf("%d operations failed", n)
		}
	})

	for name, url := range map[string]string{
		"a wrong password": "redis://:wrong-password@" + srv.Addr + "/0",
		"no password":      "redis://" + srv.Addr + "/0",
	} {
		t.Run(name+" is an outage, logged without the password, and requests are still answered", func(t *testing.T) {
			var log testLog
			var errs atomic.Int32
			l := newTestRedis(t, srv, func(c *RedisConfig) {
				c.URL = url
				c.Logger = slog.New(slog.NewTextHandler(&log, nil))
				c.OnError = func() { errs.Add(1) }
			})
			if q := l.Take(ctx, "key:b", plan, time.Now()); !q.Allowed || q.Remaining != 1 {
				t.Errorf("got %+v, want admitted from memory", q)
			}
			if errs.Load() == 0 || log.count(outageLine) != 1 {
				t.Errorf("the refusal is not reported: %d errors, log:\n%s", errs.Load(), log.String())
			}
			if strings.Contains(log.String(), "wrong-password") || strings.Contains(log.String(), password) {
				t.Errorf("the log holds a password:\n%s", log.String())
			}
		})
	}
}

func TestRedisURLs(t *testing.T) {
	good := []string{
		"redis://localhost:6379/0",
		"redis://:p%40ss@redis.glimpse.svc.cluster.local:6379/2",
		"redis://quota:pass@10.0.0.7",
		"rediss://:pass@cache.example.com:6380/0",
		"redis://[::1]:6379",
	}
	for _, u := range good {
		t.Run("accepted: "+u, func(t *testing.T) {
			if err := CheckRedisURL(u); err != nil {
				t.Errorf("refused: %v", err)
			}
		})
	}
	bad := []struct{ name, url, want string }{
		{"a URL of another scheme", "http://:hunter2@localhost:6379", "does not start with redis:// or rediss://"},
		{"a host and port without a scheme", "localhost:6379", "does not start with redis://"},
		{"no host", "redis://:hunter2@/0", "names no host"},
		{"a database that is not a number", "redis://:hunter2@localhost:6379/quotas", "cannot be used"},
		{"an option go-redis does not know", "redis://:hunter2@localhost:6379/0?colour=blue", "cannot be used"},
		{"text that is not a URL", "redis://:hunter2@local host:6379", "is not a URL"},
	}
	for _, c := range bad {
		t.Run("refused: "+c.name, func(t *testing.T) {
			err := CheckRedisURL(c.url)
			if err == nil {
				t.Fatal("accepted")
			}
			if !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "want redis://") {
				t.Errorf("%q does not say %q and what is accepted", err, c.want)
			}
			if strings.Contains(err.Error(), "hunter2") {
				t.Errorf("the error repeats the password: %q", err)
			}
			if _, err := NewRedis(context.Background(), RedisConfig{URL: c.url}); err == nil || !strings.Contains(err.Error(), "GLIMPSE_REDIS_URL") {
				t.Errorf("NewRedis: %v, want an error naming GLIMPSE_REDIS_URL", err)
			}
		})
	}
}
