package sidecar

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync/atomic"
	"time"

	"github.com/glimpse/glimpse/sidecar/guard"
	"github.com/glimpse/glimpse/sidecar/guard/adblock"
)

const (
	// shutdownWait bounds how long open HTTP requests may take to finish when
	// the sidecar stops; proxied DevTools connections are closed at once.
	shutdownWait = 10 * time.Second
	// readHeaderWait bounds a slow client's request headers.
	readHeaderWait = 10 * time.Second
)

// RunConfig is everything a whole sidecar needs: the browser's supervision,
// the egress rule it enforces, and where it is served. The sidecar binary
// and the orchestrator's embedded mode both run it through Run.
type RunConfig struct {
	Sidecar Config
	// AllowTargets exempts these prefixes from the egress rule (development
	// and tests only).
	AllowTargets []netip.Prefix
	// Listener, when set, is served instead of listening on Sidecar.Addr;
	// the embedded mode passes a loopback listener it already knows the port of.
	Listener net.Listener
	// Metrics, when set, is served at GET /metrics.
	Metrics http.Handler
	// Blocks decides which hosts the browser's default egress refuses (the
	// ad-block list); nil means the embedded list, adblock.Default. Browser
	// contexts created with the unfiltered proxy of /healthz are not
	// filtered.
	Blocks func(host string) bool
	// ProtectPorts are more ports of this machine that the egress guard
	// refuses whatever AllowTargets says, such as the API port of a process
	// that runs the sidecar in-process. The sidecar's own ports and
	// Chromium's DevTools port are always refused.
	ProtectPorts []uint16
	// Hosts are names the egress guard resolves to fixed addresses instead
	// of asking DNS (development and the benchmark: third parties stood in
	// on loopback under their real names). The addresses still pass the
	// egress rule.
	Hosts map[string]netip.Addr
}

// Server is a sidecar with its egress guard, ready to Run.
type Server struct {
	cfg     RunConfig
	logger  *slog.Logger
	sidecar *Sidecar
	guard   *guard.Proxy
	guardLn net.Listener // filtered: the proxy of every context a client creates
	plainLn net.Listener // unfiltered: for contexts rendering with adblock off
	quietLn net.Listener // Chromium's own proxy, which refuses its background traffic
	policy  *guard.Policy
	// background refuses and counts what Chromium asks for on its own;
	// egress counts the requests that reached the guard.
	background *backgroundRefuser
	egress     atomic.Int64
	// proxyAuthRefusals counts proxy requests on Addr refused for the token.
	proxyAuthRefusals atomic.Int64
	// upstreams are the guard's routes through callers' proxies.
	upstreams *upstreamRoutes
}

