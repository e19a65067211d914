package pool

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/glimpse/glimpse/cdp"
)

// state is what the pool knows of one sidecar.
type state int

const (
	stateStarting  state = iota // discovered, not yet probed successfully
	stateHealthy                // probes pass and the DevTools connection is up
	stateUnhealthy              // probes fail, or the connection dropped
	stateDraining               // the sidecar asked for no new pages (recycling)
)

// failuresBeforeUnhealthy tolerates one lost probe: a busy sidecar may
// answer late once without being taken out of rotation.
const failuresBeforeUnhealthy = 2

// successesBeforeHealthy is how many good probes in a row bring an
// unhealthy sidecar back: one would let a flapping sidecar in and out of
// rotation with every probe, and its warm pages with it.
const successesBeforeHealthy = 2

// sidecar is one sidecar address and everything the pool holds on it.
// Fields below mu are guarded by the pool's mutex.
type sidecar struct {
	p    *Pool
	addr string

	ctx    context.Context
	cancel context.CancelFunc
	kick   chan struct{} // asks for a probe now, e.g. after a dropped connection

	probeMu sync.Mutex // one probe at a time, so two never both connect

	state   state
	removed bool
	inUse   int
	fails   int
	oks     int // good probes in a row
	// downSince is when the sidecar last became unhealthy: one that has
	// just dropped is most often restarting its browser.
	downSince time.Time
	conn      *cdp.Conn
	// gen is the browser generation conn reaches, as /healthz numbers
	// them; 0 when the sidecar does not say.
	gen int
	// leases counts the undisposed leases, warm ones included, on each
	// connection. A connection that a newer generation replaced is closed
	// when its count reaches zero, which lets the sidecar stop the old
	// browser at once instead of after its grace period.
	leases   map[*cdp.Conn]int
	warm     []*Lease
	warming  int
	lastSeen string // last health status, for logs
	// disposing counts released leases whose contexts are still being
	// torn down (Lease.Release).
	disposing int
	// fullUntil is when a sidecar that refused a page for being full (its
	// own page limit, reached by every orchestrator together) is tried
	// again; until then it is skipped like one at PerSidecar.
	fullUntil time.Time
	// unfilteredProxy is the sidecar's egress guard without its ad-block
	// list, as the browser reaches it, from /healthz; "" when it has none.
	unfilteredProxy string
}

func newSidecar(p *Pool, addr string) *sidecar {
	ctx, cancel := context.WithCancel(p.ctx)
	return &sidecar{p: p, addr: addr, ctx: ctx, cancel: cancel, kick: make(chan struct{}, 1), leases: map[*cdp.Conn]int{}}
}

func (sc *sidecar) usableLocked() bool {
	if sc.state != stateHealthy || sc.removed || sc.conn == nil {
		return false
	}
	select {
	case <-sc.conn.Done(): // dropped; the watcher has not caught up yet
		return false
	default:
		return true
	}
}

// markDownLocked takes the sidecar out of rotation and notes since when.
func (sc *sidecar) markDownLocked() {
	if sc.state != stateUnhealthy {
		sc.downSince = time.Now()
	}
	sc.state = stateUnhealthy
}

// lost takes the sidecar out of rotation after its connection failed under
// a caller, before the watcher notices, and asks for a probe. A failure on
// another connection (a page's own, or a browser a recycle replaced) says
// nothing of the current browser's, which then stays in rotation.
func (sc *sidecar) lost() {
	p := sc.p
	p.mu.Lock()
	if sc.conn != nil && sc.conn.Err() == nil {
		p.mu.Unlock()
		return
	}
	if sc.state == stateHealthy {
		sc.markDownLocked()
	}
	sc.dropWarmLocked()
	p.mu.Unlock()
	select {
	case sc.kick <- struct{}{}:
	default:
	}
}

func (sc *sidecar) stateNameLocked() string {
	switch {
	case sc.state == stateHealthy && !sc.removed:
		return "healthy"
	case sc.state == stateDraining || sc.removed:
		return "draining"
	default:
		return "unhealthy"
	}
}

// run probes the sidecar until it is removed or the pool closes.
func (sc *sidecar) run() {
	t := time.NewTicker(sc.p.cfg.HealthInterval)
	defer t.Stop()
	for {
		select {
		case <-sc.ctx.Done():
			return
		case <-t.C:
		case <-sc.kick:
		}
		sc.probe(sc.ctx)
	}
}

