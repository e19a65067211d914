package sidecar

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/chromedp/cdproto/browser"
	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/target"

	"github.com/glimpse/glimpse/cdp"
)

const (
	// eventBuffer is generous so that a burst of page targets does not drop
	// events and skew the page counts between reconciliations.
	eventBuffer = 1024
	// stopTimeout bounds how long a generation may take to disappear.
	stopTimeout = 10 * time.Second
	// pageType is the only target type counted: workers, iframes and the
	// browser's own UI targets are not what a recycle is about.
	pageType = "page"
	// recycleJitterPercent is how far, at most, one generation's recycle
	// point lies from RecycleAfter either way. Sidecars that share load
	// evenly would otherwise all reach it, and recycle, at the same time.
	recycleJitterPercent = 15
)

// jitteredRecycleAfter returns n moved by a random amount of at most
// recycleJitterPercent of n either way; intN is rand.IntN outside tests.
// 0 (never) stays 0, and a point is never below 1.
func jitteredRecycleAfter(n int, intN func(int) int) int {
	spread := n * recycleJitterPercent / 100
	if n <= 0 || spread == 0 {
		return n
	}
	return max(1, n-spread+intN(2*spread+1))
}

// generation is one Chromium from launch to stop: its process group, the
// sidecar's own DevTools connection that watches its targets, and the client
// connections proxied to it.
type generation struct {
	n       int
	proc    *process
	wsURL   string
	product string // Browser.getVersion product, e.g. HeadlessChrome/156.0…
	version browser.GetVersionResult
	readyAt time.Time
	conn    *cdp.Conn
	logger  *slog.Logger
	// unprotect ends the egress guard's refusal of the browser's DevTools
	// port (Config.ProtectPort); nil when nothing protects it.
	unprotect     func()
	unprotectOnce sync.Once

	recycleAfter int
	recycleOnce  sync.Once
	recycleDue   chan struct{} // closed once a recycle was asked for
	recycleWhy   string        // written before recycleDue closes

	watching  bool          // the watcher was started; set before launch returns
	watchDone chan struct{} // closed when the watcher ended
	dead      chan struct{} // closed when the browser exited or its DevTools connection broke

	mu      sync.Mutex
	initial map[target.ID]bool     // pages that existed before readiness
	open    map[target.ID]struct{} // pages created after readiness and still open
	created int64
	crashed int64
	clients map[*proxyConn]struct{}
	retired bool // no new clients once set
}

// launch starts Chromium and waits until it is usable: DevTools announced,
// connected, downloads denied and targets watched. On any failure nothing of
// the attempt is left behind.
func launch(ctx context.Context, cfg Config, n int) (_ *generation, err error) {
	logger := cfg.Logger.With("generation", n)
	becomeSubreaper(logger)
	ctx, cancel := context.WithTimeout(ctx, cfg.StartTimeout)
	defer cancel()

	dir, err := newProfileDir()
	if err != nil {
		return nil, err
	}
	proc, err := startProcess(cfg.ChromePath, chromeArgs(cfg, dir), dir, logger)
	if err != nil {
		_ = removeProfile(dir)
		return nil, err
	}
	g := &generation{
		n:            n,
		proc:         proc,
		logger:       logger,
		recycleAfter: jitteredRecycleAfter(cfg.RecycleAfter, rand.IntN),
		recycleDue:   make(chan struct{}),
		watchDone:    make(chan struct{}),
		initial:      map[target.ID]bool{},
		open:         map[target.ID]struct{}{},
		clients:      map[*proxyConn]struct{}{},
	}
	defer func() {
		if err == nil {
			return
		}
		if stopErr := g.stop(); stopErr != nil {
			logger.Error("Chromium did not stop cleanly after a failed start.", "err", stopErr)
		}
	}()

	if g.wsURL, err = proc.waitReady(ctx); err != nil {
		return nil, err
	}
	if cfg.ProtectPort != nil {
		port, err := portOf(g.wsURL)
		if err != nil {
			return nil, err
		}
		g.unprotect = cfg.ProtectPort(port)
	}
	proc.noteStrays()
	if g.conn, err = cdp.Dial(ctx, g.wsURL, cdp.WithEventBuffer(eventBuffer), cdp.WithLogger(logger)); err != nil {
		return nil, fmt.Errorf("connecting to Chromium's DevTools endpoint %s: %w", g.wsURL, err)
	}
	if err := g.prepare(ctx); err != nil {
		return nil, err
	}
	g.readyAt = time.Now()
	g.dead = make(chan struct{})
	go func() {
		defer close(g.dead)
		select {
		case <-proc.exited:
		case <-g.conn.Done():
		}
	}()
	logger.Info("Chromium is ready.", "pid", proc.pid, "browser", g.product, "kind", browserKind(cfg.ChromePath), "profile", dir)
	return g, nil
}

