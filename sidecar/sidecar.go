package sidecar

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Health states.
const (
	StatusOK       = "ok"       // a browser is ready and takes new connections
	StatusStarting = "starting" // a browser is being launched
	StatusDraining = "draining" // the browser is being recycled in place (no successor could start) and waits for its pages
	StatusDown     = "down"     // no browser: it died, failed to start, or the sidecar closed
)

const (
	// backoffMin and backoffMax bound the wait before restarting a browser
	// that died; healthyAfter is how long a browser must have run for the
	// next crash to start again from backoffMin.
	backoffMin   = 100 * time.Millisecond
	backoffMax   = 5 * time.Second
	healthyAfter = time.Minute
	// drainPoll is how often a draining browser's open pages are re-counted
	// from the browser's own target list.
	drainPoll = 250 * time.Millisecond
	// handoverWait is how long a replaced generation keeps a client that has
	// no open page: a pool notices the new generation on its next health
	// probe (every second) and moves over, and killing the old browser
	// before then would cut its connection while it still opens pages there.
	handoverWait = 5 * time.Second
	// memoryCheckEvery is how often RecycleMemory is compared with the
	// browser's memory, and memoryCacheFor how long one reading serves Health.
	memoryCheckEvery = 5 * time.Second
	memoryCacheFor   = time.Second
	// A browser that stops answering its own DevTools connection is hung,
	// not dead, and would otherwise report ok forever. It is probed every
	// probeEvery and restarted after probeFailures probes in a row got no
	// answer within probeTimeout; one slow answer is not enough.
	probeEvery    = 10 * time.Second
	probeTimeout  = 5 * time.Second
	probeFailures = 2
)

// ErrClosed is returned by Start after Close.
var ErrClosed = errors.New("the sidecar is closed")

// Sidecar launches one Chromium at a time and keeps it running.
type Sidecar struct {
	cfg         Config
	logger      *slog.Logger
	memoryEvery time.Duration // how often RecycleMemory is checked
	probeEvery  time.Duration // how often the browser is asked whether it still answers
	probeWait   time.Duration // how long one probe waits
	handover    time.Duration // how long a replaced generation keeps idle clients

	secret       secret     // the token callers of /devtools/browser must send
	filter       *cdpFilter // judges every command a client sends to Chromium
	admission    *admission // counts every client's pages against MaxPages
	authRefusals atomic.Int64

	ctx    context.Context // ends at Close; bounds launches and supervision
	cancel context.CancelFunc
	wg     sync.WaitGroup // Start in progress and the supervisor

	mu     sync.Mutex
	status string
	cur    *generation // nil unless a browser is up (ok or draining)
	// replaced are earlier generations that a successor took over from and
	// that still finish their open pages; each is stopped by its own drain.
	replaced  map[*generation]struct{}
	gens      int // generations launched successfully
	restarts  int64
	recycles  int64
	starting  bool // a Start is in progress
	started   bool // a Start succeeded; the supervisor runs
	closed    bool
	memAt     time.Time
	memGen    int
	memBytes  int64
	closeErr  error
	closeOnce sync.Once

	profilesOnce sync.Once // profiles left by an earlier run are removed once, before the first launch
}

// New validates cfg and finds Chromium. It starts nothing.
func New(cfg Config) (*Sidecar, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Sidecar{
		cfg:         cfg,
		logger:      cfg.Logger,
		secret:      newSecret(cfg.Token),
		filter:      newCDPFilter(cfg.ProxyAddr, cfg.UnfilteredProxyAddr).routeContextsTo(cfg.ProxyAddr, cfg.BackgroundProxyAddr != "").withUpstreams(cfg.UpstreamRoute, cfg.UnfilteredProxyAddr),
		admission:   &admission{max: cfg.MaxPages},
		ctx:         ctx,
		cancel:      cancel,
		status:      StatusStarting,
		memoryEvery: memoryCheckEvery,
		probeEvery:  probeEvery,
		probeWait:   probeTimeout,
		handover:    handoverWait,
		replaced:    map[*generation]struct{}{},
	}, nil
}