// NewServer starts the egress guard on a loopback port of its own and
// prepares a Sidecar whose Chromium sends every connection through it. Run
// must follow, as it also releases the guard's port.
func NewServer(cfg RunConfig) (*Server, error) {
	logger := cfg.Sidecar.Logger
	if logger == nil {
		logger = slog.Default()
		cfg.Sidecar.Logger = logger
	}
	if len(cfg.AllowTargets) > 0 {
		logger.Warn("The egress rule is relaxed: Chromium may reach these address ranges. Use this for development and tests only.",
			"allow_targets", fmt.Sprint(cfg.AllowTargets))
	}
	if cfg.Blocks == nil {
		cfg.Blocks = adblock.Default().Blocks
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("opening a loopback port for the egress guard: %w", err)
	}
	plain, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		ln.Close()
		return nil, fmt.Errorf("opening a loopback port for the egress guard: %w", err)
	}
	quiet, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		ln.Close()
		plain.Close()
		return nil, fmt.Errorf("opening a loopback port for the browser's own traffic: %w", err)
	}
	policy := guard.NewPolicy(cfg.AllowTargets)
	// A page must not reach the sidecar's own ports through the guard, nor
	// the guard itself: these are refused whatever AllowTargets says. Run
	// adds the port it serves on.
	policy.Protect(portOfAddr(ln.Addr()))
	policy.Protect(portOfAddr(plain.Addr()))
	policy.Protect(portOfAddr(quiet.Addr()))
	for _, port := range cfg.ProtectPorts {
		policy.Protect(port)
	}
	dialer := &guard.Dialer{Policy: policy}
	if len(cfg.Hosts) > 0 {
		dialer.Resolver = &guard.Hosts{Table: cfg.Hosts}
		logger.Warn("The egress guard resolves some names to fixed addresses (GLIMPSE_DEV_HOSTS); use this for development and benchmarks only.", "names", len(cfg.Hosts))
	}
	proxy := guard.NewProxy(dialer, logger.With("component", "guard"))
	// The guard's answers are marked under a key derived from the token,
	// so the orchestrator tells them from a target's that copies them.
	proxy.Marks = guard.NewMarks(cfg.Sidecar.Token)
	cfg.Sidecar.ProxyAddr = ln.Addr().String()
	cfg.Sidecar.UnfilteredProxyAddr = plain.Addr().String()
	cfg.Sidecar.BackgroundProxyAddr = quiet.Addr().String()
	upstreams := &upstreamRoutes{proxy: proxy, policy: policy, blocks: cfg.Blocks, logger: logger.With("component", "guard")}
	cfg.Sidecar.UpstreamRoute = upstreams.open
	if cfg.Sidecar.ProtectPort == nil {
		cfg.Sidecar.ProtectPort = policy.Protect
	}
	sc, err := New(cfg.Sidecar)
	if err != nil {
		ln.Close()
		plain.Close()
		quiet.Close()
		_ = proxy.Close()
		return nil, err
	}
	background := newBackgroundRefuser(func(host string) {
		logger.Debug("Refused a request Chromium made on its own, not for a page.", "host", host)
	})
	srv := &Server{cfg: cfg, logger: logger, sidecar: sc, guard: proxy, guardLn: ln, plainLn: plain, quietLn: quiet,
		policy: policy, background: background, upstreams: upstreams}
	upstreams.counted = srv.counted
	return srv, nil
}

func portOfAddr(a net.Addr) uint16 {
	if tcp, ok := a.(*net.TCPAddr); ok && tcp.Port > 0 && tcp.Port < 1<<16 {
		return uint16(tcp.Port)
	}
	return 0
}

// Sidecar is the supervised browser, for health and metrics.
func (srv *Server) Sidecar() *Sidecar { return srv.sidecar }

// Guard is the egress proxy, for its refusal count.
func (srv *Server) Guard() *guard.Proxy { return srv.guard }

