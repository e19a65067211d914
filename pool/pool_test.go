package pool

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/netip"
	"net/url"
	"os"
	goruntime "runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"go.uber.org/goleak"

	"github.com/glimpse/glimpse/cdp"
	sidecarpkg "github.com/glimpse/glimpse/sidecar"
)

// TestMain fails the package when a test leaves a goroutine behind: every
// pool is closed and every sidecar stopped by the test that started it.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// requireChromium fails a test that needs real sidecars when Chromium is
// missing, naming what to install; it skips only under -short.
func requireChromium(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts real sidecars with Chromium; skipped with -short")
	}
	if _, err := sidecarpkg.FindChrome(); err != nil {
		t.Fatalf("this test runs real sidecars and needs Chromium: install Debian's chromium package (apt-get install chromium): %v", err)
	}
}

// testLogger sends warnings (everything with GLIMPSE_TEST_LOG set) to the
// test's log, and nothing once the test has ended.
func testLogger(t *testing.T) *slog.Logger {
	w := &logWriter{t: t}
	t.Cleanup(w.stop) // registered first, so it runs after every other cleanup
	level := slog.LevelWarn
	if os.Getenv("GLIMPSE_TEST_LOG") != "" {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))
}

type logWriter struct {
	mu   sync.Mutex
	t    *testing.T
	done bool
}

func (w *logWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.done {
		w.t.Log(strings.TrimRight(string(p), "\n"))
	}
	return len(p), nil
}

func (w *logWriter) stop() {
	w.mu.Lock()
	w.done = true
	w.mu.Unlock()
}

// liveSidecar is a whole sidecar (Chromium, egress guard, /healthz and the
// DevTools endpoint) served on a loopback address by this process.
type liveSidecar struct {
	addr  string
	srv   *sidecarpkg.Server
	conns *trackingListener

	cancel context.CancelFunc
	done   chan error
	once   sync.Once
}

// testToken is the sidecar token of the test sidecars, which newTestPool
// gives every pool unless the test names another.
const testToken = "pool-test-token-0123456789"

