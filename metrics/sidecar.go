package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// SidecarStats is the sidecar process's own state, read once per scrape.
type SidecarStats struct {
	Up            bool  // browser ready
	Draining      bool  // finishing in-flight pages before exit
	OpenPages     int   // pages open now
	PagesCreated  int64 // ever (rises only)
	Restarts      int64 // Chromium restarts after a crash or failed health check, ever
	Recycles      int64 // planned Chromium restarts (after N pages or too much memory), ever
	MemoryBytes   int64 // memory of Chromium's process group
	GuardRefusals int64 // connections refused by the egress guard, ever
	AdsBlocked    int64 // requests refused for the ad-block list, ever
	AuthRefusals  int64 // requests refused for a missing or wrong sidecar token, ever
	// CDPRefusals counts the DevTools commands the sidecar refused to pass
	// to Chromium, ever, by one of CDPRefusalReasons; a missing reason
	// counts 0.
	CDPRefusals map[string]int64
	// MaxPages is the sidecar's page limit over every orchestrator (0:
	// none), AdmittedPages the pages its clients hold against it now, and
	// PagesRefused the pages it refused for being full, ever.
	MaxPages      int
	AdmittedPages int
	PagesRefused  int64
	// BackgroundRefusals counts the requests Chromium made on its own, for
	// no page, that the sidecar refused, ever.
	BackgroundRefusals int64
	// BrowserStarted is when the current Chromium became ready; zero while
	// none runs. A new value marks a browser start: the sidecar's own, a
	// crash restart or a recycle.
	BrowserStarted time.Time
}

// Reasons the sidecar refuses a DevTools command, the values of the reason
// label of glimpse_sidecar_cdp_refusals_total.
const (
	CDPRefusedMethod    = "method"    // the method is not one glimpse uses
	CDPRefusedParams    = "params"    // a parameter glimpse does not send
	CDPRefusedProxy     = "proxy"     // a browser context with a proxy other than the egress guard
	CDPRefusedDownload  = "download"  // downloads allowed, or a download path
	CDPRefusedURL       = "url"       // a page or navigation to a scheme other than http(s)
	CDPRefusedMalformed = "malformed" // not a JSON DevTools command
)

// CDPRefusalReasons lists every reason, in the order they are exported.
var CDPRefusalReasons = [...]string{
	CDPRefusedMethod, CDPRefusedParams, CDPRefusedProxy, CDPRefusedDownload, CDPRefusedURL, CDPRefusedMalformed,
}

// RegisterSidecar exports glimpse_sidecar_up, glimpse_sidecar_draining,
// glimpse_sidecar_open_pages, glimpse_sidecar_pages_created_total,
// glimpse_sidecar_chromium_restarts_total,
// glimpse_sidecar_chromium_recycles_total,
// glimpse_sidecar_chromium_memory_bytes,
// glimpse_sidecar_guard_refusals_total,
// glimpse_sidecar_adblock_blocked_total,
// glimpse_sidecar_auth_refusals_total,
// glimpse_sidecar_cdp_refusals_total{reason},
// glimpse_sidecar_max_pages, glimpse_sidecar_admitted_pages,
// glimpse_sidecar_pages_refused_total,
// glimpse_sidecar_background_refusals_total and
// glimpse_sidecar_chromium_start_time_seconds, read from stats at scrape
// time.
// The running totals are exported as counters, so rate() and increase()
// work on them and survive a sidecar restart. stats must be safe to call
// from several goroutines at once. A nil reg registers nothing; a second
// registration panics, as MustRegister does.
func RegisterSidecar(reg prometheus.Registerer, stats func() SidecarStats) {
	if stats == nil {
		panic("metrics: RegisterSidecar needs a stats function")
	}
	if reg == nil {
		return
	}
	reg.MustRegister(newSidecarCollector(stats))
}

type sidecarCollector struct {
	stats                                   func() SidecarStats
	up, draining, open, created             *prometheus.Desc
	restarts, recycles, memory, guardRefuse *prometheus.Desc
	adsBlocked, authRefusals, cdpRefusals   *prometheus.Desc
	maxPages, admitted, refusedPages        *prometheus.Desc
	background, started                     *prometheus.Desc
}

