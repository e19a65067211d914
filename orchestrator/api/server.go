package api

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/glimpse/glimpse/metrics"
	"github.com/glimpse/glimpse/orchestrator/answer"
	"github.com/glimpse/glimpse/orchestrator/apierr"
	"github.com/glimpse/glimpse/orchestrator/cache"
	"github.com/glimpse/glimpse/orchestrator/query"
	"github.com/glimpse/glimpse/orchestrator/quota"
	"github.com/glimpse/glimpse/orchestrator/render"
	"github.com/glimpse/glimpse/pool"
	"github.com/glimpse/glimpse/sidecar/guard"
	"github.com/glimpse/glimpse/storage"
)

// Config is what the HTTP layer is told.
type Config struct {
	Region         string         // prefix of x-request-id
	TrustedProxies []netip.Prefix // proxies whose X-Forwarded-For names the client
	MaxTimeout     time.Duration  // largest `timeout` a caller may ask for
	CacheBytes     int64          // memory for cached answers
	MaxDataBytes   int            // what data rules may put in one answer
	MaxFileBytes   int64          // the largest PDF or screenshot stored
	FileVersion    func() string  // names one render's files; nil: fresh each time
	Pprof          bool           // serve /debug/pprof
	FullRenders    bool           // no lean renders (render.Config.Full)
	// DocsURL is the page documenting the error codes, which every error's
	// `more` links to with the code as its anchor; empty: the page glimpse
	// serves itself at apierr.DocsPath, on the address the caller reached.
	DocsURL string
	// NoProxy refuses the `proxy` parameter (GLIMPSE_ALLOW_PROXY=false).
	NoProxy bool
	// WallProxy, when set, is the operator's proxy that a render a bot
	// wall answered is tried once more through (GLIMPSE_WALL_PROXY).
	WallProxy *url.URL
}

// Deps are the parts a Server is built from; the root package wires them.
type Deps struct {
	Pool     *pool.Pool
	Store    storage.Store
	Files    http.Handler // serves the stored public files under /files/
	Plans    *quota.Plans
	Limiter  quota.Limiter // counts quotas; nil: in this process's memory
	Registry *prometheus.Registry
	Metrics  *metrics.Orchestrator // nil: made on Registry
	Policy   *guard.Policy
	Resolver guard.Resolver
	Logger   *slog.Logger
	// Playground is the page a browser gets at / when it asks without a
	// `url`; nil: none.
	Playground Page
	// Listed reports the hosts the sidecars' egress guard refuses for
	// pages rendered with the ad-block list (render.Config.Listed); nil:
	// any host may be.
	Listed func(host string) bool
	// GuardMarks checks that an answer of the sidecars' egress guard is
	// the guard's own (render.Config.GuardMarks); nil: none is.
	GuardMarks *guard.Marks
}

// Page is a page served at / to browsers, with the files it loads.
type Page interface {
	http.Handler
	Paths() []string // the page's own files, each served by the handler
}

// Server is the HTTP API.
type Server struct {
	cfg      Config
	deps     Deps
	log      *slog.Logger
	m        *metrics.Orchestrator
	echo     *echo.Echo
	cache    *cache.Cache
	flight   *cache.Flight
	limiter  quota.Limiter
	renderer *render.Renderer
	composer *answer.Composer
	limits   query.Limits
	parsed   query.Memo
	now      func() time.Time
	refuse   map[string]echo.HandlerFunc // mounted paths' answers to other methods
	tasks    sync.WaitGroup              // background refreshes still running
}

// Drain waits, within ctx, for the work requests left running in the
// background: refreshes of stale answers, then the shared-cache writes
// they and the requests made. Call it once the HTTP server has stopped
// taking requests.
func (s *Server) Drain(ctx context.Context) error {
	done := make(chan struct{})
	go func() {
		s.tasks.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
		return fmt.Errorf("background refreshes were still running when the shutdown grace ended: %w", ctx.Err())
	}
	if err := s.cache.Wait(ctx); err != nil {
		return fmt.Errorf("shared-cache writes were still running when the shutdown grace ended: %w", err)
	}
	return nil
}

