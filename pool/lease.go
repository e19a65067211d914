package pool

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sync"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"

	"github.com/glimpse/glimpse/cdp"
)

// teardownTimeout bounds disposing a browser context. It runs on a fresh
// context so that a request whose own context has ended still cleans up.
const teardownTimeout = 5 * time.Second

// Lease is one fresh browser context with one page target, on one
// sidecar, and a DevTools connection of its own to that page. Nothing of
// it is shared with any other lease: cookies, storage and cache die with
// Release, and whatever the page makes the browser send reaches only the
// lease's connection, never the browser's that the sidecar's pages share.
type Lease struct {
	// Session talks to the page, over the page's own connection.
	Session *cdp.Session
	// Browser talks to the browser (for commands that take a context id).
	Browser   *cdp.Session
	TargetID  target.ID
	ContextID cdproto.BrowserContextID
	// Sidecar is the address of the sidecar the page lives on.
	Sidecar string

	conn     *cdp.Conn
	page     *cdp.Conn // the page's own connection; nil until it is open
	sc       *sidecar
	once     sync.Once
	disposed sync.Once
}

// Lost is closed when the connection to the lease's browser drops: the
// sidecar or its Chromium died, and the lease can be retried elsewhere.
func (l *Lease) Lost() <-chan struct{} { return l.conn.Done() }

// sessionEnded reports whether the lease's page session is over (its
// target closed or crashed) while the browser connection lives on.
func (l *Lease) sessionEnded() bool {
	select {
	case <-l.Session.Done():
		return true
	default:
		return false
	}
}

// IsLost reports whether the lease's browser connection is gone.
func (l *Lease) IsLost() bool {
	select {
	case <-l.conn.Done():
		return true
	default:
		return false
	}
}

// Release disposes the browser context (closing its page) and returns the
// slot to the pool. It is safe to call more than once and from any path.
//
// The slot is free at once, while the context is torn down in the
// background: the next render need not wait for Chromium to close this
// one. Teardowns are bounded too: while a sidecar has as many contexts
// being disposed as it has slots, a released slot stays taken until its
// own context is gone, so a sidecar holds at most twice its limit of pages.
func (l *Lease) Release() {
	l.once.Do(func() {
		p := l.sc.p
		p.mu.Lock()
		early := l.sc.disposing < p.cfg.PerSidecar
		l.sc.disposing++
		p.mu.Unlock()
		if early {
			p.releaseSlot(l.sc)
		}
		p.spawn(func() {
			l.dispose()
			p.mu.Lock()
			l.sc.disposing--
			if !l.sc.fullUntil.IsZero() {
				// The sidecar has a page fewer: one that refused pages
				// for being full may take one now.
				l.sc.fullUntil = time.Time{}
				p.dispatchLocked()
			}
			p.mu.Unlock()
			if !early {
				p.releaseSlot(l.sc)
			} else {
				p.mu.Lock()
				l.sc.maybeForgetLocked()
				p.mu.Unlock()
			}
			l.sc.refillWhenIdle()
		})
	})
}

// dispose closes the page's browser context on a fresh, short context.
func (l *Lease) dispose() {
	l.disposed.Do(func() {
		// The page's connection goes first: disposing the context would
		// otherwise end it from the browser's side, mid-read.
		if l.page != nil {
			l.page.Close()
		}
		ctx, cancel := context.WithTimeout(context.Background(), teardownTimeout)
		defer cancel()
		_, err := cdp.Execute(ctx, l.Browser, target.DisposeBrowserContext,
			target.DisposeBrowserContextParams{BrowserContextID: l.ContextID})
		if err != nil && !errors.Is(err, cdp.ErrClosed) {
			l.sc.p.log.Warn("disposing a browser context failed", "sidecar", l.Sidecar, "err", err)
		}
		p := l.sc.p
		p.mu.Lock()
		l.sc.leaseDisposedLocked(l.conn)
		p.mu.Unlock()
	})
}

// take returns a ready lease on this sidecar, warm if one is waiting and
// o asks for nothing a warm one lacks.
func (sc *sidecar) take(ctx context.Context, o LeaseOptions) (*Lease, error) {
	p := sc.p
	p.mu.Lock()
	conn := sc.conn
	proxy := ""
	if o.Unfiltered {
		proxy = sc.unfilteredProxy
	}
	var l *Lease
	var ended []*Lease // warm pages whose page went away while they waited
	for !o.Unfiltered && o.Upstream == "" && len(sc.warm) > 0 {
		l = sc.warm[0]
		sc.warm = sc.warm[1:]
		if l.conn == conn && !l.IsLost() {
			if !l.sessionEnded() {
				break
			}
			ended = append(ended, l)
		} else if l.conn != conn {
			// Left from a browser generation that was replaced.
			ended = append(ended, l)
		}
		l = nil
	}
	p.mu.Unlock()
	for _, e := range ended {
		go e.dispose()
	}
	if !o.Unfiltered && o.Upstream == "" {
		defer sc.refill()
	}
	if l != nil {
		return l, nil
	}
	if conn == nil {
		return nil, fmt.Errorf("sidecar %s has no browser connection: %w", sc.addr, cdp.ErrClosed)
	}
	if o.Unfiltered && proxy == "" {
		return nil, fmt.Errorf("sidecar %s names no unfiltered egress in /healthz, so it cannot render with adblock off", sc.addr)
	}
	// The page is opened on a context the caller cannot cancel: Chromium
	// creates a browser context even when the caller gives up mid-call,
	// and only a finished open knows its id to dispose of it.
	octx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	l, err := sc.open(octx, conn, proxy, o.Upstream)
	if err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		l.dispose()
		return nil, ctx.Err()
	}
	return l, nil
}

