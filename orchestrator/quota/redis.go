package quota

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// Defaults of RedisConfig.
const (
	DefaultRedisTimeout    = 500 * time.Millisecond
	DefaultRedisRetryAfter = 2 * time.Second
)

// keyPrefix is put before every window key glimpse keeps in Redis.
const keyPrefix = "glimpse:quota:"

// expiryMargin keeps a window in Redis a while past its end, so that a
// replica whose clock runs a little behind still finds it until it ends by
// that clock. The window's end itself is in the key, not in its expiry.
const expiryMargin = time.Minute

// windowScript counts a request in the caller's window, or only reads it,
// in one atomic step. The window's end is the caller's clock plus the
// plan's window, exactly as Memory keeps it, held as seconds and
// nanoseconds because Lua's numbers cannot hold Unix nanoseconds whole.
//
// KEYS[1] the window. ARGV: now (s, ns); the end of a window starting now
// (s, ns); its expiry in ms; the limit; 1 to count, 0 to read.
// Returns {count, end s, end ns, 1 when counted}.
var windowScript = redis.NewScript(`
local now_s, now_ns = tonumber(ARGV[1]), tonumber(ARGV[2])
local w = redis.call('HMGET', KEYS[1], 'end_s', 'end_ns', 'count')
local end_s, end_ns, count = tonumber(w[1]), tonumber(w[2]), tonumber(w[3])
local fresh = false
if end_s == nil or end_ns == nil or count == nil or now_s > end_s or (now_s == end_s and now_ns >= end_ns) then
  end_s, end_ns, count, fresh = tonumber(ARGV[3]), tonumber(ARGV[4]), 0, true
end
if ARGV[7] ~= '1' or count >= tonumber(ARGV[6]) then
  return {count, end_s, end_ns, 0}
end
count = count + 1
redis.call('HSET', KEYS[1], 'end_s', end_s, 'end_ns', end_ns, 'count', count)
if fresh then
  redis.call('PEXPIRE', KEYS[1], ARGV[5])
end
return {count, end_s, end_ns, 1}
`)

// RedisConfig is how to reach the shared count.
type RedisConfig struct {
	// URL is redis://[[user]:password@]host[:port][/db], or rediss:// for
	// TLS (GLIMPSE_REDIS_URL).
	URL    string
	Logger *slog.Logger
	// OnError is called once for each operation Redis failed, each one
	// answered from this replica's memory instead (a metric counts them).
	OnError func()
	// Timeout bounds one operation; DefaultRedisTimeout when zero.
	Timeout time.Duration
	// RetryAfter is how long after a failure quotas are counted in memory
	// before Redis is asked again, so an outage does not slow every
	// request by a time-out; DefaultRedisRetryAfter when zero.
	RetryAfter time.Duration
}

// Redis is the Limiter shared by every replica: the count of each window
// is kept in Redis, so N replicas admit a plan's limit once, not N times,
// and a restarted replica goes on from the shared count.
//
// It fails open. When Redis cannot be reached or refuses, requests are
// counted in this replica's memory, going on from the last count Redis
// gave for each caller, until Redis answers again: a plan may then admit
// up to its limit on each replica, but callers keep being answered. The
// outage is logged once when it starts and once when it ends; every failed
// operation calls OnError.
type Redis struct {
	client     *redis.Client
	local      *Memory
	log        *slog.Logger
	onError    func()
	timeout    time.Duration
	retryAfter time.Duration

	down    atomic.Bool
	retryAt atomic.Int64 // Unix ns before which Redis is not asked
}

var _ Limiter = (*Redis)(nil)

// NewRedis connects to the Redis of cfg.URL. Only a URL that cannot be used
// is an error: a Redis that does not answer yet is the outage NewRedis
// logs, and quotas are counted in memory until it answers.
func NewRedis(ctx context.Context, cfg RedisConfig) (*Redis, error) {
	opts, err := parseRedisURL(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("GLIMPSE_REDIS_URL %w", err)
	}
	r := &Redis{local: NewMemory(), log: cfg.Logger, onError: cfg.OnError, timeout: cfg.Timeout, retryAfter: cfg.RetryAfter}
	if r.log == nil {
		r.log = slog.Default()
	}
	if r.timeout <= 0 {
		r.timeout = DefaultRedisTimeout
	}
	if r.retryAfter <= 0 {
		r.retryAfter = DefaultRedisRetryAfter
	}
	// Time-outs the URL does not set are short: a request waits for its
	// quota, and memory answers when Redis does not.
	if opts.DialTimeout == 0 {
		opts.DialTimeout = r.timeout
	}
	if opts.ReadTimeout == 0 {
		opts.ReadTimeout = r.timeout
	}
	if opts.WriteTimeout == 0 {
		opts.WriteTimeout = r.timeout
	}
	if opts.DialerRetries == 0 {
		opts.DialerRetries = 1
	}
	if opts.MaxRetries == 0 {
		opts.MaxRetries = 1 // one more try on a fresh connection after Redis restarted
	}
	opts.ContextTimeoutEnabled = true
	opts.DisableIdentity = true
	opts.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
	// go-redis writes a line to stderr for every connection it fails to
	// make; the outage is logged once, here, and its lines are debug ones.
	quietClientLog.Do(func() { redis.SetLogger(clientLog{}) })
	r.client = redis.NewClient(opts)

	pctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	if err := r.client.Ping(pctx).Err(); err != nil {
		r.failed(err)
	} else {
		r.log.Info("quotas are counted in Redis, shared by every replica", "redis", redactURL(cfg.URL))
	}
	return r, nil
}