// request-scoped values kept on the echo context.
const (
	ctxRequestID = "glimpse.request_id"
	ctxCode      = "glimpse.code"
	ctxCache     = "glimpse.cache"
	ctxOutput    = "glimpse.output"
)

// NewServer builds the Echo application.
func NewServer(cfg Config, d Deps) *Server {
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	d.Logger = newRedactingLogger(d.Logger)
	if d.Registry == nil {
		d.Registry = metrics.NewRegistry()
	}
	if d.Plans == nil {
		d.Plans = &quota.Plans{Anonymous: quota.DefaultAnonymousPlan}
	}
	s := &Server{
		cfg:     cfg,
		deps:    d,
		log:     d.Logger,
		m:       d.Metrics,
		limiter: d.Limiter,
		limits:  query.Limits{MaxTimeout: cfg.MaxTimeout, NoProxy: cfg.NoProxy}.WithDefaults(),
		now:     time.Now,
	}
	if s.m == nil {
		s.m = metrics.NewOrchestrator(d.Registry)
	}
	if s.limiter == nil {
		s.limiter = quota.NewMemory()
	}
	s.flight = cache.NewFlight(func(err error) bool {
		return errors.Is(err, context.DeadlineExceeded) || s.asError(err).Code == apierr.CodeTimeout
	})
	cacheBytes := cfg.CacheBytes
	if cacheBytes <= 0 {
		cacheBytes = 64 << 20
	}
	// Every series a dashboard or alert rates starts at zero, so the first
	// error of a kind after a restart is seen as a rise.
	for _, code := range apierr.Codes() {
		for _, out := range metrics.Outputs() {
			s.m.Requests.WithLabelValues(code, metrics.StatusClass(apierr.Status(code)), out)
		}
	}
	for _, name := range d.Plans.Names() {
		s.m.RateLimited.WithLabelValues(name)
	}
	s.cache = cache.New(cacheBytes, d.Store, s.log, s.m)
	metrics.RegisterCache(d.Registry, s.cache.Snapshot)
	if d.Pool != nil {
		metrics.RegisterPool(d.Registry, d.Pool.Snapshot)
	}
	s.renderer = render.New(render.Config{Pool: d.Pool, Policy: d.Policy, Resolver: d.Resolver, Metrics: s.m, Logger: s.log, Full: cfg.FullRenders, Listed: d.Listed,
		GuardMarks: d.GuardMarks})
	s.composer = answer.New(answer.Config{Store: d.Store, Metrics: s.m, Logger: s.log, MaxDataBytes: cfg.MaxDataBytes,
		MaxFileBytes: cfg.MaxFileBytes, FileVersion: cfg.FileVersion})

	e := echo.New()
	e.HideBanner = true
	e.HidePort = true
	e.HTTPErrorHandler = s.handleError
	if len(cfg.TrustedProxies) > 0 {
		var opts []echo.TrustOption
		for _, p := range cfg.TrustedProxies {
			opts = append(opts, echo.TrustIPRange(prefixToIPNet(p)))
		}
		opts = append(opts, echo.TrustLoopback(false), echo.TrustLinkLocal(false), echo.TrustPrivateNet(false))
		e.IPExtractor = echo.ExtractIPFromXFFHeader(opts...)
	} else {
		// Without configured proxies X-Forwarded-For is the caller's word,
		// and a caller must not pick whose quota it spends.
		e.IPExtractor = echo.ExtractIPDirect()
	}
	e.Use(s.begin)
	e.Use(middleware.RecoverWithConfig(middleware.RecoverConfig{DisableStackAll: true, DisablePrintStack: true,
		LogErrorFunc: func(c echo.Context, err error, stack []byte) error {
			s.log.Error("a request panicked", "request_id", c.Get(ctxRequestID), "err", err, "stack", string(stack))
			return apierr.Fatal(err)
		}}))
	e.GET("/", s.handleAPI)
	e.HEAD("/", s.handleAPI)
	e.Match([]string{http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions,
		http.MethodTrace, http.MethodConnect}, "/", func(c echo.Context) error {
		return methodError()
	})
	if d.Playground != nil {
		page := echo.WrapHandler(d.Playground)
		for _, p := range d.Playground.Paths() {
			e.GET(p, page)
			e.HEAD(p, page)
		}
	}
	e.GET(apierr.DocsPath, s.handleDocs)
	e.HEAD(apierr.DocsPath, s.handleDocs)
	e.GET("/healthz", s.handleHealthz)
	e.GET("/readyz", s.handleReadyz)
	e.GET("/metrics", echo.WrapHandler(metrics.Handler(d.Registry)))
	if d.Files != nil {
		files := echo.WrapHandler(http.StripPrefix("/files/", d.Files))
		e.GET("/files/*", files)
		e.HEAD("/files/*", files)
	}
	if cfg.Pprof {
		e.GET("/debug/pprof/*", echo.WrapHandler(http.HandlerFunc(pprof.Index)))
		e.GET("/debug/pprof/profile", echo.WrapHandler(http.HandlerFunc(pprof.Profile)))
		e.GET("/debug/pprof/trace", echo.WrapHandler(http.HandlerFunc(pprof.Trace)))
	}
	s.refuse = map[string]echo.HandlerFunc{}
	e.RouteNotFound("/*", func(c echo.Context) error {
		if c.Request().URL.Path == "/" {
			return methodError() // any other method, WebDAV's and made-up ones included
		}
		if refuse, ok := s.refuse[c.Request().URL.Path]; ok {
			return refuse(c)
		}
		return notFoundError(c.Request().URL.Path)
	})
	s.echo = e
	return s
}