// open creates a browser context, a page in it, and attaches to the page.
// A proxy ("host:port") replaces the browser's own for the context; an
// upstream (a caller's proxy URL) is where the sidecar's guard sends the
// context's traffic on to.
func (sc *sidecar) open(ctx context.Context, conn *cdp.Conn, proxy, upstream string) (*Lease, error) {
	browser := conn.Browser()
	disposeOnDetach := true
	params := contextParams{DisposeOnDetach: &disposeOnDetach, Upstream: upstream}
	if proxy != "" {
		// The same bypass rule as the browser's own proxy flags: loopback
		// is not exempt, every connection goes through the guard.
		params.ProxyServer = "http://" + proxy
		params.ProxyBypassList = "<-loopback>"
	}
	var bc target.CreateBrowserContextResult
	err := browser.Call(ctx, target.CreateBrowserContext.Method, params, &bc)
	if err != nil {
		return nil, fmt.Errorf("creating a browser context on %s: %w", sc.addr, err)
	}
	l := &Lease{Browser: browser, ContextID: bc.BrowserContextID, Sidecar: sc.addr, conn: conn, sc: sc}
	sc.p.mu.Lock()
	sc.leaseOpenedLocked(conn)
	sc.p.mu.Unlock()
	fail := func(step string, err error) (*Lease, error) {
		l.dispose()
		return nil, fmt.Errorf("%s on %s: %w", step, sc.addr, err)
	}
	t, err := cdp.Execute(ctx, browser, target.CreateTarget,
		target.CreateTargetParams{URL: "about:blank", BrowserContextID: bc.BrowserContextID})
	if err != nil {
		return fail("creating a page", err)
	}
	l.TargetID = t.TargetID
	pc, err := sc.dialPage(ctx, t.TargetID)
	if err != nil {
		return fail("connecting to a page", err)
	}
	l.page, l.Session = pc, pc.Browser()
	if sc.p.cfg.Prepare != nil {
		if err := sc.p.cfg.Prepare(ctx, l); err != nil {
			return fail("preparing a page", err)
		}
	}
	return l, nil
}

// dialPage opens the page's own DevTools connection through the sidecar,
// with the token and the read limit of a page.
func (sc *sidecar) dialPage(ctx context.Context, id target.ID) (*cdp.Conn, error) {
	p := sc.p
	return cdp.Dial(ctx, "ws://"+sc.addr+"/devtools/page/"+url.PathEscape(string(id)),
		cdp.WithPageTarget(id), cdp.WithLogger(p.log), cdp.WithHeader(p.auth),
		cdp.WithReadLimit(p.cfg.PageReadLimit), cdp.WithDropHook(p.cfg.OnEventDropped))
}

// refillIdle is how long a freed slot stays free before a warm page is
// opened in it: under steady load the next render takes the slot at once,
// and the page is opened for it instead.
const refillIdle = 100 * time.Millisecond

// refillWhenIdle refills once a freed slot has stayed free for refillIdle.
func (sc *sidecar) refillWhenIdle() {
	t := time.NewTimer(refillIdle)
	defer t.Stop()
	select {
	case <-t.C:
		sc.refill()
	case <-sc.ctx.Done():
	}
}

// fullBackoff is how long a sidecar that refused a page for being full is
// left alone, unless a page of this pool's on it closes first.
const fullBackoff = 250 * time.Millisecond

// markFull leaves the sidecar out of picks for fullBackoff, then hands its
// slots to waiting callers again.
func (sc *sidecar) markFull() {
	p := sc.p
	p.mu.Lock()
	sc.fullUntil = time.Now().Add(fullBackoff)
	p.mu.Unlock()
	p.log.Debug("the sidecar is full with other orchestrators' pages; trying it again shortly", "sidecar", sc.addr)
	time.AfterFunc(fullBackoff, func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if !p.closed {
			p.dispatchLocked()
		}
	})
}

// refill keeps cfg.Warm ready leases on a healthy sidecar.
func (sc *sidecar) refill() {
	p := sc.p
	p.mu.Lock()
	if !sc.usableLocked() || p.closed || time.Now().Before(sc.fullUntil) {
		p.mu.Unlock()
		return
	}
	// Warm pages and renders together stay within the sidecar's limit: at
	// full load a warm page saves no time (the browser's CPU is the limit)
	// and costs it more, as every page kept open competes with the renders.
	need := min(p.cfg.Warm, p.cfg.PerSidecar-sc.inUse) - len(sc.warm) - sc.warming
	if need <= 0 {
		p.mu.Unlock()
		return
	}
	sc.warming += need
	conn := sc.conn
	p.mu.Unlock()
	for range need {
		p.spawn(func() {
			ctx, cancel := context.WithTimeout(sc.ctx, 10*time.Second)
			l, err := sc.open(ctx, conn, "", "")
			cancel()
			if cdp.IsSidecarFull(err) {
				sc.markFull()
			}
			p.mu.Lock()
			sc.warming--
			keep := err == nil && sc.usableLocked() && sc.conn == conn && !p.closed
			if keep {
				sc.warm = append(sc.warm, l)
			}
			p.mu.Unlock()
			if err == nil && !keep {
				l.dispose()
			}
		})
	}
}

// contextParams are Target.createBrowserContext's parameters with the
// sidecar's own: glimpseUpstream, which its DevTools filter turns into the
// egress guard's route through the caller's proxy before Chromium sees it.
type contextParams struct {
	DisposeOnDetach *bool  `json:"disposeOnDetach,omitempty"`
	ProxyServer     string `json:"proxyServer,omitempty"`
	ProxyBypassList string `json:"proxyBypassList,omitempty"`
	Upstream        string `json:"glimpseUpstream,omitempty"`
}