// healthReport is the part of a sidecar's /healthz answer the pool reads.
type healthReport struct {
	Status          string `json:"status"`
	Generation      int    `json:"generation"`
	UnfilteredProxy string `json:"unfiltered_proxy"`
}

// probe asks /healthz, connects when the sidecar is ready and no
// connection is up, and moves the sidecar between states.
func (sc *sidecar) probe(ctx context.Context) {
	sc.probeMu.Lock()
	defer sc.probeMu.Unlock()
	report, err := sc.health(ctx)
	status := report.Status
	p := sc.p
	if err != nil {
		p.mu.Lock()
		sc.fails++
		sc.oks = 0
		if sc.fails >= failuresBeforeUnhealthy && sc.state != stateUnhealthy {
			sc.markDownLocked()
			p.log.Warn("sidecar is unhealthy; no new pages go to it", "sidecar", sc.addr, "err", err)
			sc.dropWarmLocked()
		}
		p.mu.Unlock()
		return
	}
	switch status {
	case "ok":
		p.mu.Lock()
		conn, gen := sc.conn, sc.gen
		sc.unfilteredProxy = report.UnfilteredProxy
		p.mu.Unlock()
		if conn != nil && report.Generation > 0 && gen != report.Generation {
			// The sidecar recycled its browser and the next one already
			// serves: new leases go there, while those on the old
			// connection finish undisturbed. Until this works the old
			// connection still serves, so a failure changes nothing.
			if _, err := sc.dial(ctx, report.Generation); err != nil {
				p.log.Info("connecting to the sidecar's new browser failed; the current one still serves", "sidecar", sc.addr, "generation", report.Generation, "err", err)
			}
		}
		if conn == nil {
			if _, err := sc.dial(ctx, report.Generation); err != nil {
				p.mu.Lock()
				sc.fails++
				sc.oks = 0
				if sc.fails >= failuresBeforeUnhealthy {
					sc.markDownLocked()
				}
				p.mu.Unlock()
				p.log.Warn("connecting to the sidecar's browser failed", "sidecar", sc.addr, "err", err)
				return
			}
		}
		p.mu.Lock()
		was := sc.state
		sc.fails = 0
		sc.oks++
		if was == stateUnhealthy && sc.oks < successesBeforeHealthy {
			p.mu.Unlock()
			return
		}
		sc.state = stateHealthy
		if was != stateHealthy {
			p.log.Info("sidecar is healthy", "sidecar", sc.addr)
		}
		p.dispatchLocked()
		p.mu.Unlock()
		sc.refill()
	case "draining":
		p.mu.Lock()
		if sc.state != stateDraining {
			p.log.Info("sidecar is recycling its browser; no new pages go to it", "sidecar", sc.addr)
		}
		sc.state = stateDraining
		sc.fails = 0
		sc.dropWarmLocked()
		p.mu.Unlock()
	default: // starting, down
		p.mu.Lock()
		sc.fails++
		sc.oks = 0
		// A browser that is starting is on its way; one that stays down is
		// not, and callers should hear so rather than wait.
		switch {
		case sc.state == stateHealthy || (status != "starting" && sc.fails >= failuresBeforeUnhealthy && sc.state != stateUnhealthy):
			sc.markDownLocked()
			p.log.Warn("sidecar reports its browser is not ready", "sidecar", sc.addr, "status", status)
		case status == "starting" && sc.state == stateUnhealthy:
			sc.state = stateStarting
		}
		sc.dropWarmLocked()
		p.mu.Unlock()
	}
}

// health reads the sidecar's /healthz.
func (sc *sidecar) health(ctx context.Context) (healthReport, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+sc.addr+"/healthz", nil)
	if err != nil {
		return healthReport{}, err
	}
	resp, err := sc.p.cfg.HTTPClient.Do(req)
	if err != nil {
		return healthReport{}, err
	}
	defer resp.Body.Close()
	var h healthReport
	if err := json.NewDecoder(io.LimitReader(resp.Body, 64<<10)).Decode(&h); err != nil {
		return healthReport{}, fmt.Errorf("reading %s/healthz: %w", sc.addr, err)
	}
	if h.Status == "" {
		return healthReport{}, fmt.Errorf("%s/healthz answered %s without a status", sc.addr, resp.Status)
	}
	return h, nil
}