// Mount serves h at path for the given methods, beside the API: the MCP
// endpoint, which calls back into this server's handler. Other methods get
// the EMETHOD envelope naming those. Call it before serving.
func (s *Server) Mount(path string, h http.Handler, methods ...string) {
	s.echo.Match(methods, path, echo.WrapHandler(h))
	allowed := strings.Join(methods, ", ")
	refuse := func(c echo.Context) error {
		c.Response().Header().Set("allow", allowed)
		return apierr.New(apierr.CodeMethod, fmt.Sprintf("`%s` answers %s requests only.", path, allowed))
	}
	for _, m := range []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodTrace, http.MethodConnect} {
		if !slices.Contains(methods, m) {
			s.echo.Add(m, path, refuse)
		}
	}
	s.refuse[path] = refuse // any other method, made-up ones included
}

// Handler is the whole HTTP surface.
func (s *Server) Handler() http.Handler { return s.echo }

// Metrics exposes the orchestrator's collectors.
func (s *Server) Metrics() *metrics.Orchestrator { return s.m }

// Cache is the server's answer cache.
func (s *Server) Cache() *cache.Cache { return s.cache }

// SetClock replaces the clock that cache freshness and quotas read; tests
// move it forward instead of waiting. Set it before serving.
func (s *Server) SetClock(now func() time.Time) { s.now = now }

func notFoundError(path string) error {
	return apierr.New(apierr.CodeNotFound, "There is nothing at `"+path+"`; the API answers at `/?url=…`.")
}

func methodError() error {
	return apierr.New(apierr.CodeMethod, "The API answers GET and HEAD requests only.")
}

// MaxRequestBytes bounds the request line and headers glimpse reads: room
// for the 64 KiB of `scripts` and `styles` percent-encoded, and the 8 KiB of
// forwarded headers. The HTTP server's own limit lies above it, so a larger
// request gets the JSON envelope from here rather than a bare status.
const MaxRequestBytes = 256 << 10

