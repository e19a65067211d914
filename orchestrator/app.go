package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/glimpse/glimpse/metrics"
	"github.com/glimpse/glimpse/orchestrator/api"
	"github.com/glimpse/glimpse/orchestrator/mcp"
	"github.com/glimpse/glimpse/orchestrator/playground"
	"github.com/glimpse/glimpse/orchestrator/quota"
	"github.com/glimpse/glimpse/orchestrator/render"
	"github.com/glimpse/glimpse/pool"
	"github.com/glimpse/glimpse/sidecar"
	"github.com/glimpse/glimpse/sidecar/guard"
	"github.com/glimpse/glimpse/sidecar/guard/adblock"
	"github.com/glimpse/glimpse/storage"
)

// App is a running front service: the HTTP API, its pool, its storage and,
// in the embedded default, its own sidecar.
type App struct {
	Server   *api.Server
	Pool     *pool.Pool
	Store    storage.Store
	Registry *prometheus.Registry
	Sidecar  *sidecar.Sidecar // nil unless embedded

	cfg      Config
	token    string // the sidecars' shared secret
	log      *slog.Logger
	http     *http.Server
	ln       net.Listener
	closers  []func()
	serveErr chan error
}

// Start builds everything from cfg and starts serving. With no sidecars
// configured it starts one in-process on a loopback port, behind its egress
// guard, and uses it through the same pool code path as a cluster would.
func Start(ctx context.Context, cfg Config, log *slog.Logger) (app *App, err error) {
	if log == nil {
		log = slog.Default()
	}
	a := &App{cfg: cfg, log: log, Registry: metrics.NewRegistry(), serveErr: make(chan error, 1)}
	defer func() {
		if err != nil {
			a.close()
		}
	}()
	if len(cfg.AllowTargets) > 0 {
		log.Warn("GLIMPSE_ALLOW_TARGETS exempts these ranges from the public-address rule; use it for development and tests only",
			"allow", fmt.Sprint(cfg.AllowTargets))
	}
	policy := guard.NewPolicy(cfg.AllowTargets)

	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("listening on %s (GLIMPSE_ADDR): %w", cfg.Addr, err)
	}
	a.ln = ln
	a.closers = append(a.closers, func() { ln.Close() })

	sidecars := cfg.Sidecars
	a.token = strings.TrimSpace(cfg.SidecarToken)
	if sidecars == "" {
		// The embedded sidecar listens on loopback, where any local
		// process could reach it: it gets a secret of its own.
		a.token = sidecar.NewToken()
		addr, err := a.startEmbeddedSidecar(ctx)
		if err != nil {
			return nil, err
		}
		sidecars = addr
	}

	store, files, err := a.openStorage(ctx)
	if err != nil {
		return nil, err
	}
	a.Store = store

	plans, err := quota.LoadPlans(cfg.PlansFile)
	if err != nil {
		return nil, err
	}
	limiter, err := a.openLimiter(ctx)
	if err != nil {
		return nil, err
	}

	// The collectors exist before the pool, whose browsers report dropped
	// events to them.
	m := metrics.NewOrchestrator(a.Registry)
	p, err := pool.New(pool.Config{
		OnEventDropped: func(method string) { m.EventsDropped.WithLabelValues(method).Inc() },
		Sidecars:       sidecars,
		PerSidecar:     cfg.SidecarConcurrency,
		QueueSize:      cfg.QueueSize,
		Warm:           warmSetting(cfg.Warm),
		Prepare:        render.PreparePage,
		PageReadLimit:  cfg.PageReadLimit,
		SidecarToken:   a.token,
		Logger:         log,
	})
	if err != nil {
		return nil, fmt.Errorf("GLIMPSE_SIDECARS: %w", err)
	}
	a.Pool = p
	a.closers = append(a.closers, p.Close)
	if err := p.Start(ctx); err != nil {
		return nil, err
	}

	deps := api.Deps{
		Pool: p, Store: store, Files: files, Plans: plans, Limiter: limiter, Registry: a.Registry, Metrics: m,
		Policy: policy, Resolver: net.DefaultResolver, Logger: log,
		// What the sidecars' guards refuse with adblock on: a failed
		// tunnel to any other host is the host's, not the list's.
		Listed: adblockListed(cfg.AdblockHosts),
		// The guards mark their answers under a key of the token.
		GuardMarks: guard.NewMarks(a.token),
	}
	if cfg.Playground {
		deps.Playground = playground.New(playground.Config{FilesOrigin: store.URL(storage.PublicPrefix + "playground")})
	}
	a.Server = api.NewServer(APIConfig(cfg), deps)
	if cfg.MCP {
		// The tools answer through the API's own handler, in process. The
		// endpoint is stateless: no session to resume with GET or end with
		// DELETE.
		a.Server.Mount("/mcp", mcp.New(mcp.Config{API: a.Server.Handler(), Logger: log.With("component", "mcp")}), http.MethodPost)
	}
	a.http = &http.Server{
		Handler:           a.Server.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    2 * api.MaxRequestBytes, // api answers past its own limit with the envelope
	}
	go func() { a.serveErr <- a.http.Serve(ln) }()
	log.Info("glimpse is serving", "addr", ln.Addr().String(), "sidecars", sidecars, "storage", store.Kind())
	return a, nil
}

