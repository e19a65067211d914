package pool

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/glimpse/glimpse/cdp"
	"github.com/glimpse/glimpse/metrics"
)

// ErrBusy means every sidecar is at its limit and the wait queue is full.
// The caller should answer "try again later", not wait.
var ErrBusy = errors.New("every browser is busy and the wait queue is full")

// ErrNoSidecar means no healthy sidecar came free before the caller's
// context ended.
var ErrNoSidecar = errors.New("no browser became available in time")

// ErrUnavailable means no sidecar is healthy or on its way to it: waiting
// would only spend the caller's timeout.
var ErrUnavailable = errors.New("no browser is healthy or starting")

// unavailableWait is how long a caller waits, with every sidecar down, for
// one to come back before ErrUnavailable: a probe that is about to pass
// still gets its chance.
const unavailableWait = time.Second

// ErrClosed is returned by Lease after Close.
var ErrClosed = errors.New("the browser pool is shut down")

// Config tunes a Pool. Zero values take the defaults noted on each field.
type Config struct {
	// Sidecars is the GLIMPSE_SIDECARS list: host:port entries separated by
	// commas; a name may resolve to many sidecars.
	Sidecars string
	// PerSidecar is how many leases one sidecar serves at once (default 4).
	PerSidecar int
	// QueueSize is how many callers may wait for a lease (default 64).
	QueueSize int
	// Warm is how many ready browser contexts each healthy sidecar keeps
	// ahead of demand, so a lease costs a channel receive (default 1; -1 off).
	Warm int
	// HealthInterval is the time between two health probes (default 1s).
	HealthInterval time.Duration
	// ResolveInterval is the time between two lookups of the sidecar names
	// (default 5s).
	ResolveInterval time.Duration
	// Prepare runs on every fresh lease before it is handed out or kept
	// warm, for per-page set-up that does not depend on the request.
	Prepare func(ctx context.Context, l *Lease) error
	// Resolver looks up sidecar names (default net.DefaultResolver).
	Resolver Resolver
	// HTTPClient probes /healthz (default: a client with short time-outs).
	HTTPClient *http.Client
	// SidecarToken is the sidecars' shared secret (GLIMPSE_SIDECAR_TOKEN),
	// sent as "Authorization: Bearer" on each DevTools connection and as
	// the password of EgressProxyURL. /healthz asks for none, so probes
	// never carry it. Empty sends nothing, for sidecars without a token.
	// Blanks around it are dropped, as the sidecar drops them.
	SidecarToken string
	// OnEventDropped hears of every DevTools event of a lease's browser
	// that was dropped because its reader fell behind; nil ignores them.
	OnEventDropped func(method string)
	// PageReadLimit caps one message on a lease's own connection to its
	// page (0: cdp's default, 256 MiB). A page that makes the browser send
	// more ends that lease alone.
	PageReadLimit int64
	Logger        *slog.Logger
}

// Pool hands out leases on healthy sidecars. It is safe for concurrent use.
type Pool struct {
	cfg Config
	eps []endpoint
	log *slog.Logger
	// auth is the handshake header of every DevTools connection; empty
	// without a token.
	auth http.Header

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu       sync.Mutex
	sidecars map[string]*sidecar
	waiters  []*waiter
	closed   bool
}

type waiter struct {
	granted chan *sidecar // buffered 1: a slot is handed over under p.mu
}