// Handler serves /healthz, /devtools/browser and, when configured, /metrics.
// Proxy requests (CONNECT, or an absolute URL) go to the egress guard, so
// the orchestrator's plain-HTTP fetches leave through the same guard as the
// browser's and the orchestrator itself never needs internet egress. With a
// token, a proxy request must carry it in Proxy-Authorization (Bearer, or
// Basic with the token as the password), or it is answered 407: the port is
// reachable from the whole cluster, and an open proxy there would hand
// anyone the browser's egress. Chromium's own connections reach the guard
// on loopback ports of their own, which nothing outside this machine can.
func (srv *Server) Handler() http.Handler {
	var h http.Handler = srv.sidecar.Handler()
	if srv.cfg.Metrics != nil {
		mux := http.NewServeMux()
		mux.Handle("GET /metrics", srv.cfg.Metrics)
		mux.Handle("/", h)
		h = mux
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodConnect || r.URL.IsAbs() {
			ok := srv.sidecar.secret.proxy(r.Header.Get("Proxy-Authorization"))
			// Never forwarded: the token stays between the caller and here.
			r.Header.Del("Proxy-Authorization")
			if !ok {
				srv.proxyAuthRefusals.Add(1)
				srv.logger.Debug("A proxy request without the sidecar token was refused.", "client", r.RemoteAddr)
				w.Header().Set("Proxy-Authenticate", `Basic realm="glimpse-sidecar"`)
				w.Header().Set(guard.Header, "unauthorized")
				http.Error(w, "This sidecar's egress proxy needs the sidecar token: send Proxy-Authorization: Bearer <token>, or Basic credentials whose password is the token (GLIMPSE_SIDECAR_TOKEN).", http.StatusProxyAuthRequired)
				return
			}
			// The orchestrator's nonce binds the guard's marks to this
			// request, and goes no further either.
			r = guard.WithNonce(r)
			if srv.guard.AnswerAsk(w, r, srv.cfg.Blocks) {
				return
			}
			if srv.serveUpstream(w, r) {
				return
			}
			srv.guard.ServeHTTP(w, r)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// Run serves until ctx ends, then closes everything it started. Chromium is
// started in the background and retried with backoff while it fails, so
// /healthz explains the wait instead of the process exiting. Run returns nil
// after a clean stop and an error when serving failed.
func (srv *Server) Run(ctx context.Context) error {
	guardSrv := srv.guard.ServerFor(srv.counted(srv.guard.Filter(srv.cfg.Blocks)))
	plainSrv := srv.guard.ServerFor(srv.counted(srv.guard))
	quietSrv := &http.Server{Handler: srv.background, ReadHeaderTimeout: readHeaderWait,
		ErrorLog: slog.NewLogLogger(srv.logger.Handler(), slog.LevelDebug)}
	guardDone := make(chan error, 3)
	go func() { guardDone <- guardSrv.Serve(srv.guardLn) }()
	go func() { guardDone <- plainSrv.Serve(srv.plainLn) }()
	go func() { guardDone <- quietSrv.Serve(srv.quietLn) }()
	defer func() {
		srv.upstreams.close()
		_ = srv.guard.Close()
		_ = guardSrv.Close()
		_ = plainSrv.Close()
		_ = quietSrv.Close()
		<-guardDone
		<-guardDone
		<-guardDone
		if total, hosts := srv.background.counts(); total > 0 {
			srv.logger.Info("Chromium's own background requests were refused.", "requests", total, "hosts", strings.Join(backgroundHosts(hosts), ","))
		}
	}()

	ln := srv.cfg.Listener
	if ln == nil {
		var err error
		if ln, err = net.Listen("tcp", srv.cfg.Sidecar.Addr); err != nil {
			_ = srv.sidecar.Close()
			return fmt.Errorf("listening on %s (GLIMPSE_SIDECAR_ADDR): %w", srv.cfg.Sidecar.Addr, err)
		}
	}
	defer srv.policy.Protect(portOfAddr(ln.Addr()))()
	httpSrv := &http.Server{
		Handler:           srv.Handler(),
		ReadHeaderTimeout: readHeaderWait,
		ErrorLog:          slog.NewLogLogger(srv.logger.Handler(), slog.LevelWarn),
	}
	served := make(chan error, 1)
	go func() { served <- httpSrv.Serve(ln) }()
	srv.logger.Info("The sidecar is listening.", "addr", ln.Addr().String(), "guard", srv.guardLn.Addr().String(), "unfiltered_guard", srv.plainLn.Addr().String())

	startCtx, stopStarting := context.WithCancel(ctx)
	started := make(chan struct{})
	go func() {
		defer close(started)
		srv.startWithRetry(startCtx)
	}()

	var serveErr error
	select {
	case <-ctx.Done():
	case serveErr = <-served:
		serveErr = fmt.Errorf("serving on %s: %w", ln.Addr(), serveErr)
	}
	srv.logger.Info("The sidecar is stopping.")
	stopStarting()
	<-started

	shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownWait)
	defer cancel()
	// Proxied DevTools connections are hijacked, so Shutdown does not wait
	// for them; closing the sidecar ends them.
	_ = httpSrv.Shutdown(shutdownCtx)
	closeErr := srv.sidecar.Close()
	if serveErr == nil {
		<-served
	}
	if closeErr != nil {
		srv.logger.Error("Chromium did not stop cleanly.", "err", closeErr)
	}
	return errors.Join(serveErr, closeErr)
}

// counted counts the requests h serves.
func (srv *Server) counted(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		srv.egress.Add(1)
		h.ServeHTTP(w, r)
	})
}

// startWithRetry calls Start until it succeeds or ctx ends.
func (srv *Server) startWithRetry(ctx context.Context) {
	delay := time.Duration(0)
	for {
		if delay > 0 {
			t := time.NewTimer(delay)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
		}
		err := srv.sidecar.Start(ctx)
		if err == nil || ctx.Err() != nil || errors.Is(err, ErrClosed) {
			return
		}
		delay = nextBackoff(delay)
		srv.logger.Error("Could not start Chromium; trying again.", "retry_in", delay.String(), "err", err)
	}
}

// Run builds a Server from cfg and runs it until ctx ends.
func Run(ctx context.Context, cfg RunConfig) error {
	srv, err := NewServer(cfg)
	if err != nil {
		return err
	}
	return srv.Run(ctx)
}