// APIConfig is the part of the configuration the HTTP layer reads; tests
// that build an api.Server without a browser start from it.
func APIConfig(c Config) api.Config {
	return api.Config{Region: c.Region, TrustedProxies: c.TrustedProxies, MaxTimeout: c.MaxTimeout,
		CacheBytes: c.CacheBytes, MaxDataBytes: c.MaxDataBytes, MaxFileBytes: c.MaxFileBytes, FileVersion: c.FileVersion, Pprof: c.Pprof, FullRenders: c.FullRenders,
		DocsURL: c.DocsURL, NoProxy: !c.AllowProxy, WallProxy: c.WallProxy}
}

func warmSetting(n int) int {
	if n == 0 {
		return -1 // the pool reads 0 as "default"
	}
	return n
}

// adblockListed is what the embedded sidecar's egress guard refuses on
// pages rendered with adblock on: the list, plus extra hosts (each with
// its subdomains).
func adblockListed(extra []string) func(host string) bool {
	return func(host string) bool {
		if adblock.Default().Blocks(host) {
			return true
		}
		host = strings.TrimSuffix(strings.ToLower(host), ".")
		for _, h := range extra {
			if host == h || strings.HasSuffix(host, "."+h) {
				return true
			}
		}
		return false
	}
}

// SidecarToken is the secret the pool presents to the sidecars; tests that
// reach a sidecar themselves need it.
func (a *App) SidecarToken() string { return a.token }

// Addr is the address the API listens on.
func (a *App) Addr() string { return a.ln.Addr().String() }

// URL is the API's base URL on loopback, for tests and logs.
func (a *App) URL() string {
	_, port, _ := net.SplitHostPort(a.Addr())
	return "http://127.0.0.1:" + port
}

// startEmbeddedSidecar runs a whole sidecar, egress guard included, in this
// process on a loopback port; the pool reaches it like any other.
func (a *App) startEmbeddedSidecar(ctx context.Context) (string, error) {
	addr := a.cfg.SidecarAddr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", fmt.Errorf("listening for the embedded sidecar on %s (GLIMPSE_SIDECAR_ADDR): %w", addr, err)
	}
	scfg := sidecar.DefaultConfig()
	scfg.Addr = ln.Addr().String()
	scfg.ChromePath = a.cfg.ChromePath
	scfg.RecycleAfter = a.cfg.RecycleAfter
	scfg.Token = a.token
	scfg.Logger = a.log.With("component", "sidecar")
	// A page must not reach this service's own API either, whatever the
	// allow-list says.
	_, apiPort, _ := net.SplitHostPort(a.Addr())
	port, _ := strconv.ParseUint(apiPort, 10, 16)
	srv, err := sidecar.NewServer(sidecar.RunConfig{Sidecar: scfg, AllowTargets: a.cfg.AllowTargets, Listener: ln,
		Blocks: adblockListed(a.cfg.AdblockHosts), ProtectPorts: []uint16{uint16(port)}})
	if err != nil {
		ln.Close()
		return "", fmt.Errorf("starting the embedded sidecar: %w", err)
	}
	a.Sidecar = srv.Sidecar()
	metrics.RegisterSidecar(a.Registry, srv.Stats)
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Run(runCtx); err != nil {
			a.log.Error("the embedded sidecar stopped", "err", err)
		}
	}()
	a.closers = append(a.closers, func() { cancel(); <-done })
	return ln.Addr().String(), nil
}