// New checks the configuration; Start begins discovery and health probes.
func New(cfg Config) (*Pool, error) {
	eps, err := ParseSidecars(cfg.Sidecars)
	if err != nil {
		return nil, err
	}
	if cfg.PerSidecar <= 0 {
		cfg.PerSidecar = 4
	}
	if cfg.QueueSize < 0 {
		return nil, fmt.Errorf("queue size %d is negative", cfg.QueueSize)
	}
	if cfg.QueueSize == 0 {
		cfg.QueueSize = 64
	}
	if cfg.Warm == 0 {
		cfg.Warm = 1
	}
	if cfg.Warm < 0 {
		cfg.Warm = 0
	}
	if cfg.HealthInterval <= 0 {
		cfg.HealthInterval = time.Second
	}
	if cfg.ResolveInterval <= 0 {
		cfg.ResolveInterval = 5 * time.Second
	}
	if cfg.Resolver == nil {
		cfg.Resolver = net.DefaultResolver
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 2 * time.Second}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	cfg.SidecarToken = strings.TrimSpace(cfg.SidecarToken)
	auth := http.Header{}
	if cfg.SidecarToken != "" {
		auth.Set("Authorization", "Bearer "+cfg.SidecarToken)
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Pool{
		cfg:      cfg,
		eps:      eps,
		log:      cfg.Logger.With("component", "pool"),
		auth:     auth,
		ctx:      ctx,
		cancel:   cancel,
		sidecars: map[string]*sidecar{},
	}, nil
}

// Start looks up the sidecars once, probes each once (so a pool whose
// sidecars are up is usable when Start returns), then keeps both going in
// the background until Close.
func (p *Pool) Start(ctx context.Context) error {
	addrs, err := resolve(ctx, p.cfg.Resolver, p.eps)
	if err != nil {
		p.log.Warn("the first lookup of the sidecars failed; retrying in the background", "err", err)
	}
	p.sync(addrs)
	var wg sync.WaitGroup
	for _, sc := range p.list() {
		wg.Add(1)
		go func() { defer wg.Done(); sc.probe(ctx) }()
	}
	wg.Wait()
	p.spawn(p.discover)
	return nil
}

// discover follows the configured names as the addresses behind them change.
func (p *Pool) discover() {
	t := time.NewTicker(p.cfg.ResolveInterval)
	defer t.Stop()
	for {
		select {
		case <-p.ctx.Done():
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(p.ctx, 5*time.Second)
		addrs, err := resolve(ctx, p.cfg.Resolver, p.eps)
		cancel()
		if err != nil {
			p.log.Warn("looking up the sidecars failed; keeping the ones already known", "err", err)
			continue
		}
		p.sync(addrs)
	}
}

// sync adds sidecars that appeared and drains those that are gone.
func (p *Pool) sync(addrs []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	for _, a := range addrs {
		if _, ok := p.sidecars[a]; ok {
			continue
		}
		sc := newSidecar(p, a)
		p.sidecars[a] = sc
		p.log.Info("sidecar discovered", "sidecar", a)
		p.goLocked(sc.run)
	}
	for a, sc := range p.sidecars {
		if slices.Contains(addrs, a) || addrs == nil {
			continue
		}
		p.log.Info("sidecar is gone from discovery; draining it", "sidecar", a)
		sc.removeLocked()
	}
}

// goLocked runs fn in a goroutine that Close waits for. The caller holds
// p.mu, which orders the WaitGroup's Add before Close's Wait; once the pool
// is closed fn runs untracked, as Close no longer waits.
func (p *Pool) goLocked(fn func()) {
	if p.closed {
		go fn()
		return
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		fn()
	}()
}

// spawn is goLocked for a caller that does not hold p.mu.
func (p *Pool) spawn(fn func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.goLocked(fn)
}

func (p *Pool) list() []*sidecar {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]*sidecar, 0, len(p.sidecars))
	for _, sc := range p.sidecars {
		out = append(out, sc)
	}
	return out
}

// Lease returns a fresh browser context with one page, attached, on a
// healthy sidecar. It waits in the bounded queue while every sidecar is at
// its limit, fails with ErrBusy when the queue is full, and with the
// context's error (wrapping ErrNoSidecar) when ctx ends first. The caller
// must Release the lease.
func (p *Pool) Lease(ctx context.Context) (*Lease, error) {
	return p.LeaseWith(ctx, LeaseOptions{})
}

// LeaseOptions ask for a page that differs from the ready default.
type LeaseOptions struct {
	// Unfiltered opens a page whose connections go through the sidecar's
	// egress guard without its ad-block list (adblock=false). Such a page
	// is never one of the warm ones, so it costs the opening round trips.
	Unfiltered bool
	// Upstream, when set, is a caller's proxy (a URL, credentials
	// included) that the page's connections leave through after the
	// sidecar's egress guard. Such a page is never a warm one.
	Upstream string
}

