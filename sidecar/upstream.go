package sidecar

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/glimpse/glimpse/sidecar/guard"
)

// UpstreamHeader carries a caller's upstream proxy on a proxy request to
// the sidecar (the orchestrator's plain fetch): the guard sends that
// request through it. It is taken off before anything is forwarded.
const UpstreamHeader = "X-Glimpse-Upstream"

const (
	// maxUpstreamRoutes bounds the loopback ports opened for browser
	// contexts that leave through a caller's proxy.
	maxUpstreamRoutes = 256
	// upstreamRouteIdle is how long a route stays open without a request;
	// a context uses its route from its first request to its last.
	upstreamRouteIdle = 5 * time.Minute
)

// upstreamRoutes are the egress guard's ports for browser contexts whose
// traffic leaves through a caller's proxy: one loopback port per proxy
// (credentials included) and ad-block choice, named as the context's
// proxyServer, so Chromium needs no credentials and other contexts never
// share the way out. The policy protects each port from pages.
type upstreamRoutes struct {
	proxy   *guard.Proxy
	policy  *guard.Policy
	blocks  func(host string) bool
	counted func(http.Handler) http.Handler
	logger  *slog.Logger

	mu     sync.Mutex
	routes map[string]*upstreamRoute
	closed bool
}

type upstreamRoute struct {
	ln      net.Listener
	srv     *http.Server
	release func()
	last    atomic.Int64 // Unix nanoseconds of the last request
}

// open returns the loopback address of the route for the proxy raw,
// opening it on first use.
func (u *upstreamRoutes) open(raw string, unfiltered bool) (string, error) {
	up, err := guard.ParseUpstream(raw)
	if err != nil {
		return "", err
	}
	key := fmt.Sprintf("%s/%t", up.Key(), unfiltered)
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.closed {
		return "", errors.New("the sidecar is stopping")
	}
	if r, ok := u.routes[key]; ok {
		r.last.Store(time.Now().UnixNano())
		return r.ln.Addr().String(), nil
	}
	u.sweepLocked(time.Now())
	if len(u.routes) >= maxUpstreamRoutes {
		return "", fmt.Errorf("%d upstream proxies are in use on this sidecar, the most it serves at once", maxUpstreamRoutes)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("opening a loopback port for an upstream proxy: %w", err)
	}
	r := &upstreamRoute{ln: ln, release: u.policy.Protect(portOfAddr(ln.Addr()))}
	r.last.Store(time.Now().UnixNano())
	var h = u.proxy.Via(up)
	if !unfiltered {
		h = u.proxy.FilterHandler(h, u.blocks)
	}
	touched := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.last.Store(time.Now().UnixNano())
		h.ServeHTTP(w, req)
	})
	r.srv = u.proxy.ServerFor(u.counted(touched))
	go func() { _ = r.srv.Serve(ln) }()
	if u.routes == nil {
		u.routes = map[string]*upstreamRoute{}
	}
	u.routes[key] = r
	u.logger.Debug("Opened a route through a caller's proxy.", "proxy", up.String(), "route", ln.Addr().String())
	return ln.Addr().String(), nil
}

// sweepLocked closes the routes nobody used for upstreamRouteIdle.
// Tunnels already open through one run on: they no longer need the port.
func (u *upstreamRoutes) sweepLocked(now time.Time) {
	for k, r := range u.routes {
		if now.Sub(time.Unix(0, r.last.Load())) > upstreamRouteIdle {
			r.close()
			delete(u.routes, k)
		}
	}
}

// close closes every route; later opens fail.
func (u *upstreamRoutes) close() {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.closed = true
	for k, r := range u.routes {
		r.close()
		delete(u.routes, k)
	}
}

func (r *upstreamRoute) close() {
	_ = r.srv.Close()
	r.release()
}

// count is how many routes are open.
func (u *upstreamRoutes) count() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return len(u.routes)
}

// serveUpstream answers a proxy request that names a caller's proxy in
// UpstreamHeader, and reports whether it did.
func (srv *Server) serveUpstream(w http.ResponseWriter, r *http.Request) bool {
	raw := r.Header.Get(UpstreamHeader)
	if raw == "" {
		return false
	}
	r.Header.Del(UpstreamHeader)
	up, err := guard.ParseUpstream(raw)
	if err != nil {
		w.Header().Set(guard.Header, "bad-request")
		http.Error(w, err.Error(), http.StatusBadRequest)
		return true
	}
	srv.guard.Via(up).ServeHTTP(w, r)
	return true
}