// startSidecars starts one sidecar on each listener at once and waits until
// every one reports a ready browser. They stop when the test ends. Each asks
// for testToken.
func startSidecars(t *testing.T, lns []net.Listener, mutate func(*sidecarpkg.RunConfig)) []*liveSidecar {
	t.Helper()
	log := testLogger(t)
	out := make([]*liveSidecar, len(lns))
	for i, ln := range lns {
		cfg := sidecarpkg.DefaultConfig()
		cfg.Addr = ln.Addr().String()
		cfg.RecycleAfter = 0
		cfg.Token = testToken
		cfg.Logger = log.With("sidecar", cfg.Addr)
		tl := &trackingListener{Listener: ln, open: map[*trackedConn]struct{}{}}
		rc := sidecarpkg.RunConfig{Sidecar: cfg, Listener: tl}
		if mutate != nil {
			mutate(&rc)
		}
		srv, err := sidecarpkg.NewServer(rc)
		if err != nil {
			ln.Close()
			t.Fatalf("preparing a sidecar on %s: %v", cfg.Addr, err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		ls := &liveSidecar{addr: cfg.Addr, srv: srv, conns: tl, cancel: cancel, done: make(chan error, 1)}
		go func() { ls.done <- srv.Run(ctx) }()
		t.Cleanup(func() { ls.stop(t) })
		out[i] = ls
	}
	for _, ls := range out {
		waitFor(t, 60*time.Second, "the sidecar on "+ls.addr+" to report a ready browser", func() bool {
			return ls.srv.Sidecar().Health().Status == sidecarpkg.StatusOK
		})
	}
	return out
}

// startSidecar is startSidecars for one sidecar on 127.0.0.1.
func startSidecar(t *testing.T, mutate func(*sidecarpkg.RunConfig)) *liveSidecar {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return startSidecars(t, []net.Listener{ln}, mutate)[0]
}

// stop ends the sidecar as an outage would: its listener and every
// connection close and its Chromium is killed.
func (ls *liveSidecar) stop(t *testing.T) {
	ls.once.Do(func() {
		ls.cancel()
		select {
		case err := <-ls.done:
			if err != nil {
				t.Errorf("the sidecar on %s stopped with an error: %v", ls.addr, err)
			}
		case <-time.After(30 * time.Second):
			t.Errorf("the sidecar on %s did not stop within 30s", ls.addr)
		}
	})
}

// devtoolsConns counts the DevTools WebSocket connections open to the
// sidecar right now.
func (ls *liveSidecar) devtoolsConns() int { return ls.conns.openTo("/devtools/browser") }

// steadyDevtoolsConns counts the DevTools connections once connections
// that are closing (such as those of browserCounts) are gone.
func (ls *liveSidecar) steadyDevtoolsConns() int {
	n := ls.devtoolsConns()
	for range 25 {
		time.Sleep(200 * time.Millisecond)
		m := ls.devtoolsConns()
		if m == n {
			return n
		}
		n = m
	}
	return n
}

// browserCounts asks the sidecar's browser, over a connection of the test's
// own, how many page targets and browser contexts it has.
func (ls *liveSidecar) browserCounts(t *testing.T) (pages, contexts int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := cdp.Dial(ctx, "ws://"+ls.addr+"/devtools/browser", cdp.WithHeader(http.Header{"Authorization": {"Bearer " + testToken}}))
	if err != nil {
		t.Fatalf("connecting to the sidecar on %s: %v", ls.addr, err)
	}
	defer c.Close()
	ts, err := cdp.Execute(ctx, c.Browser(), target.GetTargets, target.GetTargetsParams{})
	if err != nil {
		t.Fatal(err)
	}
	for _, ti := range ts.TargetInfos {
		if ti.Type == "page" {
			pages++
		}
	}
	bcs, err := cdp.Execute(ctx, c.Browser(), target.GetBrowserContexts, cdproto.Empty{})
	if err != nil {
		t.Fatal(err)
	}
	return pages, len(bcs.BrowserContextIDs)
}

// trackingListener remembers which connections to the sidecar are open and
// what each asked for first, so a test can count the pool's DevTools
// connections from the sidecar's side.
type trackingListener struct {
	net.Listener
	mu   sync.Mutex
	open map[*trackedConn]struct{}
}

func (l *trackingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	tc := &trackedConn{Conn: c, l: l}
	l.mu.Lock()
	l.open[tc] = struct{}{}
	l.mu.Unlock()
	return tc, nil
}

func (l *trackingListener) openTo(path string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for c := range l.open {
		if c.requested(path) {
			n++
		}
	}
	return n
}

type trackedConn struct {
	net.Conn
	l     *trackingListener
	mu    sync.Mutex
	first []byte // the start of the first request
	once  sync.Once
}

func (c *trackedConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.mu.Lock()
	if room := 64 - len(c.first); room > 0 && n > 0 {
		c.first = append(c.first, p[:min(n, room)]...)
	}
	c.mu.Unlock()
	return n, err
}

func (c *trackedConn) Close() error {
	c.once.Do(func() {
		c.l.mu.Lock()
		delete(c.l.open, c)
		c.l.mu.Unlock()
	})
	return c.Conn.Close()
}

func (c *trackedConn) requested(path string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return bytes.HasPrefix(c.first, []byte("GET "+path+" ")) || bytes.HasPrefix(c.first, []byte("GET "+path+"?"))
}

// newTestPool starts a pool that looks up sidecars often, so tests see
// discovery change quickly, and closes it when the test ends. Probes are
// rare unless a test watches health change (it then asks for the production
// interval of 1s): a background probe that overlaps the one Start runs is
// what TestPoolKeepsOneDevToolsConnectionPerSidecar is about, and other
// tests should not trip over it.
func newTestPool(t *testing.T, cfg Config) *Pool {
	t.Helper()
	if cfg.HealthInterval == 0 {
		cfg.HealthInterval = 5 * time.Second
	}
	if cfg.ResolveInterval == 0 {
		cfg.ResolveInterval = 50 * time.Millisecond
	}
	if cfg.Logger == nil {
		cfg.Logger = testLogger(t)
	}
	if cfg.SidecarToken == "" {
		cfg.SidecarToken = testToken
	}
	p, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { closeWithin(t, p, 20*time.Second) })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := p.Start(ctx); err != nil {
		t.Fatalf("Start: %v", err)
	}
	return p
}

// closeWithin closes the pool and fails the test, instead of hanging it,
// when Close does not return in time.
func closeWithin(t *testing.T, p *Pool, d time.Duration) {
	t.Helper()
	done := make(chan struct{})
	go func() { p.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(d):
		buf := make([]byte, 1<<20)
		buf = buf[:goruntime.Stack(buf, true)]
		var stuck []string
		for _, g := range strings.Split(string(buf), "\n\n") {
			inPool := strings.Contains(g, "/pool/pool.go:") || strings.Contains(g, "/pool/health.go:") ||
				strings.Contains(g, "/pool/lease.go:") || strings.Contains(g, "/pool/discovery.go:")
			if inPool && !strings.Contains(g, "closeWithin") {
				stuck = append(stuck, g)
			}
		}
		t.Errorf("Pool.Close did not return within %s: it waits for a goroutine of the pool that never ends:\n%s",
			d, strings.Join(stuck, "\n\n"))
	}
}

// waitFor polls cond until it holds, failing the test after d.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %s for %s", d, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// mustLease leases within d or fails the test.
func mustLease(t *testing.T, p *Pool, d time.Duration) *Lease {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	l, err := p.Lease(ctx)
	if err != nil {
		t.Fatalf("Lease: %v", err)
	}
	return l
}

// leaseIn starts a Lease in the background and reports its outcome.
type leaseResult struct {
	l   *Lease
	err error
}

func leaseIn(ctx context.Context, p *Pool) <-chan leaseResult {
	ch := make(chan leaseResult, 1)
	go func() {
		l, err := p.Lease(ctx)
		ch <- leaseResult{l, err}
	}()
	return ch
}

// ping runs a script in the lease's page: the lease is usable end to end.
func ping(ctx context.Context, l *Lease) error {
	t := true
	res, err := cdp.Execute(ctx, l.Session, runtime.Evaluate, runtime.EvaluateParams{Expression: "6*7", ReturnByValue: &t})
	if err != nil {
		return err
	}
	if res.Result == nil || string(res.Result.Value) != "42" {
		return fmt.Errorf("the page answered 6*7 with %v", res.Result)
	}
	return nil
}

// stateOf returns the pool's view of one sidecar; ok is false when the pool
// does not list it.
func stateOf(p *Pool, addr string) (s sidecarView, ok bool) {
	for _, sc := range p.Snapshot().Sidecars {
		if sc.Addr == addr {
			return sidecarView{sc.State, sc.InUse, sc.Capacity, sc.Warm}, true
		}
	}
	return sidecarView{}, false
}

// waitForTeardowns waits until the sidecar has no lease in use and no
// released browser context still being disposed. Release frees the slot at
// once and disposes the context in the background, so a free slot alone
// says nothing of the pages the browser still has.
func waitForTeardowns(t *testing.T, p *Pool, addr string) {
	t.Helper()
	waitFor(t, 2*teardownTimeout, "every lease returned and its browser context disposed", func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		sc, ok := p.sidecars[addr]
		return ok && sc.inUse == 0 && sc.disposing == 0
	})
}