// prepare runs the browser-level setup and starts watching page targets.
func (g *generation) prepare(ctx context.Context) error {
	sess := g.conn.Browser()
	v, err := cdp.Execute(ctx, sess, browser.GetVersion, cdproto.Empty{})
	if err != nil {
		return fmt.Errorf("asking Chromium for its version: %w", err)
	}
	g.product, g.version = v.Product, v

	// A page that triggers a download must not fill the disk of the sidecar.
	if _, err := cdp.Execute(ctx, sess, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
		Behavior: browser.SetDownloadBehaviorBehaviorDeny,
	}); err != nil {
		return fmt.Errorf("denying downloads in Chromium: %w", err)
	}

	// Subscribe before discovery is switched on, so no event falls between.
	events, cancel := sess.Listen(
		target.TargetCreated.Method,
		target.TargetDestroyed.Method,
		target.TargetCrashed.Method,
	)
	ok := false
	defer func() {
		if !ok {
			cancel()
		}
	}()
	if _, err := cdp.Execute(ctx, sess, target.SetDiscoverTargets, target.SetDiscoverTargetsParams{Discover: true}); err != nil {
		return fmt.Errorf("asking Chromium to report its targets: %w", err)
	}
	pages, err := g.pageTargets(ctx)
	if err != nil {
		return err
	}
	for _, id := range pages {
		g.initial[id] = true
	}
	ok = true
	g.watching = true
	go g.watch(events, cancel)

	// The start-up blank page is nobody's; closing it frees a renderer.
	for _, id := range pages {
		if _, err := cdp.Execute(ctx, sess, target.CloseTarget, target.CloseTargetParams{TargetID: id}); err != nil {
			g.logger.Debug("Could not close Chromium's start-up page.", "target", id, "err", err)
		}
	}
	return nil
}

func (g *generation) pageTargets(ctx context.Context) ([]target.ID, error) {
	res, err := cdp.Execute(ctx, g.conn.Browser(), target.GetTargets, target.GetTargetsParams{})
	if err != nil {
		return nil, fmt.Errorf("listing Chromium's targets: %w", err)
	}
	var ids []target.ID
	for _, t := range res.TargetInfos {
		if t != nil && t.Type == pageType {
			ids = append(ids, t.TargetID)
		}
	}
	return ids, nil
}

// watch keeps the page counts from target events until the connection ends.
func (g *generation) watch(events <-chan cdp.Event, cancel func()) {
	defer close(g.watchDone)
	defer cancel()
	for ev := range events {
		switch ev.Method {
		case target.TargetCreated.Method:
			var e target.EventTargetCreated
			if err := jsonv2.Unmarshal(ev.Params, &e); err != nil || e.TargetInfo == nil {
				g.logger.Warn("Chromium sent a targetCreated event that could not be read.", "err", err)
				continue
			}
			if e.TargetInfo.Type == pageType {
				g.pageCreated(e.TargetInfo.TargetID)
			}
		case target.TargetDestroyed.Method:
			var e target.EventTargetDestroyed
			if err := jsonv2.Unmarshal(ev.Params, &e); err != nil {
				g.logger.Warn("Chromium sent a targetDestroyed event that could not be read.", "err", err)
				continue
			}
			g.mu.Lock()
			delete(g.open, e.TargetID)
			g.mu.Unlock()
		case target.TargetCrashed.Method:
			var e target.EventTargetCrashed
			if err := jsonv2.Unmarshal(ev.Params, &e); err != nil {
				continue
			}
			g.mu.Lock()
			_, isPage := g.open[e.TargetID]
			if isPage {
				g.crashed++
			}
			g.mu.Unlock()
			if isPage {
				g.logger.Warn("A page's renderer crashed in Chromium; the browser itself keeps running.",
					"target", e.TargetID, "status", e.Status, "code", e.ErrorCode)
			}
		}
	}
}