// begin stamps the request id and start time, sets the headers every
// answer carries, refuses a request too large to read, and writes one log
// line when the request ends.
func (s *Server) begin(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := s.now()
		id := s.cfg.Region + ":" + uuid.NewString()
		c.Set(ctxRequestID, id)
		res := c.Response()
		res.Header().Set("x-request-id", id)
		res.Before(func() {
			res.Header().Set("x-response-time", formatResponseTime(s.now().Sub(start)))
		})
		var err error
		if n := requestBytes(c.Request()); n > MaxRequestBytes {
			err = apierr.New(apierr.CodeTooLarge, fmt.Sprintf(
				"The request's line and headers are %d bytes; glimpse reads at most %d (256 KiB). Send shorter `scripts` or `styles`, or fewer headers.",
				n, MaxRequestBytes))
		} else {
			err = next(c)
		}
		if err != nil {
			c.Error(err)
		}
		if c.Request().URL.Path == "/" {
			s.logRequest(c, start)
		}
		return nil
	}
}

// requestBytes is the size of a request's line and headers, as they came.
func requestBytes(r *http.Request) int {
	n := len(r.Method) + len(r.RequestURI) + len(r.Proto) + 4
	for k, vs := range r.Header {
		for _, v := range vs {
			n += len(k) + len(v) + 4
		}
	}
	return n
}

func (s *Server) logRequest(c echo.Context, start time.Time) {
	elapsed := s.now().Sub(start)
	code, _ := c.Get(ctxCode).(string)
	if code == "" {
		code = "OK"
	}
	cacheStatus, _ := c.Get(ctxCache).(string)
	if cacheStatus == "" {
		cacheStatus = "NONE"
	}
	output, _ := c.Get(ctxOutput).(string)
	if output == "" {
		output = metrics.OutputNone
	}
	status := c.Response().Status
	s.m.Requests.WithLabelValues(code, metrics.StatusClass(status), output).Inc()
	s.m.RequestDuration.WithLabelValues(cacheStatus, output).Observe(elapsed.Seconds())
	level := slog.LevelInfo
	if status >= 500 {
		level = slog.LevelError
	}
	// The target URL is logged without its query string: logins embedded
	// in it must not end up in logs.
	s.log.LogAttrs(context.Background(), level, "request",
		slog.String("request_id", c.Get(ctxRequestID).(string)),
		slog.Int("status", status),
		slog.String("code", code),
		slog.String("cache", cacheStatus),
		slog.String("output", output),
		slog.String("target", redactTarget(c.QueryParam("url"))),
		slog.Float64("duration_ms", float64(elapsed.Microseconds())/1000),
		slog.Int64("bytes", c.Response().Size),
	)
}

// handleError is the one place an error becomes an answer: the envelope of
// docs/api.md#the-envelope, never a stack trace.
func (s *Server) handleError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	var he *echo.HTTPError
	if errors.As(err, &he) {
		switch he.Code {
		case http.StatusNotFound:
			err = notFoundError(c.Request().URL.Path)
		case http.StatusMethodNotAllowed:
			err = methodError()
		default:
			err = apierr.Fatal(he)
		}
	}
	e := s.asError(err)
	id, _ := c.Get(ctxRequestID).(string)
	c.Set(ctxCode, e.Code)
	status := e.Status()
	if status >= 500 {
		s.log.Error("request failed", "request_id", id, "code", e.Code, "err", e.Err)
	}
	h := c.Response().Header()
	h.Set("cache-control", "no-store")
	h.Del("etag")
	if e.RetryAfter > 0 {
		h.Set("retry-after", strconv.Itoa(int((e.RetryAfter+time.Second-1)/time.Second)))
	}
	if c.Request().Method == http.MethodHead {
		_ = c.NoContent(status)
		return
	}
	body, _ := answer.Marshal(e.Envelope(id, s.docsURL(c)))
	_ = c.Blob(status, echo.MIMEApplicationJSON, append(body, '\n'))
}

