package orchestrator

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/pprof"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/glimpse/glimpse/metrics"
	"github.com/glimpse/glimpse/pool"
	"github.com/glimpse/glimpse/sidecar/guard"
	"github.com/glimpse/glimpse/storage"
)

// Deps are the parts a Server is built from; App wires them from Config.
type Deps struct {
	Pool     *pool.Pool
	Store    storage.Store
	Local    http.Handler // serves stored files when storage is a local directory
	Plans    *Plans
	Registry *prometheus.Registry
	Policy   *guard.Policy
	Resolver guard.Resolver
	Logger   *slog.Logger
}

// Server is the HTTP API.
type Server struct {
	cfg      Config
	deps     Deps
	log      *slog.Logger
	m        *metrics.Orchestrator
	echo     *echo.Echo
	cache    *Cache
	flight   *flight
	limiter  *Limiter
	static   *staticFetcher // prerender=auto's plain fetch; nil without a pool
	limits   Limits
	parsed   parseMemo
	now      func() time.Time
	inflight chan struct{} // closed on shutdown: new requests are refused
}

// request-scoped values kept on the echo context.
const (
	ctxRequestID = "glimpse.request_id"
	ctxStart     = "glimpse.start"
	ctxCode      = "glimpse.code"
	ctxCache     = "glimpse.cache"
)

// NewServer builds the Echo application.
func NewServer(cfg Config, d Deps) *Server {
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	if d.Registry == nil {
		d.Registry = metrics.NewRegistry()
	}
	s := &Server{
		cfg:     cfg,
		deps:    d,
		log:     d.Logger,
		m:       metrics.NewOrchestrator(d.Registry),
		flight:  newFlight(),
		limiter: NewLimiter(),
		limits:  Limits{DefaultTimeout: 28 * time.Second, MaxTimeout: cfg.MaxTimeout, MaxURLLength: 8192},
		now:     time.Now,
	}
	if s.limits.MaxTimeout <= 0 {
		s.limits.MaxTimeout = 60 * time.Second
	}
	if s.limits.MaxTimeout < s.limits.DefaultTimeout {
		s.limits.DefaultTimeout = s.limits.MaxTimeout
	}
	cacheBytes := cfg.CacheBytes
	if cacheBytes <= 0 {
		cacheBytes = 64 << 20
	}
	// Every series a dashboard or alert rates starts at zero, so the first
	// error of a kind after a restart is seen as a rise.
	for code, status := range codeStatus {
		s.m.Requests.WithLabelValues(code, metrics.StatusClass(status))
	}
	if d.Plans != nil {
		s.m.RateLimited.WithLabelValues(d.Plans.Anonymous.Name)
		for _, p := range d.Plans.keys {
			s.m.RateLimited.WithLabelValues(p.Name)
		}
	}
	s.cache = NewCache(cacheBytes, d.Store, s.log, s.m)
	metrics.RegisterCache(d.Registry, s.cache.Snapshot)
	if d.Pool != nil {
		metrics.RegisterPool(d.Registry, d.Pool.Snapshot)
		s.static = newStaticFetcher(d.Pool.EgressProxy)
	}

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
			return Fatal(err)
		}}))
	e.GET("/", s.handleAPI)
	e.HEAD("/", s.handleAPI)
	e.Match([]string{http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions,
		http.MethodTrace, http.MethodConnect}, "/", func(c echo.Context) error {
		return NewError("EMETHOD", "The API answers GET and HEAD requests only.")
	})
	e.GET("/healthz", s.handleHealthz)
	e.GET("/readyz", s.handleReadyz)
	e.GET("/metrics", echo.WrapHandler(metrics.Handler(d.Registry)))
	if d.Local != nil {
		files := echo.WrapHandler(http.StripPrefix("/files/", d.Local))
		e.GET("/files/*", files)
		e.HEAD("/files/*", files)
	}
	if cfg.Pprof {
		e.GET("/debug/pprof/*", echo.WrapHandler(http.HandlerFunc(pprof.Index)))
		e.GET("/debug/pprof/profile", echo.WrapHandler(http.HandlerFunc(pprof.Profile)))
		e.GET("/debug/pprof/trace", echo.WrapHandler(http.HandlerFunc(pprof.Trace)))
	}
	e.RouteNotFound("/*", func(c echo.Context) error {
		return NewError("ENOTFOUND", "There is nothing at `"+c.Request().URL.Path+"`; the API answers at `/?url=…`.")
	})
	s.echo = e
	return s
}