// LeaseWith is Lease with options.
func (p *Pool) LeaseWith(ctx context.Context, o LeaseOptions) (*Lease, error) {
	var lastErr error
	failures := 0
	for tries := 0; failures < 3 && tries < 10; tries++ {
		sc, err := p.acquire(ctx)
		if err != nil {
			return nil, err
		}
		l, err := sc.take(ctx, o)
		if err == nil {
			return l, nil
		}
		if cdp.IsSidecarFull(err) {
			// Other orchestrators hold the sidecar's pages: it is busy,
			// not broken. The caller waits for another slot, as for one
			// of this pool's own, without spending an attempt.
			sc.markFull()
			p.releaseSlot(sc)
			tries--
			if ctx.Err() != nil {
				return nil, fmt.Errorf("%w: %w", ErrNoSidecar, ctx.Err())
			}
			continue
		}
		if errors.Is(err, cdp.ErrClosed) {
			// The browser went away under us: out of rotation at once, and
			// the caller queues again for a sidecar that works, without
			// spending one of its attempts.
			sc.lost()
		} else {
			failures++
		}
		p.releaseSlot(sc)
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%w: %w", ErrNoSidecar, ctx.Err())
		}
		p.log.Warn("opening a page on a sidecar failed; trying again", "sidecar", sc.addr, "err", err)
		lastErr = err
	}
	return nil, fmt.Errorf("opening a browser page failed repeatedly: %w", lastErr)
}

// acquire takes one slot of a sidecar, waiting in the queue if needed.
func (p *Pool) acquire(ctx context.Context) (*sidecar, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, ErrClosed
	}
	if len(p.waiters) == 0 {
		if sc := p.pickLocked(); sc != nil {
			sc.inUse++
			p.mu.Unlock()
			return sc, nil
		}
	}
	if len(p.waiters) >= p.cfg.QueueSize {
		p.mu.Unlock()
		return nil, ErrBusy
	}
	w := &waiter{granted: make(chan *sidecar, 1)}
	p.waiters = append(p.waiters, w)
	// With no sidecar serving, the caller checks now and then whether one
	// may still come, and gives up when none may.
	var giveUp <-chan time.Time
	if !p.servingLocked() {
		giveUp = time.After(unavailableWait)
	}
	p.mu.Unlock()

	for {
		select {
		case sc := <-w.granted:
			if sc == nil {
				return nil, ErrClosed
			}
			return sc, nil
		case <-giveUp:
			p.mu.Lock()
			hope := p.hopeLocked()
			p.mu.Unlock()
			if !hope {
				return p.leave(w, ErrUnavailable)
			}
			giveUp = time.After(unavailableWait / 2) // look again while hope lasts
		case <-ctx.Done():
			return p.leave(w, fmt.Errorf("%w: %w", ErrNoSidecar, ctx.Err()))
		}
	}
}

// leave takes a waiter out of the queue and gives back a slot granted to
// it while it was giving up.
func (p *Pool) leave(w *waiter, err error) (*sidecar, error) {
	p.mu.Lock()
	if i := slices.Index(p.waiters, w); i >= 0 {
		p.waiters = slices.Delete(p.waiters, i, i+1)
	}
	p.mu.Unlock()
	select {
	case sc := <-w.granted:
		if sc != nil {
			p.releaseSlot(sc)
		}
	default:
	}
	return nil, err
}

// servingLocked reports whether some sidecar is healthy.
func (p *Pool) servingLocked() bool {
	for _, sc := range p.sidecars {
		if !sc.removed && sc.state == stateHealthy {
			return true
		}
	}
	return false
}

// hopeLocked reports whether some sidecar serves, is starting or recycling
// its browser, or went down a moment ago: a lease may come. A dropped
// connection is most often a browser restarting, which the next probe
// shows, so a sidecar is waited for two probe intervals after it went
// down. One that already passed a probe since is coming back: a browser
// that restarted within one probe interval is never seen "starting", and
// waits for its second good probe. With every sidecar down for longer, or
// none found, no lease may come.
func (p *Pool) hopeLocked() bool {
	recent := 2 * p.cfg.HealthInterval
	for _, sc := range p.sidecars {
		if !sc.removed && (sc.state != stateUnhealthy || sc.oks > 0 || time.Since(sc.downSince) < recent) {
			return true
		}
	}
	return false
}