// Start launches Chromium and returns once it is ready, or with the reason it
// is not. A failed Start leaves nothing running and may be called again; once
// one succeeded, the sidecar restarts and recycles the browser by itself.
func (s *Sidecar) Start(ctx context.Context) error {
	s.mu.Lock()
	switch {
	case s.closed:
		s.mu.Unlock()
		return ErrClosed
	case s.started:
		s.mu.Unlock()
		return errors.New("the sidecar is already started")
	case s.starting:
		s.mu.Unlock()
		return errors.New("the sidecar is being started by another call")
	}
	s.starting = true
	s.status = StatusStarting
	s.wg.Add(1)
	s.mu.Unlock()
	defer s.wg.Done()

	// Close must be able to interrupt a launch that the caller's ctx allows.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(s.ctx, cancel)
	defer stop()

	s.removeProfilesOnce()
	g, err := launch(ctx, s.cfg, s.nextGeneration())
	s.mu.Lock()
	s.starting = false
	closed := s.closed
	switch {
	case err != nil:
		s.status = StatusDown
	case !closed:
		s.adopt(g)
		s.started = true
		s.wg.Add(1)
		go s.supervise(g)
	}
	s.mu.Unlock()
	switch {
	case closed:
		if err == nil {
			// Close is waiting for this call and cannot see g: stop it here.
			s.stopQuietly(g)
		}
		return ErrClosed
	case err != nil:
		return fmt.Errorf("starting Chromium: %w", err)
	}
	return nil
}

func (s *Sidecar) nextGeneration() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gens + 1
}

// adopt makes g current. s.mu must be held.
func (s *Sidecar) adopt(g *generation) {
	s.cur = g
	s.gens = g.n
	s.status = StatusOK
}

// watchEnd says why watch returned.
type watchEnd int

const (
	endClosed  watchEnd = iota // the sidecar is closing; g is left for Close
	endCrashed                 // g died or hung and was stopped
	endRecycle                 // g is due for a recycle and still serves
)

// supervise watches the current generation and replaces it when it dies, is
// due for a recycle, or grows past RecycleMemory, until Close.
func (s *Sidecar) supervise(g *generation) {
	defer s.wg.Done()
	delay := backoffMin
	for {
		switch s.watch(g) {
		case endClosed:
			// Close stops the current generation itself.
			return
		case endRecycle:
			// The successor is launched while g still serves, so the sidecar
			// never stops taking connections for a planned recycle.
			if next := s.handOver(g); next != nil {
				g = next
				continue
			}
			if s.ctx.Err() != nil {
				return
			}
			if crashed := s.drain(g); s.ctx.Err() != nil {
				return
			} else if crashed {
				s.logger.Error("Chromium exited while it was draining for a recycle; restarting it.", "generation", g.n, "exit", exitDescription(g))
				s.retire(g, StatusDown)
				s.countRestart(g, &delay)
			} else {
				s.retire(g, StatusStarting)
				s.mu.Lock()
				s.recycles++
				s.mu.Unlock()
				delay = 0
			}
		case endCrashed:
			s.countRestart(g, &delay)
		}
		if g = s.relaunch(&delay); g == nil {
			return
		}
	}
}

func (s *Sidecar) countRestart(g *generation, delay *time.Duration) {
	s.mu.Lock()
	s.restarts++
	s.mu.Unlock()
	if g.uptime() >= healthyAfter {
		*delay = backoffMin
	}
}

// watch waits for g to need replacing. A crashed or hung g is stopped here;
// one due for a recycle is left running for the caller to hand over.
func (s *Sidecar) watch(g *generation) watchEnd {
	mem := time.NewTicker(s.memoryEvery)
	defer mem.Stop()
	probe := time.NewTicker(s.probeEvery)
	defer probe.Stop()
	failures := 0
	for {
		select {
		case <-s.ctx.Done():
			return endClosed
		case <-g.dead:
			s.logger.Error("Chromium exited unexpectedly; restarting it.", "generation", g.n, "pid", g.proc.pid,
				"uptime", g.uptime().Round(time.Millisecond).String(), "exit", exitDescription(g))
			s.retire(g, StatusDown)
			return endCrashed
		case <-probe.C:
			err := g.probe(s.ctx, s.probeWait)
			if err == nil || s.ctx.Err() != nil {
				failures = 0
				continue
			}
			if failures++; failures < probeFailures {
				s.logger.Warn("Chromium did not answer a health probe in time.", "generation", g.n, "timeout", s.probeWait.String(), "err", err)
				continue
			}
			s.logger.Error("Chromium stopped answering; restarting it.", "generation", g.n, "pid", g.proc.pid,
				"failed_probes", failures, "timeout", s.probeWait.String(), "err", err)
			s.retire(g, StatusDown)
			return endCrashed
		case <-g.recycleDue:
			return endRecycle
		case <-mem.C:
			if limit := s.cfg.RecycleMemory; limit > 0 {
				if used := s.memory(g); used > limit {
					g.requestRecycle(fmt.Sprintf("it uses %d bytes, over the limit of %d", used, limit))
				}
			}
		}
	}
}