// sidecarView is the part of a snapshot entry tests compare.
type sidecarView struct {
	State    string
	InUse    int
	Capacity int
	Warm     int
}

func TestNewRejectsConfigurationItCannotUse(t *testing.T) {
	cases := []struct {
		name string
		cfg  Config
		want string
	}{
		{"an empty sidecar list names the expected form", Config{Sidecars: " , "}, "host:port"},
		{"a sidecar without a port is refused", Config{Sidecars: "sidecar.glimpse.svc"}, "not host:port"},
		{"a negative queue size is refused", Config{Sidecars: "127.0.0.1:9230", QueueSize: -1}, "negative"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := New(c.cfg)
			if err == nil {
				p.Close()
				t.Fatalf("New accepted %+v", c.cfg)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %q does not mention %q", err, c.want)
			}
		})
	}
}

func TestPoolWithoutAReachableSidecar(t *testing.T) {
	// Nothing listens on a port that was just closed.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	p := newTestPool(t, Config{Sidecars: addr, QueueSize: 4, HealthInterval: 100 * time.Millisecond})

	t.Run("is not ready", func(t *testing.T) {
		if p.Ready() {
			t.Fatal("Ready reports a usable sidecar where nothing listens")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		if err := p.WaitReady(ctx); err == nil {
			t.Fatal("WaitReady returned without error")
		}
	})
	t.Run("lists the sidecar as unhealthy", func(t *testing.T) {
		waitFor(t, 5*time.Second, "the sidecar to be reported unhealthy", func() bool {
			s, ok := stateOf(p, addr)
			return ok && s.State == "unhealthy"
		})
	})
	t.Run("a lease with a deadline sooner than the grace fails with ErrNoSidecar at its deadline", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		start := time.Now()
		l, err := p.Lease(ctx)
		if err == nil {
			l.Release()
			t.Fatal("Lease succeeded without a sidecar")
		}
		if !errors.Is(err, ErrNoSidecar) || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Lease error = %v; want ErrNoSidecar wrapping context.DeadlineExceeded", err)
		}
		if d := time.Since(start); d < 250*time.Millisecond {
			t.Fatalf("Lease gave up after %s, before its deadline", d)
		}
		if q := p.Snapshot().Queued; q != 0 {
			t.Fatalf("the caller that gave up is still counted in the queue (%d)", q)
		}
	})
	t.Run("a lease with time to spare fails with ErrUnavailable after a second, not at its deadline", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		start := time.Now()
		l, err := p.Lease(ctx)
		if err == nil {
			l.Release()
			t.Fatal("Lease succeeded without a sidecar")
		}
		if !errors.Is(err, ErrUnavailable) {
			t.Fatalf("Lease error = %v; want ErrUnavailable", err)
		}
		if d := time.Since(start); d < unavailableWait || d > unavailableWait+time.Second {
			t.Errorf("Lease gave up after %s; want about %s", d, unavailableWait)
		}
		if q := p.Snapshot().Queued; q != 0 {
			t.Fatalf("the caller that gave up is still counted in the queue (%d)", q)
		}
	})
}

func TestLeaseGivesEachCallerItsOwnBrowserContext(t *testing.T) {
	requireChromium(t)
	// A site on loopback that sets a cookie on /set and records the cookie
	// each request was sent with, by its path and query: the browser's own
	// requests (a favicon after a load) must not be read as a lease's.
	var mu sync.Mutex
	cookies := map[string]string{}
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/set" {
			http.SetCookie(w, &http.Cookie{Name: "sid", Value: "one", Path: "/"})
		}
		mu.Lock()
		cookies[r.URL.RequestURI()] = r.Header.Get("Cookie")
		mu.Unlock()
		io.WriteString(w, "<html><body>ok</body></html>")
	}))
	defer site.Close()
	sc := startSidecar(t, func(c *sidecarpkg.RunConfig) {
		c.AllowTargets = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	})
	p := newTestPool(t, Config{Sidecars: sc.addr, PerSidecar: 2, Warm: -1})

	l1 := mustLease(t, p, 20*time.Second)
	l2 := mustLease(t, p, 20*time.Second)
	if l1.ContextID == l2.ContextID || l1.TargetID == l2.TargetID {
		t.Fatalf("two leases share a browser context or page: %s/%s and %s/%s", l1.ContextID, l1.TargetID, l2.ContextID, l2.TargetID)
	}
	if l1.Sidecar != sc.addr || l2.Sidecar != sc.addr {
		t.Fatalf("leases name sidecars %q and %q, want %q", l1.Sidecar, l2.Sidecar, sc.addr)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, l := range []*Lease{l1, l2} {
		if err := ping(ctx, l); err != nil {
			t.Fatalf("the leased page does not run scripts: %v", err)
		}
	}
	cookieSent := func(l *Lease, path string) string {
		res, err := cdp.Execute(ctx, l.Session, page.Navigate, page.NavigateParams{URL: site.URL + path})
		if err != nil || res.ErrorText != "" {
			t.Fatalf("navigating to %s: %v %s", path, err, res.ErrorText)
		}
		mu.Lock()
		defer mu.Unlock()
		c, ok := cookies[path]
		if !ok {
			t.Fatalf("the site saw no request for %s", path)
		}
		return c
	}
	cookieSent(l1, "/set")
	if c := cookieSent(l1, "/echo?lease=1"); c != "sid=one" {
		t.Fatalf("the lease that was given a cookie sent %q", c)
	}
	if c := cookieSent(l2, "/echo?lease=2"); c != "" {
		t.Fatalf("a cookie set in one lease was sent by another: %q", c)
	}
	if s, _ := stateOf(p, sc.addr); s.InUse != 2 {
		t.Fatalf("the snapshot counts %d leases in use, want 2", s.InUse)
	}

	l1.Release()
	l2.Release()
	waitFor(t, 10*time.Second, "both leases to be returned", func() bool {
		s, _ := stateOf(p, sc.addr)
		return s.InUse == 0
	})
	// The contexts are torn down in the background, after the slots are
	// free; Chromium lists a page a moment longer than its context.
	var pages, contexts int
	if !eventually(10*time.Second, func() bool {
		pages, contexts = sc.browserCounts(t)
		return pages == 0 && contexts == 0
	}) {
		t.Fatalf("after both leases were released the browser has %d pages and %d contexts, want none", pages, contexts)
	}
	if err := ping(ctx, l1); err == nil {
		t.Fatal("a released lease's page still runs scripts")
	}
}