// Close closes the connections to Redis.
func (r *Redis) Close() error { return r.client.Close() }

// Take counts one request of caller id under plan.
func (r *Redis) Take(ctx context.Context, id string, plan *Plan, now time.Time) Quota {
	return r.window(ctx, id, plan, now, true)
}

// Peek reports the caller's window without counting a request.
func (r *Redis) Peek(ctx context.Context, id string, plan *Plan, now time.Time) Quota {
	return r.window(ctx, id, plan, now, false)
}

func (r *Redis) window(ctx context.Context, id string, plan *Plan, now time.Time, take bool) Quota {
	if time.Now().UnixNano() < r.retryAt.Load() {
		return r.fromMemory(ctx, id, plan, now, take)
	}
	octx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	end := now.Add(plan.Window)
	counting := 0
	if take {
		counting = 1
	}
	expiry := (plan.Window + expiryMargin).Milliseconds()
	res, err := windowScript.Run(octx, r.client, []string{keyPrefix + windowKey(id, plan)},
		now.Unix(), now.Nanosecond(), end.Unix(), end.Nanosecond(), expiry, plan.Limit, counting).Int64Slice()
	if err == nil && len(res) != 4 {
		err = fmt.Errorf("the quota script answered %d values, want 4", len(res))
	}
	if err != nil {
		if ctx.Err() == nil {
			r.failed(err)
		}
		// A caller who went away is no outage; memory answers them too.
		return r.fromMemory(ctx, id, plan, now, take)
	}
	if r.down.Load() && r.down.Swap(false) {
		r.log.Info("Redis is back: quotas are counted there again, shared by every replica")
	}
	count, reset, counted := int(res[0]), time.Unix(res[1], res[2]), res[3] == 1
	q := Quota{Limit: plan.Limit, Reset: reset}
	switch {
	case counted:
		q.Allowed, q.Remaining = true, plan.Limit-count
	case !take:
		q.Allowed, q.Remaining = count < plan.Limit, max(plan.Limit-count, 0)
	}
	if take {
		r.local.remember(id, plan, reset, count, now)
	}
	return q
}

func (r *Redis) fromMemory(ctx context.Context, id string, plan *Plan, now time.Time, take bool) Quota {
	if take {
		return r.local.Take(ctx, id, plan, now)
	}
	return r.local.Peek(ctx, id, plan, now)
}

// failed starts or extends an outage: memory counts until RetryAfter has
// passed.
func (r *Redis) failed(err error) {
	r.retryAt.Store(time.Now().Add(r.retryAfter).UnixNano())
	if r.onError != nil {
		r.onError()
	}
	if !r.down.Swap(true) {
		r.log.Warn("Quotas cannot be counted in Redis, so each replica counts its callers in its own memory until it reaches Redis again; meanwhile a plan may admit its limit on each replica.",
			"err", err, "retry_every", r.retryAfter)
	}
}

// CheckRedisURL says what is wrong with a GLIMPSE_REDIS_URL value, never
// repeating its password; nil when it can be used.
func CheckRedisURL(raw string) error {
	_, err := parseRedisURL(raw)
	return err
}

// parseRedisURL reads a redis:// or rediss:// URL into client options. Its
// errors read after the variable's name and never hold the password.
func parseRedisURL(raw string) (*redis.Options, error) {
	const want = "want redis://[:password@]host[:port][/db], or rediss://… for TLS"
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("is not a URL; %s", want)
	}
	shown := u.Redacted()
	if u.Scheme != "redis" && u.Scheme != "rediss" {
		return nil, fmt.Errorf("%q does not start with redis:// or rediss://; %s", shown, want)
	}
	if u.Hostname() == "" {
		return nil, fmt.Errorf("%q names no host; %s", shown, want)
	}
	// go-redis names the part it could not read (database, option), never
	// the password.
	opts, err := redis.ParseURL(raw)
	if err != nil {
		return nil, fmt.Errorf("%q cannot be used (%v); %s", shown, err, want)
	}
	return opts, nil
}

// redactURL is a URL fit for logs: its password replaced.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "<unparseable>"
	}
	return u.Redacted()
}

var quietClientLog sync.Once

// clientLog passes go-redis's own log lines to the default logger at debug
// level.
type clientLog struct{}

func (clientLog) Printf(ctx context.Context, format string, v ...any) {
	slog.Default().DebugContext(ctx, "go-redis: "+fmt.Sprintf(format, v...))
}