// handOver launches the generation after old and makes it current while old
// keeps serving the clients it has: from then on new connections reach the
// new browser, and old is stopped in the background once its clients are
// gone or RecycleGrace passed. It returns nil, leaving old current, when the
// successor could not start or the sidecar is closing.
func (s *Sidecar) handOver(old *generation) *generation {
	open, created, _ := old.counts()
	next, err := launch(s.ctx, s.cfg, s.nextGeneration())
	if err != nil {
		if s.ctx.Err() == nil {
			s.logger.Error("Could not start the next Chromium for a recycle; recycling the current one in place instead, which takes this sidecar out of service until it is back.",
				"generation", old.n, "err", err)
		}
		return nil
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		// Close is waiting for the supervisor and cannot see next.
		s.stopQuietly(next)
		return nil
	}
	s.adopt(next)
	s.recycles++
	s.replaced[old] = struct{}{}
	s.wg.Add(1)
	s.mu.Unlock()
	s.logger.Info("Recycling Chromium: the next generation takes new connections, and this one is stopped once its clients are gone.",
		"generation", old.n, "next_generation", next.n, "reason", old.recycleWhy, "open_pages", open, "pages_created", created,
		"grace", s.cfg.RecycleGrace.String())
	go s.finish(old)
	return next
}

// finish waits until a replaced generation may go, then stops it. It may go
// once no client is connected to it, or once it has had no open page for
// s.handover (a client that keeps an idle connection open would otherwise
// hold it for the whole grace), or when RecycleGrace passed, which is at
// least the longest request a client may make.
func (s *Sidecar) finish(g *generation) {
	defer s.wg.Done()
	defer func() {
		s.stopQuietly(g)
		s.mu.Lock()
		delete(s.replaced, g)
		s.mu.Unlock()
	}()
	grace := time.NewTimer(s.cfg.RecycleGrace)
	defer grace.Stop()
	poll := time.NewTicker(drainPoll)
	defer poll.Stop()
	var idleSince time.Time
	for {
		open, _, _ := g.counts()
		switch {
		case g.clientCount() == 0:
			return
		case open > 0:
			idleSince = time.Time{}
		case idleSince.IsZero():
			idleSince = time.Now()
		case time.Since(idleSince) >= s.handover:
			return
		}
		select {
		case <-s.ctx.Done():
			return
		case <-g.dead:
			return
		case <-grace.C:
			s.logger.Warn("Stopping a replaced Chromium with pages still open: the grace period passed.",
				"generation", g.n, "open_pages", open, "clients", g.clientCount(), "grace", s.cfg.RecycleGrace.String())
			return
		case <-poll.C:
			if open > 0 {
				ctx, cancel := context.WithTimeout(s.ctx, drainPoll)
				if err := g.reconcile(ctx); err != nil && s.ctx.Err() == nil {
					s.logger.Debug("Could not re-count Chromium's pages while it finishes.", "generation", g.n, "err", err)
				}
				cancel()
			}
		}
	}
}

// drain marks g draining and waits until it has no open page or the grace
// period passed. It reports whether the browser died meanwhile. It is the
// recycle of last resort, for when no successor could be started.
func (s *Sidecar) drain(g *generation) (crashed bool) {
	open, created, _ := g.counts()
	s.logger.Info("Recycling Chromium: it takes no new connections and is restarted once its open pages close.",
		"generation", g.n, "reason", g.recycleWhy, "open_pages", open, "pages_created", created, "grace", s.cfg.RecycleGrace.String())
	s.mu.Lock()
	s.status = StatusDraining
	s.mu.Unlock()

	grace := time.NewTimer(s.cfg.RecycleGrace)
	defer grace.Stop()
	poll := time.NewTicker(drainPoll)
	defer poll.Stop()
	for {
		if open, _, _ := g.counts(); open == 0 {
			return false
		}
		select {
		case <-s.ctx.Done():
			return false
		case <-g.dead:
			return true
		case <-grace.C:
			open, _, _ := g.counts()
			s.logger.Warn("Recycling Chromium with pages still open: the grace period passed.",
				"generation", g.n, "open_pages", open, "grace", s.cfg.RecycleGrace.String())
			return false
		case <-poll.C:
			ctx, cancel := context.WithTimeout(s.ctx, drainPoll)
			if err := g.reconcile(ctx); err != nil && s.ctx.Err() == nil {
				s.logger.Debug("Could not re-count Chromium's pages while draining.", "generation", g.n, "err", err)
			}
			cancel()
		}
	}
}