func newSidecarCollector(stats func() SidecarStats) *sidecarCollector {
	d := func(name, help string) *prometheus.Desc {
		return prometheus.NewDesc(prometheus.BuildFQName(Namespace, "sidecar", name), help, nil, nil)
	}
	return &sidecarCollector{
		stats:       stats,
		up:          d("up", "1 when the sidecar's Chromium is ready for pages, 0 otherwise."),
		draining:    d("draining", "1 while the sidecar finishes in-flight pages before it stops, 0 otherwise."),
		open:        d("open_pages", "Pages open in the sidecar's Chromium now."),
		created:     d("pages_created_total", "Pages the sidecar has opened since it started."),
		restarts:    d("chromium_restarts_total", "Times Chromium was restarted after a crash or a failed health check."),
		recycles:    d("chromium_recycles_total", "Times Chromium was restarted on purpose, after a number of pages or too much memory."),
		memory:      d("chromium_memory_bytes", "Resident memory of Chromium's process group."),
		guardRefuse: d("guard_refusals_total", "Connections from the browser refused by the egress guard."),
		adsBlocked:  d("adblock_blocked_total", "Requests from the browser refused by the egress guard for the ad-block list."),
		authRefusals: d("auth_refusals_total",
			"Requests to the sidecar's DevTools endpoint or egress proxy refused for a missing or wrong sidecar token."),
		cdpRefusals: prometheus.NewDesc(prometheus.BuildFQName(Namespace, "sidecar", "cdp_refusals_total"),
			"DevTools commands the sidecar answered with an error instead of passing them to Chromium, by reason.",
			[]string{"reason"}, nil),
		maxPages:     d("max_pages", "Pages the sidecar admits at once over every orchestrator (GLIMPSE_SIDECAR_MAX_PAGES); 0 for no limit."),
		admitted:     d("admitted_pages", "Pages the sidecar's clients, every orchestrator together, hold now: its real load."),
		refusedPages: d("pages_refused_total", "Pages the sidecar refused because it held its GLIMPSE_SIDECAR_MAX_PAGES already."),
		background:   d("background_refusals_total", "Requests Chromium made on its own, for no page, that the sidecar refused."),
		started:      d("chromium_start_time_seconds", "Unix time at which the sidecar's current Chromium became ready; 0 while none runs."),
	}
}

func (c *sidecarCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.up, c.draining, c.open, c.created, c.restarts, c.recycles, c.memory, c.guardRefuse, c.adsBlocked, c.authRefusals, c.cdpRefusals,
		c.maxPages, c.admitted, c.refusedPages, c.background, c.started} {
		ch <- d
	}
}

func (c *sidecarCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.stats()
	gauge := func(d *prometheus.Desc, v float64) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v)
	}
	counter := func(d *prometheus.Desc, v int64) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v))
	}
	gauge(c.up, boolValue(s.Up))
	gauge(c.draining, boolValue(s.Draining))
	gauge(c.open, float64(s.OpenPages))
	gauge(c.memory, float64(s.MemoryBytes))
	counter(c.created, s.PagesCreated)
	counter(c.restarts, s.Restarts)
	counter(c.recycles, s.Recycles)
	counter(c.guardRefuse, s.GuardRefusals)
	counter(c.adsBlocked, s.AdsBlocked)
	counter(c.authRefusals, s.AuthRefusals)
	gauge(c.maxPages, float64(s.MaxPages))
	gauge(c.admitted, float64(s.AdmittedPages))
	counter(c.refusedPages, s.PagesRefused)
	counter(c.background, s.BackgroundRefusals)
	started := 0.0
	if !s.BrowserStarted.IsZero() {
		started = float64(s.BrowserStarted.UnixNano()) / 1e9
	}
	gauge(c.started, started)
	// Every reason is exported, 0 included, so rate() sees the first refusal.
	for _, reason := range CDPRefusalReasons {
		ch <- prometheus.MustNewConstMetric(c.cdpRefusals, prometheus.CounterValue, float64(s.CDPRefusals[reason]), reason)
	}
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