// pickLocked chooses the least loaded sidecar that can take a lease now.
func (p *Pool) pickLocked() *sidecar {
	var best *sidecar
	now := time.Now()
	for _, sc := range p.sidecars {
		if !sc.usableLocked() || sc.inUse >= p.cfg.PerSidecar || now.Before(sc.fullUntil) {
			continue
		}
		if best == nil || sc.inUse < best.inUse ||
			(sc.inUse == best.inUse && len(sc.warm) > len(best.warm)) {
			best = sc
		}
	}
	return best
}

// dispatchLocked hands free slots to waiting callers, oldest first.
func (p *Pool) dispatchLocked() {
	for len(p.waiters) > 0 {
		sc := p.pickLocked()
		if sc == nil {
			return
		}
		w := p.waiters[0]
		p.waiters = slices.Delete(p.waiters, 0, 1)
		sc.inUse++
		w.granted <- sc
	}
}

func (p *Pool) releaseSlot(sc *sidecar) {
	p.mu.Lock()
	sc.inUse--
	p.dispatchLocked()
	sc.maybeForgetLocked()
	p.mu.Unlock()
}

// Ready reports whether at least one sidecar can take leases.
func (p *Pool) Ready() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, sc := range p.sidecars {
		if sc.usableLocked() {
			return true
		}
	}
	return false
}

// EgressProxy returns the address of a healthy sidecar to use as an HTTP
// proxy: each sidecar serves its egress guard on its own port, so plain
// fetches pass the same address rule as the browser without taking a
// lease. ok is false when no sidecar is healthy.
func (p *Pool) EgressProxy() (addr string, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var best *sidecar
	for _, sc := range p.sidecars {
		if !sc.usableLocked() {
			continue
		}
		if best == nil || sc.inUse < best.inUse || (sc.inUse == best.inUse && sc.addr < best.addr) {
			best = sc
		}
	}
	if best == nil {
		return "", false
	}
	return best.addr, true
}

// EgressProxyURL is EgressProxy as the URL an http.Transport's Proxy
// function returns. With a SidecarToken the URL carries it as the password
// of its credentials, which the transport sends as Proxy-Authorization on
// every proxied request and CONNECT; the sidecar refuses proxy requests
// without it. The URL holds the secret: log u.Redacted(), never u.
func (p *Pool) EgressProxyURL() (u *url.URL, ok bool) {
	addr, ok := p.EgressProxy()
	if !ok {
		return nil, false
	}
	u = &url.URL{Scheme: "http", Host: addr}
	if p.cfg.SidecarToken != "" {
		u.User = url.UserPassword("glimpse", p.cfg.SidecarToken)
	}
	return u, true
}

// WaitReady blocks until a sidecar is usable or ctx ends.
func (p *Pool) WaitReady(ctx context.Context) error {
	t := time.NewTicker(20 * time.Millisecond)
	defer t.Stop()
	for !p.Ready() {
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for a healthy sidecar: %w", ctx.Err())
		case <-t.C:
		}
	}
	return nil
}

// Snapshot is the pool's live state for metrics and health endpoints.
func (p *Pool) Snapshot() metrics.PoolSnapshot {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := metrics.PoolSnapshot{Queued: len(p.waiters), QueueCap: p.cfg.QueueSize}
	for _, sc := range p.sidecars {
		s.Sidecars = append(s.Sidecars, metrics.SidecarState{
			Addr:     sc.addr,
			State:    sc.stateNameLocked(),
			InUse:    sc.inUse,
			Capacity: p.cfg.PerSidecar,
			Warm:     len(sc.warm),
		})
	}
	slices.SortFunc(s.Sidecars, func(a, b metrics.SidecarState) int {
		if a.Addr < b.Addr {
			return -1
		}
		if a.Addr > b.Addr {
			return 1
		}
		return 0
	})
	return s
}

// Close stops discovery and probes, fails waiting callers, disposes warm
// contexts and closes every connection. Leases still out fail on their
// next call; their Release is still safe.
func (p *Pool) Close() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	for _, w := range p.waiters {
		w.granted <- nil
	}
	p.waiters = nil
	scs := make([]*sidecar, 0, len(p.sidecars))
	for _, sc := range p.sidecars {
		scs = append(scs, sc)
	}
	p.mu.Unlock()
	for _, sc := range scs {
		sc.shutdown()
	}
	p.cancel()
	p.wg.Wait()
}