// openStorage picks MinIO/S3 when an endpoint is set, else the local
// directory. Either way this service serves the stored files under /files/,
// so their URLs also work when GLIMPSE_PUBLIC_BASE_URL is this service's
// own address (or a CDN in front of it) and the bucket is private or only
// reachable inside the cluster. Unset, files are addressed at the bucket
// with S3 and at this service with a directory.
func (a *App) openStorage(ctx context.Context) (storage.Store, http.Handler, error) {
	cfg := a.cfg
	if cfg.S3Endpoint != "" {
		s3, err := storage.NewS3(ctx, storage.S3Config{
			Endpoint: cfg.S3Endpoint, Bucket: cfg.S3Bucket, AccessKey: cfg.S3AccessKey, SecretKey: cfg.S3SecretKey,
			Region: cfg.S3Region, Secure: cfg.S3Secure, PublicBaseURL: cfg.PublicBaseURL, ExpireAfterDays: cfg.S3ExpireDays,
		})
		if err != nil {
			return nil, nil, err
		}
		a.closers = append(a.closers, func() { s3.Close() })
		return s3, s3.Handler(), nil
	}
	base := cfg.PublicBaseURL
	if base == "" {
		base = a.defaultPublicBase()
	}
	if _, err := url.Parse(base); err != nil {
		return nil, nil, fmt.Errorf("GLIMPSE_PUBLIC_BASE_URL %q is not a URL: %w", base, err)
	}
	local, err := storage.NewLocal(storage.LocalConfig{Dir: cfg.StorageDir, PublicBaseURL: base,
		MaxBytes: cfg.StorageMaxBytes, MaxAge: cfg.StorageMaxAge, MinAge: cfg.StorageMinAge})
	if err != nil {
		return nil, nil, err
	}
	metrics.RegisterLocalStorage(a.Registry, local.Snapshot)
	a.closers = append(a.closers, func() { local.Close() })
	return local, local.Handler(), nil
}

// openLimiter picks where quotas are counted: in Redis, shared by every
// replica, when GLIMPSE_REDIS_URL is set; else in this process's memory,
// per replica and from zero after a restart. A Redis that cannot be
// reached does not stop the start: quotas are counted in memory until it
// answers (see quota.Redis).
func (a *App) openLimiter(ctx context.Context) (quota.Limiter, error) {
	m := metrics.NewQuota(a.Registry)
	if a.cfg.RedisURL == "" {
		return quota.NewMemory(), nil
	}
	r, err := quota.NewRedis(ctx, quota.RedisConfig{URL: a.cfg.RedisURL, Logger: a.log, OnError: m.BackendErrors.Inc})
	if err != nil {
		return nil, err
	}
	a.closers = append(a.closers, func() { r.Close() })
	return r, nil
}

// defaultPublicBase is this service's own address as callers on this
// machine reach it; a deployment behind a name sets GLIMPSE_PUBLIC_BASE_URL.
func (a *App) defaultPublicBase() string {
	host, port, _ := net.SplitHostPort(a.Addr())
	if host == "" || host == "::" || host == "0.0.0.0" || strings.HasPrefix(host, "127.") || host == "::1" {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port)
}

// Shutdown stops accepting, lets in-flight requests finish within ctx,
// then closes leases, the pool, the sidecar and storage.
func (a *App) Shutdown(ctx context.Context) error {
	err := a.http.Shutdown(ctx)
	// What requests left running (refreshes, shared-cache writes) finishes
	// within the same grace before the browsers and stores close.
	if a.Server == nil {
		// Not started far enough to have taken a request.
	} else if derr := a.Server.Drain(ctx); derr != nil {
		a.log.Warn("shutting down before background work finished; its results are lost", "err", derr)
	}
	a.close()
	return err
}

func (a *App) close() {
	for i := len(a.closers) - 1; i >= 0; i-- {
		a.closers[i]()
	}
	a.closers = nil
}

// Run serves until ctx ends (SIGTERM), then shuts down gracefully.
func Run(ctx context.Context, cfg Config, log *slog.Logger) error {
	a, err := Start(ctx, cfg, log)
	if err != nil {
		return err
	}
	select {
	case <-ctx.Done():
	case err := <-a.serveErr:
		if !errors.Is(err, http.ErrServerClosed) {
			a.close()
			return err
		}
	}
	grace := cfg.ShutdownGrace
	if grace <= 0 {
		grace = 30 * time.Second
	}
	log.Info("shutting down: finishing in-flight requests", "grace", grace)
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	return a.Shutdown(sctx)
}