func (g *generation) pageCreated(id target.ID) {
	g.mu.Lock()
	if g.initial[id] {
		g.mu.Unlock()
		return
	}
	_, seen := g.open[id]
	g.open[id] = struct{}{}
	if !seen {
		g.created++
	}
	due := g.recycleAfter > 0 && g.created >= int64(g.recycleAfter)
	created := g.created
	g.mu.Unlock()
	if due {
		g.requestRecycle(fmt.Sprintf("%d page targets were created", created))
	}
}

// probe asks the browser for its version, which it answers from its main
// thread: a hung browser does not.
func (g *generation) probe(ctx context.Context, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	_, err := cdp.Execute(ctx, g.conn.Browser(), browser.GetVersion, cdproto.Empty{})
	return err
}

// reconcile replaces the open-page set with the browser's own list, in case
// an event was dropped while the watcher lagged.
func (g *generation) reconcile(ctx context.Context) error {
	ids, err := g.pageTargets(ctx)
	if err != nil {
		return err
	}
	open := make(map[target.ID]struct{}, len(ids))
	for _, id := range ids {
		open[id] = struct{}{}
	}
	g.mu.Lock()
	for id := range g.initial {
		delete(open, id)
	}
	g.open = open
	g.mu.Unlock()
	return nil
}

func (g *generation) requestRecycle(why string) {
	g.recycleOnce.Do(func() {
		g.recycleWhy = why
		close(g.recycleDue)
	})
}

func (g *generation) counts() (open int, created, crashed int64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.open), g.created, g.crashed
}

// addClient registers a proxied connection; it fails once the generation is
// being retired, so no client is left attached to a dying browser.
func (g *generation) addClient(c *proxyConn) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.retired {
		return false
	}
	g.clients[c] = struct{}{}
	return true
}

func (g *generation) clientCount() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.clients)
}

func (g *generation) removeClient(c *proxyConn) {
	g.mu.Lock()
	delete(g.clients, c)
	g.mu.Unlock()
}

// retire refuses new clients and closes the proxied ones, so each of them
// reconnects to the next generation.
func (g *generation) retire() {
	g.mu.Lock()
	g.retired = true
	clients := make([]*proxyConn, 0, len(g.clients))
	for c := range g.clients {
		clients = append(clients, c)
	}
	g.mu.Unlock()
	for _, c := range clients {
		c.shutdown()
	}
}

// stop ends everything the generation owns. It is safe to call more than
// once and on a generation whose launch failed half-way.
func (g *generation) stop() error {
	g.retire()
	var errs []error
	if g.conn != nil {
		_ = g.conn.Close()
		if g.watching {
			<-g.watchDone
		}
	}
	if err := g.proc.stop(stopTimeout); err != nil {
		errs = append(errs, err)
	}
	// Only once the browser is gone: until then its port is still its own.
	if g.unprotect != nil {
		g.unprotectOnce.Do(g.unprotect)
	}
	return errors.Join(errs...)
}

// portOf returns the port of the DevTools address Chromium announced.
func portOf(wsURL string) (uint16, error) {
	u, err := url.Parse(wsURL)
	if err == nil {
		if p, perr := strconv.ParseUint(u.Port(), 10, 16); perr == nil && p > 0 {
			return uint16(p), nil
		}
	}
	return 0, fmt.Errorf("Chromium announced a DevTools address without a port, %q", wsURL)
}

func (g *generation) uptime() time.Duration {
	if g.readyAt.IsZero() {
		return 0
	}
	return time.Since(g.readyAt)
}