func TestLeaseQueue(t *testing.T) {
	requireChromium(t)
	sc := startSidecar(t, nil)
	// One page at a time and two places in the queue make every outcome of
	// the queue reachable with a handful of callers.
	cfg := Config{Sidecars: sc.addr, PerSidecar: 1, QueueSize: 2, Warm: -1}
	queued := func(p *Pool, n int) func() bool { return func() bool { return p.Snapshot().Queued == n } }

	t.Run("a caller who finds the queue full gets ErrBusy at once", func(t *testing.T) {
		p := newTestPool(t, cfg)
		held := mustLease(t, p, 20*time.Second)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		w1, w2 := leaseIn(ctx, p), (<-chan leaseResult)(nil)
		waitFor(t, 5*time.Second, "one queued caller", queued(p, 1))
		w2 = leaseIn(ctx, p)
		waitFor(t, 5*time.Second, "two queued callers", queued(p, 2))

		start := time.Now()
		l, err := p.Lease(ctx)
		if err == nil {
			l.Release()
			t.Fatal("a lease was granted beyond the queue")
		}
		if !errors.Is(err, ErrBusy) {
			t.Fatalf("Lease error = %v, want ErrBusy", err)
		}
		if d := time.Since(start); d > time.Second {
			t.Fatalf("ErrBusy took %s; a full queue must answer at once", d)
		}
		held.Release()
		for _, w := range []<-chan leaseResult{w1, w2} {
			r := <-w
			if r.err != nil {
				t.Fatalf("a queued caller failed: %v", r.err)
			}
			r.l.Release()
		}
	})

	t.Run("a caller who gives up while queued leaves the queue and the slot", func(t *testing.T) {
		p := newTestPool(t, cfg)
		held := mustLease(t, p, 20*time.Second)
		ctx, cancel := context.WithCancel(context.Background())
		w := leaseIn(ctx, p)
		waitFor(t, 5*time.Second, "the caller to queue", queued(p, 1))
		cancel()
		r := <-w
		if r.err == nil {
			r.l.Release()
			t.Fatal("a cancelled caller was granted a lease")
		}
		if !errors.Is(r.err, ErrNoSidecar) || !errors.Is(r.err, context.Canceled) {
			t.Fatalf("Lease error = %v, want ErrNoSidecar wrapping context.Canceled", r.err)
		}
		if q := p.Snapshot().Queued; q != 0 {
			t.Fatalf("%d callers still queued after the only one gave up", q)
		}
		held.Release()
		waitFor(t, 10*time.Second, "the held lease to be returned", func() bool { s, _ := stateOf(p, sc.addr); return s.InUse == 0 })
		// The one slot must be free: a lease is granted without waiting.
		l := mustLease(t, p, 10*time.Second)
		l.Release()
	})

	t.Run("a caller who gives up just as a slot is handed over does not lose the slot", func(t *testing.T) {
		p := newTestPool(t, cfg)
		for i := range 15 {
			held := mustLease(t, p, 20*time.Second)
			ctx, cancel := context.WithCancel(context.Background())
			w := leaseIn(ctx, p)
			waitFor(t, 5*time.Second, "the caller to queue", queued(p, 1))
			// Release and cancel race; either outcome is fine, a lost slot is not.
			go held.Release()
			if i%2 == 0 {
				time.Sleep(time.Duration(i) * time.Millisecond)
			}
			cancel()
			if r := <-w; r.err == nil {
				r.l.Release()
			}
			waitFor(t, 10*time.Second, fmt.Sprintf("round %d: every slot to be free", i), func() bool {
				s, _ := stateOf(p, sc.addr)
				return s.InUse == 0 && p.Snapshot().Queued == 0
			})
		}
		l := mustLease(t, p, 10*time.Second)
		l.Release()
	})

	t.Run("queued callers are served oldest first", func(t *testing.T) {
		p := newTestPool(t, cfg)
		held := mustLease(t, p, 20*time.Second)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		first := leaseIn(ctx, p)
		waitFor(t, 5*time.Second, "the first caller to queue", queued(p, 1))
		second := leaseIn(ctx, p)
		waitFor(t, 5*time.Second, "the second caller to queue", queued(p, 2))
		held.Release()
		var r leaseResult
		select {
		case r = <-first:
		case r = <-second:
			r.l.Release()
			t.Fatal("the second caller was served before the first")
		case <-ctx.Done():
			t.Fatal("no queued caller was served")
		}
		if r.err != nil {
			t.Fatalf("the first caller failed: %v", r.err)
		}
		r.l.Release()
		if r := <-second; r.err != nil {
			t.Fatalf("the second caller failed: %v", r.err)
		} else {
			r.l.Release()
		}
	})

	t.Run("closing the pool fails queued callers and later ones with ErrClosed", func(t *testing.T) {
		p := newTestPool(t, cfg)
		held := mustLease(t, p, 20*time.Second)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		w := leaseIn(ctx, p)
		waitFor(t, 5*time.Second, "the caller to queue", queued(p, 1))
		p.Close()
		if r := <-w; !errors.Is(r.err, ErrClosed) {
			t.Fatalf("a queued caller got %v when the pool closed, want ErrClosed", r.err)
		}
		if _, err := p.Lease(ctx); !errors.Is(err, ErrClosed) {
			t.Fatalf("Lease after Close = %v, want ErrClosed", err)
		}
		held.Release() // still safe after Close
		waitFor(t, 10*time.Second, "the closed pool's pages to be gone", func() bool {
			pages, contexts := sc.browserCounts(t)
			return pages == 0 && contexts == 0
		})
	})
}