// retire takes g out of service and stops it.
func (s *Sidecar) retire(g *generation, next string) {
	s.mu.Lock()
	if s.cur == g {
		s.cur = nil
	}
	s.status = next
	s.mu.Unlock()
	s.stopQuietly(g)
}

// stopQuietly stops g and logs, rather than returns, what went wrong: the
// caller moves on to the next generation either way.
func (s *Sidecar) stopQuietly(g *generation) {
	if err := g.stop(); err != nil {
		s.logger.Error("Chromium did not stop cleanly.", "generation", g.n, "err", err)
	}
}

// relaunch starts the next generation, waiting *delay first and growing the
// delay after each failed attempt. It returns nil when the sidecar closes.
func (s *Sidecar) relaunch(delay *time.Duration) *generation {
	for {
		if *delay > 0 {
			t := time.NewTimer(*delay)
			select {
			case <-s.ctx.Done():
				t.Stop()
				return nil
			case <-t.C:
			}
		}
		s.mu.Lock()
		s.status = StatusStarting
		s.mu.Unlock()

		g, err := launch(s.ctx, s.cfg, s.nextGeneration())
		*delay = nextBackoff(*delay)
		if err == nil {
			s.mu.Lock()
			closed := s.closed
			if !closed {
				s.adopt(g)
			}
			s.mu.Unlock()
			if closed {
				// Close is waiting for the supervisor and cannot see g.
				s.stopQuietly(g)
				return nil
			}
			return g
		}
		if s.ctx.Err() != nil {
			return nil
		}
		s.mu.Lock()
		s.status = StatusDown
		s.mu.Unlock()
		s.logger.Error("Could not start Chromium; trying again.", "retry_in", delay.String(), "err", err)
	}
}

// nextBackoff doubles d within [backoffMin, backoffMax].
func nextBackoff(d time.Duration) time.Duration {
	d *= 2
	if d < backoffMin {
		return backoffMin
	}
	return min(d, backoffMax)
}

func exitDescription(g *generation) string {
	// The DevTools connection often breaks a moment before the exit is seen.
	t := time.NewTimer(500 * time.Millisecond)
	defer t.Stop()
	select {
	case <-g.proc.exited:
		if g.proc.waitErr != nil {
			return g.proc.waitErr.Error()
		}
		return "exit status 0"
	case <-t.C:
		return "the browser process still ran, but its DevTools connection broke"
	}
}

// Close stops supervising, kills Chromium's process group, waits for it and
// removes its profile directory. Proxied connections are closed.
func (s *Sidecar) Close() error {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		s.mu.Unlock()
		s.cancel()
		s.wg.Wait()

		s.mu.Lock()
		g := s.cur
		s.cur = nil
		s.status = StatusDown
		s.mu.Unlock()
		if g != nil {
			s.closeErr = g.stop()
		}
	})
	return s.closeErr
}

// current returns the generation new connections go to, or nil and the
// status that explains why there is none.
func (s *Sidecar) current() (*generation, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.status != StatusOK || s.cur == nil {
		return nil, s.status
	}
	return s.cur, s.status
}

// BrowserPID returns the pid of the current browser process, or 0.
func (s *Sidecar) BrowserPID() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur == nil {
		return 0
	}
	return s.cur.proc.pid
}

// Generation returns the number of the latest browser launched, 1 for the
// first; 0 before any.
func (s *Sidecar) Generation() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gens
}

// Handler serves GET /healthz, GET /devtools/browser, GET
// /devtools/page/{id} and GET /json/version.
// The caller mounts anything else, such as /metrics. With Config.Token set,
// everything but /healthz answers 401 to a request without it.
func (s *Sidecar) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", s.serveHealth)
	mux.Handle("GET /devtools/browser", s.requireToken(http.HandlerFunc(s.serveDevTools)))
	mux.Handle("GET /devtools/page/{id}", s.requireToken(http.HandlerFunc(s.serveDevToolsPage)))
	mux.Handle("GET /json/version", s.requireToken(http.HandlerFunc(s.serveVersion)))
	return mux
}

// CDPRefusals counts the DevTools commands refused by the filter of
// /devtools/browser, by reason (metrics.CDPRefusalReasons).
func (s *Sidecar) CDPRefusals() map[string]int64 { return s.filter.Refusals() }