// docsURL is the errors page that `more` links to: the operator's, or
// glimpse's own on the scheme and host the caller used, which is the one
// address every caller is known to reach.
func (s *Server) docsURL(c echo.Context) string {
	if s.cfg.DocsURL != "" {
		return s.cfg.DocsURL
	}
	scheme := "http"
	if c.Request().TLS != nil || (s.fromTrustedProxy(c) && c.Request().Header.Get("X-Forwarded-Proto") == "https") {
		scheme = "https"
	}
	return scheme + "://" + c.Request().Host + apierr.DocsPath
}

// fromTrustedProxy reports whether the request came straight from one of
// the configured proxies, whose X-Forwarded-* headers are then believed.
func (s *Server) fromTrustedProxy(c echo.Context) bool {
	host, _, err := net.SplitHostPort(c.Request().RemoteAddr)
	if err != nil {
		return false
	}
	addr, err := netip.ParseAddr(host)
	if err != nil {
		return false
	}
	for _, p := range s.cfg.TrustedProxies {
		if p.Contains(addr.Unmap()) {
			return true
		}
	}
	return false
}

// handleDocs serves the page that documents every error code, one anchor
// per code: what `more` links to unless GLIMPSE_DOCS_URL names another.
func (s *Server) handleDocs(c echo.Context) error {
	h := c.Response().Header()
	h.Set("cache-control", "public, max-age=3600")
	h.Set("content-security-policy", "default-src 'none'; style-src 'unsafe-inline'")
	h.Set("x-content-type-options", "nosniff")
	return c.Blob(http.StatusOK, "text/html; charset=utf-8", apierr.DocsPage())
}

func (s *Server) handleHealthz(c echo.Context) error {
	return c.JSON(http.StatusOK, map[string]string{"status": "ok"})
}

// handleReadyz is ready when a browser can be leased: readiness means "can
// answer". Storage is checked and reported, and the check finishes the
// clean-up of uploads an outage left behind, but an unreachable store does
// not take the replica out of its Service: metadata, Markdown and cache hits
// still answer, and only PDFs and screenshots fail, with ESTORAGE.
func (s *Server) handleReadyz(c echo.Context) error {
	ctx, cancel := context.WithTimeout(c.Request().Context(), 2*time.Second)
	defer cancel()
	out := map[string]any{"status": "ok"}
	ready := true
	if s.deps.Pool == nil || !s.deps.Pool.Ready() {
		ready = false
		out["browsers"] = "no healthy sidecar"
	} else {
		out["browsers"] = "ok"
	}
	if s.deps.Store != nil {
		if err := s.deps.Store.Ping(ctx); err != nil {
			s.m.StorageErrors.WithLabelValues("ping").Inc()
			out["storage"] = err.Error()
			out["status"] = "degraded"
		} else {
			out["storage"] = "ok"
		}
	}
	if s.deps.Store != nil {
		// The cache's own view: a store that keeps failing is left out of
		// requests, which then render what another replica may have kept.
		if msg := s.cache.SharedFailing(); msg != "" {
			out["shared_cache"] = "bypassed while the store keeps failing: " + msg
			out["status"] = "degraded"
		} else {
			out["shared_cache"] = "ok"
		}
	}
	if !ready {
		out["status"] = "unavailable"
		return c.JSON(http.StatusServiceUnavailable, out)
	}
	return c.JSON(http.StatusOK, out)
}

// formatResponseTime writes 87ms or 1.4s, as docs/api.md#response-headers
// shows.
func formatResponseTime(d time.Duration) string {
	if d < time.Second {
		ms := d.Milliseconds()
		return strconv.FormatInt(ms, 10) + "ms"
	}
	return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + "s"
}

func prefixToIPNet(p netip.Prefix) *net.IPNet {
	return &net.IPNet{IP: p.Addr().AsSlice(), Mask: net.CIDRMask(p.Bits(), p.Addr().BitLen())}
}