func TestReleaseIsIdempotent(t *testing.T) {
	requireChromium(t)
	sc := startSidecar(t, nil)
	p := newTestPool(t, Config{Sidecars: sc.addr, PerSidecar: 1, Warm: -1})
	inUse := func() int { s, _ := stateOf(p, sc.addr); return s.InUse }

	l := mustLease(t, p, 20*time.Second)
	l.Release()
	l.Release()
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() { defer wg.Done(); l.Release() }()
	}
	wg.Wait()
	waitFor(t, 10*time.Second, "the lease to be returned", func() bool { return inUse() == 0 })
	// Give a doubled release time to show, then check the count never
	// went below zero and the sidecar still holds only one lease at a time.
	time.Sleep(200 * time.Millisecond)
	if n := inUse(); n != 0 {
		t.Fatalf("after releasing one lease six times the pool counts %d in use, want 0", n)
	}
	a := mustLease(t, p, 10*time.Second)
	defer a.Release()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if b, err := p.Lease(ctx); err == nil {
		b.Release()
		t.Fatal("a sidecar limited to one lease handed out two: a repeated Release freed a slot twice")
	}
}

func TestReleasingWhileThePoolClosesIsSafe(t *testing.T) {
	requireChromium(t)
	sc := startSidecar(t, nil)
	// The orchestrator closes its pool when the shutdown grace runs out,
	// while requests still hold leases; their Release then races Close.
	for i := range 3 {
		p := newTestPool(t, Config{Sidecars: sc.addr, PerSidecar: 4, Warm: -1})
		var leases []*Lease
		for range 3 {
			leases = append(leases, mustLease(t, p, 20*time.Second))
		}
		var wg sync.WaitGroup
		wg.Add(1)
		go func() { defer wg.Done(); closeWithin(t, p, 20*time.Second) }()
		for j, l := range leases {
			if j == i {
				time.Sleep(time.Millisecond)
			}
			l.Release()
		}
		wg.Wait()
	}
	waitFor(t, 10*time.Second, "the closed pools' pages to be gone", func() bool {
		pages, contexts := sc.browserCounts(t)
		return pages == 0 && contexts == 0
	})
}

func TestSnapshotCountsLeasesQueueAndWarmContexts(t *testing.T) {
	requireChromium(t)
	sc := startSidecar(t, nil)
	p := newTestPool(t, Config{Sidecars: sc.addr, PerSidecar: 2, QueueSize: 3, Warm: 2})

	waitFor(t, 20*time.Second, "two warm contexts", func() bool { s, _ := stateOf(p, sc.addr); return s.Warm == 2 })
	snap := p.Snapshot()
	if snap.QueueCap != 3 || snap.Queued != 0 || len(snap.Sidecars) != 1 {
		t.Fatalf("idle snapshot = %+v, want one sidecar, queue 0 of 3", snap)
	}
	if got := (sidecarView{"healthy", 0, 2, 2}); mustState(t, p, sc.addr) != got {
		t.Fatalf("idle sidecar = %+v, want %+v", mustState(t, p, sc.addr), got)
	}

	a := mustLease(t, p, 20*time.Second)
	b := mustLease(t, p, 20*time.Second)
	if s := mustState(t, p, sc.addr); s.InUse != 2 || s.Capacity != 2 {
		t.Fatalf("with two leases out the sidecar shows %+v", s)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	w1 := leaseIn(ctx, p)
	w2 := leaseIn(ctx, p)
	waitFor(t, 5*time.Second, "two queued callers in the snapshot", func() bool { return p.Snapshot().Queued == 2 })

	a.Release()
	b.Release()
	for _, w := range []<-chan leaseResult{w1, w2} {
		r := <-w
		if r.err != nil {
			t.Fatalf("a queued caller failed: %v", r.err)
		}
		r.l.Release()
	}
	waitFor(t, 20*time.Second, "an idle sidecar with its warm contexts refilled", func() bool {
		s, _ := stateOf(p, sc.addr)
		return s == sidecarView{"healthy", 0, 2, 2} && p.Snapshot().Queued == 0
	})
	waitForTeardowns(t, p, sc.addr)
	// Warm contexts are real: two pages in two contexts, nothing more. The
	// page of a context just disposed may stay in the browser's list of
	// targets a moment after the call returns; a leaked one stays.
	pages, contexts := 0, 0
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if pages, contexts = sc.browserCounts(t); pages == 2 && contexts == 2 || time.Now().After(deadline) {
			break
		}
	}
	if pages != 2 || contexts != 2 {
		t.Fatalf("an idle sidecar with two warm contexts has %d pages and %d contexts in its browser", pages, contexts)
	}
}

