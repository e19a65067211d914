package sidecar

import (
	"encoding/json"
	"net/http"
	"time"
)

// Health is what /healthz answers, and what the metrics collectors read.
type Health struct {
	Status        string  `json:"status"`         // "ok", "starting", "draining", "down"
	Browser       string  `json:"browser"`        // Browser.getVersion product, e.g. "Chrome/156.0.8078.79"
	UptimeSeconds float64 `json:"uptime_seconds"` // of the current browser
	OpenPages     int     `json:"open_pages"`     // page targets open now
	PagesCreated  int64   `json:"pages_created"`  // in this generation
	PagesCrashed  int64   `json:"pages_crashed"`  // renderer crashes of pages in this generation
	Restarts      int64   `json:"restarts"`       // crash restarts, ever
	Recycles      int64   `json:"recycles"`       // planned recycles, ever
	Generation    int     `json:"generation"`     // 1 for the first browser, +1 for each one after
	MemoryBytes   int64   `json:"memory_bytes"`   // PSS (else RSS) summed over the browser's process group
	// ReplacedGenerations are earlier browsers a recycle replaced that
	// still finish the pages of their clients, and ReplacedPages those
	// pages. New connections never reach them.
	ReplacedGenerations int `json:"replaced_generations"`
	ReplacedPages       int `json:"replaced_pages"`
	// MaxPages is the sidecar's page limit (0: none), AdmittedPages the
	// pages its clients hold against it now, and PagesRefused the pages it
	// refused for being full, ever.
	MaxPages      int   `json:"max_pages"`
	AdmittedPages int   `json:"admitted_pages"`
	PagesRefused  int64 `json:"pages_refused"`
	// UnfilteredProxy is the loopback address, as the browser reaches it, of
	// the egress guard without the ad-block list; "" when there is none.
	UnfilteredProxy string `json:"unfiltered_proxy,omitempty"`
	// StartedAt is when the current browser became ready; zero while none
	// runs. Exported as a metric, not in the health answer.
	StartedAt time.Time `json:"-"`
}

// Health reports the sidecar's state now. The browser's memory is read from
// /proc at most once a second.
func (s *Sidecar) Health() Health {
	s.mu.Lock()
	h := Health{
		Status:     s.status,
		Restarts:   s.restarts,
		Recycles:   s.recycles,
		Generation: s.gens,

		UnfilteredProxy: s.cfg.UnfilteredProxyAddr,
	}
	g := s.cur
	replaced := make([]*generation, 0, len(s.replaced))
	for r := range s.replaced {
		replaced = append(replaced, r)
	}
	s.mu.Unlock()
	h.MaxPages, h.AdmittedPages, h.PagesRefused = s.admission.counts()
	h.ReplacedGenerations = len(replaced)
	for _, r := range replaced {
		open, _, _ := r.counts()
		h.ReplacedPages += open
	}
	if g == nil {
		return h
	}
	h.Browser = g.product
	h.UptimeSeconds = g.uptime().Seconds()
	h.StartedAt = g.readyAt
	h.OpenPages, h.PagesCreated, h.PagesCrashed = g.counts()
	h.MemoryBytes = s.memory(g)
	return h
}

// memory returns g's memory, reusing a reading younger than memoryCacheFor:
// smaps_rollup walks every mapping of every process, which is not free.
func (s *Sidecar) memory(g *generation) int64 {
	s.mu.Lock()
	if s.memGen == g.n && time.Since(s.memAt) < memoryCacheFor {
		defer s.mu.Unlock()
		return s.memBytes
	}
	s.mu.Unlock()
	n := groupMemory(procRoot, g.proc.pid)
	s.mu.Lock()
	s.memGen, s.memAt, s.memBytes = g.n, time.Now(), n
	s.mu.Unlock()
	return n
}

// serveHealth answers 200 when a browser takes connections, 503 otherwise,
// with the same JSON either way so the caller can tell why.
func (s *Sidecar) serveHealth(w http.ResponseWriter, _ *http.Request) {
	h := s.Health()
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	if h.Status == StatusOK {
		w.WriteHeader(http.StatusOK)
	} else {
		w.WriteHeader(http.StatusServiceUnavailable)
	}
	_ = json.NewEncoder(w).Encode(h)
}

// serveVersion answers like Chromium's own /json/version, with the sidecar's
// stable endpoint as webSocketDebuggerUrl, so standard DevTools clients that
// start from an HTTP address (chromedp's remote allocator, puppeteer's
// browserURL) can connect through the sidecar.
func (s *Sidecar) serveVersion(w http.ResponseWriter, r *http.Request) {
	g, status := s.current()
	w.Header().Set("Cache-Control", "no-store")
	if g == nil {
		w.Header().Set("Retry-After", "1")
		http.Error(w, "Chromium is "+status+" on this sidecar; ask again when /healthz reports ok.", http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]string{
		"Browser":              g.version.Product,
		"Protocol-Version":     g.version.ProtocolVersion,
		"User-Agent":           g.version.UserAgent,
		"V8-Version":           g.version.JsVersion,
		"WebKit-Version":       g.version.Revision,
		"webSocketDebuggerUrl": "ws://" + r.Host + "/devtools/browser",
	})
}