// Handler is the whole HTTP surface.
func (s *Server) Handler() http.Handler { return s.echo }

// Metrics exposes the orchestrator's collectors to the render code.
func (s *Server) Metrics() *metrics.Orchestrator { return s.m }

// begin stamps the request id and start time, sets the headers every
// answer carries, and writes one log line when the request ends.
func (s *Server) begin(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := s.now()
		id := s.cfg.Region + ":" + uuid.NewString()
		c.Set(ctxRequestID, id)
		c.Set(ctxStart, start)
		res := c.Response()
		res.Header().Set("x-request-id", id)
		res.Before(func() {
			res.Header().Set("x-response-time", formatResponseTime(s.now().Sub(start)))
		})
		err := next(c)
		if err != nil {
			c.Error(err)
		}
		if c.Request().URL.Path == "/" {
			s.logRequest(c, start)
		}
		return nil
	}
}

func (s *Server) logRequest(c echo.Context, start time.Time) {
	elapsed := s.now().Sub(start)
	code, _ := c.Get(ctxCode).(string)
	if code == "" {
		code = "OK"
	}
	cache, _ := c.Get(ctxCache).(string)
	if cache == "" {
		cache = "NONE"
	}
	status := c.Response().Status
	s.m.Requests.WithLabelValues(code, strconv.Itoa(status/100)+"xx").Inc()
	s.m.RequestDuration.WithLabelValues(cache).Observe(elapsed.Seconds())
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
		slog.String("cache", cache),
		slog.String("target", redactTarget(c.QueryParam("url"))),
		slog.Float64("duration_ms", float64(elapsed.Microseconds())/1000),
		slog.Int64("bytes", c.Response().Size),
	)
}

// handleError is the one place an error becomes an answer: the API.md
// envelope, never a stack trace.
func (s *Server) handleError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	var he *echo.HTTPError
	if errors.As(err, &he) {
		switch he.Code {
		case http.StatusNotFound:
			err = NewError("ENOTFOUND", "There is nothing at `"+c.Request().URL.Path+"`; the API answers at `/?url=…`.")
		case http.StatusMethodNotAllowed:
			err = NewError("EMETHOD", "The API answers GET and HEAD requests only.")
		default:
			err = Fatal(he)
		}
	}
	e := AsError(err)
	id, _ := c.Get(ctxRequestID).(string)
	c.Set(ctxCode, e.Code)
	if e.Status >= 500 {
		s.log.Error("request failed", "request_id", id, "code", e.Code, "err", e.Err)
	}
	h := c.Response().Header()
	h.Set("cache-control", "no-store")
	h.Del("etag")
	if e.RetryAfter > 0 {
		h.Set("retry-after", strconv.Itoa(int((e.RetryAfter+time.Second-1)/time.Second)))
	}
	if c.Request().Method == http.MethodHead {
		_ = c.NoContent(e.Status)
		return
	}
	body, _ := marshalNoEscape(e.Envelope(id))
	_ = c.Blob(e.Status, echo.MIMEApplicationJSON, append(body, '\n'))
}

func (s *Server) handleHealthz(c echo.Context) error {
	return c.JSON(http.StatusOK, map[string]string{"status": "ok"})
}

// handleReadyz is ready when a browser can be leased and storage answers.
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
			ready = false
			s.m.StorageErrors.WithLabelValues("ping").Inc()
			out["storage"] = err.Error()
		} else {
			out["storage"] = "ok"
		}
	}
	if !ready {
		out["status"] = "unavailable"
		return c.JSON(http.StatusServiceUnavailable, out)
	}
	return c.JSON(http.StatusOK, out)
}

// formatResponseTime writes 87ms or 1.4s, as API.md shows.
func formatResponseTime(d time.Duration) string {
	if d < time.Second {
		ms := d.Milliseconds()
		return strconv.FormatInt(ms, 10) + "ms"
	}
	return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + "s"
}