func mustState(t *testing.T, p *Pool, addr string) sidecarView {
	t.Helper()
	s, ok := stateOf(p, addr)
	if !ok {
		t.Fatalf("the snapshot does not list %s: %+v", addr, p.Snapshot())
	}
	return s
}

func TestRecyclingNeverTakesTheOnlySidecarOutOfService(t *testing.T) {
	requireChromium(t)
	// One sidecar, as embedded glimpse runs, recycling every few pages: a
	// steady stream of leases crosses many recycles.
	ls := startSidecar(t, func(c *sidecarpkg.RunConfig) {
		c.Sidecar.RecycleAfter = 5
		c.Sidecar.RecycleGrace = 20 * time.Second
	})
	p := newTestPool(t, Config{Sidecars: ls.addr, PerSidecar: 3, HealthInterval: time.Second})

	// Sampled every 50ms: the sidecar always has a browser that takes new
	// connections, and the pool always has a sidecar to lease from.
	stop := make(chan struct{})
	var samples, notReady, poolNotReady, overlaps int
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			h := ls.srv.Sidecar().Health()
			samples++
			if h.Status != sidecarpkg.StatusOK {
				notReady++
			}
			if h.ReplacedGenerations > 0 {
				overlaps++
			}
			if !p.Ready() {
				poolNotReady++
			}
		}
	}()

	// Lease until the sidecar has recycled three times: how many pages a
	// browser generation takes to start and drain varies with the
	// machine's load, so a fixed count of leases may cross fewer.
	const workers, perWorker = 3, 40
	errs := make(chan error, workers*perWorker)
	var wg sync.WaitGroup
	var leased atomic.Int64
	start := time.Now()
	for range workers {
		wg.Go(func() {
			for range perWorker {
				if ls.srv.Sidecar().Health().Recycles >= 3 {
					return
				}
				leased.Add(1)
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				l, err := p.Lease(ctx)
				if err == nil {
					err = ping(ctx, l)
					time.Sleep(50 * time.Millisecond) // a short render
					if err == nil {
						err = ping(ctx, l)
					}
					l.Release()
				}
				cancel()
				if err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(stop)
	<-sampled
	close(errs)
	for err := range errs {
		t.Errorf("a lease failed across a recycle: %v", err)
	}
	h := ls.srv.Sidecar().Health()
	t.Logf("%d leases in %s across %d recycles; %d samples, %d with a replaced browser still finishing",
		leased.Load(), time.Since(start).Round(time.Millisecond), h.Recycles, samples, overlaps)
	if h.Recycles < 3 || h.Restarts != 0 {
		t.Errorf("health = %+v, want at least 3 recycles and no crash restart", h)
	}
	if notReady > 0 || poolNotReady > 0 {
		t.Errorf("of %d samples, %d found the sidecar without a ready browser and %d found the pool without a sidecar to lease from; want none",
			samples, notReady, poolNotReady)
	}
	if overlaps == 0 {
		t.Error("no sample saw a replaced browser finishing next to its successor")
	}
	// Once the leases are back the replaced browsers go at once, not after
	// their grace period, because the pool closes their connections.
	waitFor(t, 5*time.Second, "the replaced browsers to stop", func() bool {
		return ls.srv.Sidecar().Health().ReplacedGenerations == 0
	})
}

func TestLeaseIsLostWhenItsBrowserDiesAndThePoolRecovers(t *testing.T) {
	requireChromium(t)
	sc := startSidecar(t, nil)
	p := newTestPool(t, Config{Sidecars: sc.addr, PerSidecar: 9, Warm: 1, HealthInterval: time.Second})

	// Callers lease, use and release pages all along, so some ask in the
	// very moment the browser's connection drops. Each must end up with a
	// working page, retrying once as the orchestrator does when a lease is
	// lost under it; none may be refused because the pool tried a dead
	// connection.
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	stop := make(chan struct{})
	var worked, refusedN atomic.Int64
	var refused atomic.Value
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for lostInARow := 0; ; {
				select {
				case <-stop:
					return
				default:
				}
				l, err := p.Lease(ctx)
				if err != nil {
					refusedN.Add(1)
					refused.CompareAndSwap(nil, err)
					return
				}
				ok := ping(ctx, l) == nil
				l.Release()
				switch {
				case ok:
					worked.Add(1)
					lostInARow = 0
				case lostInARow == 1:
					refusedN.Add(1)
					refused.CompareAndSwap(nil, errors.New("two leases in a row did not work"))
					return
				default:
					lostInARow++
				}
			}
		}()
	}
	stopCallers := sync.OnceFunc(func() { close(stop); wg.Wait() })
	defer stopCallers()

	l := mustLease(t, p, 20*time.Second)
	waitFor(t, 20*time.Second, "the callers to get going", func() bool { return worked.Load() >= 4 })
	pid := sc.srv.Sidecar().BrowserPID()
	if pid <= 0 {
		t.Fatal("the sidecar reports no browser process")
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatalf("killing Chromium (pid %d): %v", pid, err)
	}
	select {
	case <-l.Lost():
	case <-time.After(10 * time.Second):
		t.Fatal("the lease was not reported lost within 10s of its browser being killed")
	}
	if !l.IsLost() {
		t.Fatal("Lost() closed but IsLost() is false")
	}
	l.Release()
	killed := time.Now()
	before := worked.Load()
	waitFor(t, 30*time.Second, "leases to work again after the restart", func() bool {
		return worked.Load() >= before+4 || refusedN.Load() > 0
	})
	stopCallers()
	t.Logf("leases worked again %s after the kill", time.Since(killed).Round(time.Millisecond))
	if n := refusedN.Load(); n > 0 {
		t.Fatalf("%d callers were refused while the browser restarted; the first got: %v "+
			"(a sidecar whose connection has just dropped must not be tried, the caller should wait for the restart)", n, refused.Load())
	}
	if g := sc.srv.Sidecar().Generation(); g < 2 {
		t.Fatalf("the sidecar is on browser generation %d after a kill, want 2 or more", g)
	}
	waitFor(t, 10*time.Second, "every lease to be returned", func() bool {
		s, _ := stateOf(p, sc.addr)
		return s.InUse == 0
	})
}

func TestPoolKeepsOneDevToolsConnectionPerSidecar(t *testing.T) {
	requireChromium(t)
	sc := startSidecar(t, nil)
	// Probing every few milliseconds makes a probe of the background loop
	// overlap the first probe that Start runs itself.
	for i := range 2 {
		t.Run("start "+strconv.Itoa(i+1), func(t *testing.T) {
			before := sc.steadyDevtoolsConns() // a failed round may leave some behind
			p := newTestPool(t, Config{Sidecars: sc.addr, Warm: 1, HealthInterval: 2 * time.Millisecond})
			waitFor(t, 10*time.Second, "a warm context", func() bool { s, _ := stateOf(p, sc.addr); return s.Warm == 1 })
			time.Sleep(300 * time.Millisecond)
			if n := sc.devtoolsConns() - before; n != 1 {
				t.Errorf("the pool holds %d DevTools connections to one sidecar, want 1: "+
					"Start's first probe and the background probe both connected, and the connection "+
					"that lost the race is never closed", n)
			}
			if pages, contexts := sc.browserCounts(t); pages != 1 || contexts != 1 {
				t.Errorf("with one warm context the browser has %d pages and %d contexts, want 1 and 1", pages, contexts)
			}
			closeWithin(t, p, 10*time.Second)
			waitFor(t, 5*time.Second, "the closed pool's connections to end", func() bool { return sc.devtoolsConns() <= before })
			waitFor(t, 5*time.Second, "the closed pool's warm contexts to be gone", func() bool {
				pages, contexts := sc.browserCounts(t)
				return pages == 0 && contexts == 0
			})
		})
	}
}

func TestCallerWhoGivesUpWhileItsPageOpensLeavesNothingBehind(t *testing.T) {
	requireChromium(t)
	sc := startSidecar(t, nil)
	p := newTestPool(t, Config{Sidecars: sc.addr, PerSidecar: 4, Warm: -1})
	// Without warm contexts every lease opens its page while the caller
	// waits, so a deadline of a few milliseconds ends the caller's wait
	// somewhere inside the opening: while the browser context is created,
	// while the page is created or while it is attached.
	delays := []time.Duration{1, 2, 5, 10, 20, 40, 80, 160, 320}
	var granted, refused int
	for i := range 36 {
		ctx, cancel := context.WithTimeout(context.Background(), delays[i%len(delays)]*time.Millisecond)
		l, err := p.Lease(ctx)
		cancel()
		if err != nil {
			refused++
			continue
		}
		granted++
		l.Release()
	}
	t.Logf("%d leases granted and %d given up while opening", granted, refused)
	waitFor(t, 10*time.Second, "every slot to be returned", func() bool { s, _ := stateOf(p, sc.addr); return s.InUse == 0 })
	var pages, contexts int
	if !eventually(10*time.Second, func() bool {
		pages, contexts = sc.browserCounts(t)
		return pages == 0 && contexts == 0
	}) {
		t.Fatalf("after every caller left, the browser still has %d pages and %d browser contexts: "+
			"a context created for a caller who gave up is never disposed", pages, contexts)
	}
}

// eventually polls cond until it holds or d passes, and reports which.
func eventually(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestReleaseFreesTheSlotBeforeTheTeardown(t *testing.T) {
	requireChromium(t)
	live := startSidecar(t, nil)
	p := newTestPool(t, Config{Sidecars: live.addr, PerSidecar: 1, Warm: -1})
	inUse := func() int { s, _ := stateOf(p, live.addr); return s.InUse }
	sc := func() *sidecar {
		p.mu.Lock()
		defer p.mu.Unlock()
		return p.sidecars[live.addr]
	}()
	disposing := func() int {
		p.mu.Lock()
		defer p.mu.Unlock()
		return sc.disposing
	}

	t.Run("the slot is free when Release returns, and the context goes after", func(t *testing.T) {
		l := mustLease(t, p, 20*time.Second)
		l.Release()
		if n := inUse(); n != 0 {
			t.Fatalf("%d leases in use right after Release; the next render would wait for the teardown", n)
		}
		waitFor(t, 10*time.Second, "the teardown to finish", func() bool { return disposing() == 0 })
		if _, contexts := live.browserCounts(t); contexts != 0 {
			t.Errorf("%d browser contexts left after the teardown", contexts)
		}
	})
	t.Run("with as many teardowns running as slots, a slot waits for its own", func(t *testing.T) {
		l := mustLease(t, p, 20*time.Second)
		p.mu.Lock()
		sc.disposing += p.cfg.PerSidecar // teardowns that have not finished
		p.mu.Unlock()
		defer func() {
			p.mu.Lock()
			sc.disposing -= p.cfg.PerSidecar
			p.mu.Unlock()
		}()
		l.Release()
		if n := inUse(); n != 1 {
			t.Fatalf("%d leases in use right after Release behind full teardowns, want the slot still held", n)
		}
		waitFor(t, 10*time.Second, "the slot to come back after its teardown", func() bool { return inUse() == 0 })
	})
}

func TestWarmPagesStayWithinTheSidecarsLimit(t *testing.T) {
	requireChromium(t)
	live := startSidecar(t, nil)
	p := newTestPool(t, Config{Sidecars: live.addr, PerSidecar: 2, Warm: 2})
	waitFor(t, 20*time.Second, "two warm contexts", func() bool { s, _ := stateOf(p, live.addr); return s.Warm == 2 })

	a := mustLease(t, p, 20*time.Second)
	// One render leaves room for one warm page next to it.
	waitFor(t, 20*time.Second, "one warm page beside one render", func() bool { s, _ := stateOf(p, live.addr); return s.Warm == 1 })
	b := mustLease(t, p, 20*time.Second)
	time.Sleep(500 * time.Millisecond) // time for a refill that should not happen
	if s := mustState(t, p, live.addr); s.Warm != 0 || s.InUse != 2 {
		t.Fatalf("with every slot rendering the sidecar shows %+v, want no warm page", s)
	}
	if pages, _ := live.browserCounts(t); pages != 2 {
		t.Errorf("the browser has %d pages for two renders at the limit", pages)
	}
	a.Release()
	b.Release()
	waitFor(t, 20*time.Second, "the warm pages back once the slots are idle", func() bool {
		s, _ := stateOf(p, live.addr)
		return s.Warm == 2 && s.InUse == 0
	})
}

func TestUnfilteredLeases(t *testing.T) {
	requireChromium(t)
	live := startSidecar(t, nil)
	p := newTestPool(t, Config{Sidecars: live.addr, PerSidecar: 2, Warm: 1, HealthInterval: time.Hour})
	sc := func() *sidecar {
		p.mu.Lock()
		defer p.mu.Unlock()
		return p.sidecars[live.addr]
	}()
	waitFor(t, 20*time.Second, "one warm context", func() bool { s, _ := stateOf(p, live.addr); return s.Warm == 1 })

	t.Run("an unfiltered lease is a fresh page, never a warm one", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		l, err := p.LeaseWith(ctx, LeaseOptions{Unfiltered: true})
		if err != nil {
			t.Fatal(err)
		}
		defer l.Release()
		if s := mustState(t, p, live.addr); s.Warm != 1 {
			t.Errorf("the warm page was spent on an unfiltered lease: %+v", s)
		}
	})
	t.Run("a sidecar that names no unfiltered egress refuses such a lease", func(t *testing.T) {
		p.mu.Lock()
		saved := sc.unfilteredProxy
		sc.unfilteredProxy = ""
		p.mu.Unlock()
		defer func() {
			p.mu.Lock()
			sc.unfilteredProxy = saved
			p.mu.Unlock()
		}()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		l, err := p.LeaseWith(ctx, LeaseOptions{Unfiltered: true})
		if err == nil {
			l.Release()
			t.Fatal("a lease that skips the ad-block list was opened through the filtered egress")
		}
		if !strings.Contains(err.Error(), "unfiltered egress") {
			t.Errorf("error %q does not say what is missing", err)
		}
		waitFor(t, 10*time.Second, "the refused lease's slot back", func() bool { s, _ := stateOf(p, live.addr); return s.InUse == 0 })
	})
}

func TestOneGoodProbeDoesNotRestoreAnUnhealthySidecar(t *testing.T) {
	ls := startSidecar(t, nil)
	target, _ := url.Parse("http://" + ls.addr)
	rp := httputil.NewSingleHostReverseProxy(target)
	var down atomic.Bool
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/healthz" && down.Load() {
			http.Error(w, `{"status":"down"}`, http.StatusServiceUnavailable)
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	addr := strings.TrimPrefix(front.URL, "http://")
	// Probes are made by hand here, one at a time.
	p := newTestPool(t, Config{Sidecars: addr, HealthInterval: time.Hour})
	ctx := t.Context()
	sc := p.list()[0]
	state := func() string { s, _ := stateOf(p, addr); return s.State }
	if state() != "healthy" {
		t.Fatalf("the sidecar starts %s, want healthy", state())
	}
	down.Store(true)
	sc.probe(ctx)
	sc.probe(ctx)
	if state() != "unhealthy" {
		t.Fatalf("after two failed probes the sidecar is %s, want unhealthy", state())
	}
	down.Store(false)
	sc.probe(ctx)
	if state() != "unhealthy" {
		t.Errorf("one good probe brought a flapping sidecar back (%s)", state())
	}
	sc.probe(ctx)
	if state() != "healthy" {
		t.Errorf("two good probes in a row left the sidecar %s, want healthy", state())
	}
}

func TestAWarmPageWhoseSessionEndedIsNotLeased(t *testing.T) {
	requireChromium(t)
	ls := startSidecar(t, nil)
	p := newTestPool(t, Config{Sidecars: ls.addr, Warm: 1, PerSidecar: 2})
	waitFor(t, 20*time.Second, "a warm page to be ready", func() bool {
		s, _ := stateOf(p, ls.addr)
		return s.Warm == 1
	})
	sc := p.list()[0]
	p.mu.Lock()
	warm := sc.warm[0]
	p.mu.Unlock()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	// The page's own connection ends, as when its target goes away.
	warm.page.Close()
	waitFor(t, 10*time.Second, "the warm page's session to end", warm.sessionEnded)
	l := mustLease(t, p, 10*time.Second)
	defer l.Release()
	if l == warm || l.sessionEnded() {
		t.Fatal("the lease is the warm page whose session had ended")
	}
	if err := ping(ctx, l); err != nil {
		t.Fatalf("the lease does not work: %v", err)
	}
}