// dial opens the DevTools connection that new leases on this sidecar share,
// to browser generation gen when gen > 0, and watches it: when it drops,
// the sidecar is out of rotation until a probe connects again. A
// connection to an older generation stays open for the leases still on it.
func (sc *sidecar) dial(ctx context.Context, gen int) (*cdp.Conn, error) {
	dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	u := "ws://" + sc.addr + "/devtools/browser"
	if gen > 0 {
		u += "?generation=" + strconv.Itoa(gen)
	}
	c, err := cdp.Dial(dctx, u, cdp.WithLogger(sc.p.log), cdp.WithHeader(sc.p.auth),
		cdp.WithDropHook(sc.p.cfg.OnEventDropped))
	if err != nil {
		return nil, err
	}
	p := sc.p
	p.mu.Lock()
	if sc.removed || p.closed {
		p.mu.Unlock()
		c.Close()
		return nil, fmt.Errorf("sidecar %s was removed while connecting", sc.addr)
	}
	if sc.conn != nil && (gen == 0 || sc.gen >= gen) {
		// Another probe connected first; one connection per generation.
		existing := sc.conn
		p.mu.Unlock()
		c.Close()
		return existing, nil
	}
	if old := sc.conn; old != nil {
		// Warm pages of the old browser would only hold up its exit.
		sc.dropWarmLocked()
		if sc.leases[old] == 0 {
			delete(sc.leases, old)
			go old.Close()
		}
	}
	sc.conn, sc.gen = c, gen
	p.goLocked(func() {
		<-c.Done()
		p.mu.Lock()
		delete(sc.leases, c) // its leases died with it
		if sc.conn == c {
			sc.conn = nil
			sc.oks = 0
			if sc.state == stateHealthy {
				sc.markDownLocked()
				p.log.Warn("the connection to the sidecar's browser dropped", "sidecar", sc.addr, "err", c.Err())
			}
			// Their pages died with the connection; their own
			// connections are closed here.
			sc.dropWarmLocked()
		}
		p.mu.Unlock()
		select {
		case sc.kick <- struct{}{}:
		default:
		}
	})
	p.mu.Unlock()
	return c, nil
}

// leaseOpenedLocked counts a new lease on conn.
func (sc *sidecar) leaseOpenedLocked(conn *cdp.Conn) {
	sc.leases[conn]++
}

// leaseDisposedLocked counts a lease on conn as gone, and closes conn once a
// newer generation replaced it and nothing uses it any more.
func (sc *sidecar) leaseDisposedLocked(conn *cdp.Conn) {
	n, ok := sc.leases[conn]
	if !ok {
		return // the connection dropped and was forgotten
	}
	if n > 1 {
		sc.leases[conn] = n - 1
		return
	}
	delete(sc.leases, conn)
	if conn != sc.conn {
		go conn.Close()
	}
}

// dropWarmLocked disposes the ready contexts: a draining or sick sidecar
// must not keep pages open that hold up its recycle.
func (sc *sidecar) dropWarmLocked() {
	warm := sc.warm
	sc.warm = nil
	for _, l := range warm {
		sc.p.goLocked(l.dispose)
	}
}

// removeLocked takes a sidecar that discovery no longer lists out of
// rotation; its connection closes once its last lease is back.
func (sc *sidecar) removeLocked() {
	sc.removed = true
	sc.cancel()
	sc.dropWarmLocked()
	sc.maybeForgetLocked()
}

// maybeForgetLocked deletes a removed sidecar once nothing uses it.
func (sc *sidecar) maybeForgetLocked() {
	if !sc.removed || sc.inUse > 0 || sc.disposing > 0 {
		return
	}
	if sc.p.sidecars[sc.addr] == sc {
		delete(sc.p.sidecars, sc.addr)
	}
	if sc.conn != nil {
		c := sc.conn
		sc.conn = nil
		go c.Close()
	}
	for c := range sc.leases {
		go c.Close()
	}
	clear(sc.leases)
}

// shutdown is the pool's Close for one sidecar.
func (sc *sidecar) shutdown() {
	p := sc.p
	p.mu.Lock()
	sc.removed = true
	sc.cancel()
	warm := sc.warm
	sc.warm = nil
	conns := []*cdp.Conn{}
	if sc.conn != nil {
		conns = append(conns, sc.conn)
	}
	for c := range sc.leases {
		if c != sc.conn {
			conns = append(conns, c)
		}
	}
	sc.conn = nil
	p.mu.Unlock()
	for _, l := range warm {
		l.dispose()
	}
	for _, c := range conns {
		c.Close()
	}
}
