package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
)

// Values of the phase label of glimpse_render_phase_duration_seconds.
const (
	PhaseLeaseWait = "lease_wait"
	PhaseNavigate  = "navigate"
	PhaseExtract   = "extract"
	PhaseProbe     = "probe"
	PhasePDF       = "pdf"
	PhaseUpload    = "upload"
	PhaseShot      = "screenshot"
	PhaseOverlay   = "overlay" // composing `screenshot.overlay` after the capture
	// PhaseReveal is scrolling through the page before a full-page
	// screenshot, a PDF or Markdown, for what loads late.
	PhaseReveal = "reveal"
)

// Values of the cache label of glimpse_http_request_duration_seconds; they
// are the x-cache-status header values, NONE when no cache decision was made.
const (
	CacheStatusHit    = "HIT"
	CacheStatusStale  = "STALE" // served while a background render refreshes it
	CacheStatusMiss   = "MISS"
	CacheStatusBypass = "BYPASS"
	CacheStatusNone   = "NONE"
)

// Values of the output label of glimpse_http_requests_total and
// glimpse_http_request_duration_seconds: the output that decides a
// request's work, the most expensive one it asks for (a PDF before a
// screenshot, before Markdown, before other data rules, before metadata).
// OutputNone is a request that failed before its query parsed, or one that
// asks for no output at all (meta=false alone).
const (
	OutputPDF        = "pdf"
	OutputScreenshot = "screenshot"
	OutputMarkdown   = "markdown"
	OutputData       = "data"
	OutputMetadata   = "metadata"
	OutputNone       = "none"
)

// Outputs lists every value of the output label, so callers can start each
// series at zero.
func Outputs() []string {
	return []string{OutputPDF, OutputScreenshot, OutputMarkdown, OutputData, OutputMetadata, OutputNone}
}

// Values of the result label of glimpse_cache_requests_total: a fresh
// answer, one served stale while a background render refreshes it, none
// usable, or none looked for (force=true).
const (
	CacheHit    = "hit"
	CacheStale  = "stale"
	CacheMiss   = "miss"
	CacheBypass = "bypass"
)

// Values of the source label of glimpse_cache_requests_total: where the
// answer came from. A hit or a stale answer comes from this replica's
// memory or from the store replicas share; a miss or a bypass from a render
// of this request's own, or from one it joined because an identical
// request was rendering already (single flight).
const (
	CacheFromMemory = "memory"
	CacheFromShared = "shared"
	CacheFromRender = "render"
	CacheFromJoined = "joined"
)

// CacheOutcomes lists the result and source pairs of
// glimpse_cache_requests_total, the only ones that can happen.
var CacheOutcomes = [...][2]string{
	{CacheHit, CacheFromMemory}, {CacheHit, CacheFromShared},
	{CacheStale, CacheFromMemory}, {CacheStale, CacheFromShared},
	{CacheMiss, CacheFromRender}, {CacheMiss, CacheFromJoined},
	{CacheBypass, CacheFromRender}, {CacheBypass, CacheFromJoined},
}

// Values of the op label of glimpse_storage_errors_total.
const (
	StoragePut  = "put"
	StorageGet  = "get"
	StorageStat = "stat"
	StoragePing = "ping"
)

// Values of the where label of glimpse_guard_refusals_total.
const (
	GuardRequest  = "request"  // the pre-check of the target before any work
	GuardRedirect = "redirect" // a redirect hop
)

// Values of the reason label of glimpse_render_early_reads_total.
const (
	EarlyQuiet = "quiet" // the document kept its shape, nothing of the page's scripts in flight
	EarlyCap   = "cap"   // the longest wait after DOMContentLoaded passed
)

// ConsentGeneric is the manager label of glimpse_render_consent_dismissed_total
// for a banner the generic rule hid; the other values are the names in
// the consent list.
const ConsentGeneric = "generic"

// CodeOK is the code label of a request that succeeded; failed requests
// carry their error code (EINVALURL, EBUSY, …).
const CodeOK = "OK"

// Orchestrator holds the collectors the front service updates while it
// answers requests.
type Orchestrator struct {
	// Requests counts answered requests:
	// glimpse_http_requests_total{code,status,output} with code CodeOK or an
	// error code, status the class from StatusClass and output one of the
	// Output values.
	Requests *prometheus.CounterVec
	// RequestDuration: glimpse_http_request_duration_seconds{cache,output},
	// cache one of the CacheStatus values, output one of the Output values.
	RequestDuration *prometheus.HistogramVec
	// Phase: glimpse_render_phase_duration_seconds{phase}, phase one of the
	// Phase values.
	Phase *prometheus.HistogramVec
	// LeaseWait: glimpse_pool_lease_wait_seconds, time from asking the pool
	// for a lease to getting one.
	LeaseWait prometheus.Histogram
	// BusyRejections: glimpse_pool_busy_rejections_total, requests refused
	// with EBUSY because the wait queue was full or no browser was healthy.
	BusyRejections prometheus.Counter
	// EventsDropped: glimpse_cdp_events_dropped_total{method}, DevTools
	// events lost because their reader fell behind.
	EventsDropped *prometheus.CounterVec
	// Retries: glimpse_pool_retries_total, leases lost with their sidecar
	// and retried on another one.
	Retries prometheus.Counter
	// Cache: glimpse_cache_requests_total{result,source}, one of the pairs
	// of CacheOutcomes.
	Cache *prometheus.CounterVec
	// RateLimited: glimpse_ratelimit_rejections_total{plan}, requests refused
	// with ERATE, by plan name from the plans file.
	RateLimited *prometheus.CounterVec
	// PDFs: glimpse_pdf_generated_total.
	PDFs prometheus.Counter
	// PDFBytes: glimpse_pdf_stored_bytes_total, bytes of PDF written to storage.
	PDFBytes prometheus.Counter
	// StorageErrors: glimpse_storage_errors_total{op}, op one of the Storage
	// values.
	StorageErrors *prometheus.CounterVec
	// GuardRefusals: glimpse_guard_refusals_total{where}, where one of the
	// Guard values.
	GuardRefusals *prometheus.CounterVec
	// EarlyReads: glimpse_render_early_reads_total{reason}, lean renders
	// read before their load event, reason one of the Early values.
	EarlyReads *prometheus.CounterVec
	// ConsentDismissed: glimpse_render_consent_dismissed_total{manager},
	// consent banners dismissed before a capture or Markdown, manager a
	// name of the consent list or ConsentGeneric.
	ConsentDismissed *prometheus.CounterVec
	// BotWalls: glimpse_render_bot_walls_total{vendor}, targets that
	// answered with a bot wall instead of the page, vendor one of
	// WallVendors.
	BotWalls *prometheus.CounterVec
}

// WallVendors are the values of the vendor label of
// glimpse_render_bot_walls_total: the bot-management vendors glimpse
// recognises, and "captcha" for a CAPTCHA page of none of them.
var WallVendors = []string{"akamai", "aws-waf", "captcha", "cloudflare", "datadome",
	"ddos-guard", "imperva", "kasada", "perimeterx", "vercel"}

// Bucket bounds, in seconds. Requests run up to the largest configured
// time-out (tens of seconds) while cache hits take milliseconds, so the
// request buckets span both; a lease is either free at once or waits for a
// page to finish.
var (
	requestBuckets   = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60}
	phaseBuckets     = []float64{0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60}
	leaseWaitBuckets = []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30}
)

// NewOrchestrator creates the orchestrator's collectors and registers them
// with reg; a nil reg leaves them unregistered. Like MustRegister it panics
// when a collector is already registered, a wiring mistake made at start.
//
// Series with a known, fixed label value start at zero, so rate() and the
// alert ratios have data before the first event of each kind.
func NewOrchestrator(reg prometheus.Registerer) *Orchestrator {
	f := promauto.With(reg)
	o := &Orchestrator{
		Requests: f.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Subsystem: "http", Name: "requests_total",
			Help: "Requests answered, by result code (OK or the error code), HTTP status class and output (pdf, screenshot, markdown, data, metadata, or none when the query did not parse or asks for nothing).",
		}, []string{"code", "status", "output"}),
		RequestDuration: f.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: Namespace, Subsystem: "http", Name: "request_duration_seconds",
			Help:    "Time to answer a request, by cache status (HIT, MISS, BYPASS, or NONE when no cache decision was made) and output (pdf, screenshot, markdown, data, metadata, or none).",
			Buckets: requestBuckets,
		}, []string{"cache", "output"}),
		Phase: f.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: Namespace, Subsystem: "render", Name: "phase_duration_seconds",
			Help:    "Time spent in each step of a render: lease_wait, navigate, reveal, extract, probe, pdf, screenshot, overlay, upload.",
			Buckets: phaseBuckets,
		}, []string{"phase"}),
		LeaseWait: f.NewHistogram(prometheus.HistogramOpts{
			Namespace: Namespace, Subsystem: "pool", Name: "lease_wait_seconds",
			Help:    "Time a request waited for a browser lease.",
			Buckets: leaseWaitBuckets,
		}),
		BusyRejections: f.NewCounter(prometheus.CounterOpts{
			Namespace: Namespace, Subsystem: "pool", Name: "busy_rejections_total",
			Help: "Requests refused with EBUSY because every browser was busy and the wait queue was full, or no browser was healthy.",
		}),
		EventsDropped: f.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Subsystem: "cdp", Name: "events_dropped_total",
			Help: "DevTools events dropped because their reader fell behind, by event method.",
		}, []string{"method"}),
		Retries: f.NewCounter(prometheus.CounterOpts{
			Namespace: Namespace, Subsystem: "pool", Name: "retries_total",
			Help: "Leases lost together with their sidecar and retried on another sidecar.",
		}),
		Cache: f.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Subsystem: "cache", Name: "requests_total",
			Help: "Cache lookups, by result (hit, stale, miss, bypass) and by where the answer came from (memory or shared for a hit or a stale answer; render, or joined for an identical request's render, for a miss or a bypass).",
		}, []string{"result", "source"}),
		RateLimited: f.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Subsystem: "ratelimit", Name: "rejections_total",
			Help: "Requests refused with ERATE because the plan's quota was used up, by plan.",
		}, []string{"plan"}),
		PDFs: f.NewCounter(prometheus.CounterOpts{
			Namespace: Namespace, Subsystem: "pdf", Name: "generated_total",
			Help: "PDFs printed and stored.",
		}),
		PDFBytes: f.NewCounter(prometheus.CounterOpts{
			Namespace: Namespace, Subsystem: "pdf", Name: "stored_bytes_total",
			Help: "Bytes of PDF written to storage.",
		}),
		StorageErrors: f.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Subsystem: "storage", Name: "errors_total",
			Help: "Failed storage operations, by operation: put, get, stat, ping.",
		}, []string{"op"}),
		GuardRefusals: f.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Subsystem: "guard", Name: "refusals_total",
			Help: "Target addresses the orchestrator refused by the address rule, by where the check ran: request (before any work) or redirect (a hop of the page). Connections the browser opens are counted by glimpse_sidecar_guard_refusals_total.",
		}, []string{"where"}),
		EarlyReads: f.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Subsystem: "render", Name: "early_reads_total",
			Help: "Renders without pixels (metadata, data rules, Markdown) read before the page's load event, by reason: quiet (the document stopped changing) or cap (it kept changing for the longest wait after DOMContentLoaded).",
		}, []string{"reason"}),
		ConsentDismissed: f.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Subsystem: "render", Name: "consent_dismissed_total",
			Help: "Consent banners dismissed before a screenshot, a PDF or Markdown, by consent manager (a name of the consent list, or generic for a cookie notice the generic rule hid).",
		}, []string{"manager"}),
		BotWalls: f.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Subsystem: "render", Name: "bot_walls_total",
			Help: "Targets that answered with a bot wall (a challenge, a CAPTCHA or a block) instead of the page, by the vendor recognised.",
		}, []string{"vendor"}),
	}

	for _, out := range Outputs() {
		o.Requests.WithLabelValues(CodeOK, StatusClass(200), out)
		for _, c := range []string{CacheStatusHit, CacheStatusMiss, CacheStatusBypass, CacheStatusNone} {
			o.RequestDuration.WithLabelValues(c, out)
		}
	}
	for _, p := range []string{PhaseLeaseWait, PhaseNavigate, PhaseExtract, PhaseProbe, PhasePDF, PhaseShot, PhaseOverlay, PhaseUpload, PhaseReveal} {
		o.Phase.WithLabelValues(p)
	}
	for _, rs := range CacheOutcomes {
		o.Cache.WithLabelValues(rs[0], rs[1])
	}
	for _, op := range []string{StoragePut, StorageGet, StorageStat, StoragePing} {
		o.StorageErrors.WithLabelValues(op)
	}
	for _, w := range []string{GuardRequest, GuardRedirect} {
		o.GuardRefusals.WithLabelValues(w)
	}
	for _, r := range []string{EarlyQuiet, EarlyCap} {
		o.EarlyReads.WithLabelValues(r)
	}
	o.ConsentDismissed.WithLabelValues(ConsentGeneric)
	for _, v := range WallVendors {
		o.BotWalls.WithLabelValues(v)
	}
	return o
}

// StatusClass turns an HTTP status into the bounded status label: "2xx",
// "4xx", "5xx". A status outside 100–599 is reported as "5xx": it can only
// come from a bug, and that is where an operator looks for bugs.
func StatusClass(status int) string {
	switch {
	case status >= 100 && status < 200:
		return "1xx"
	case status >= 200 && status < 300:
		return "2xx"
	case status >= 300 && status < 400:
		return "3xx"
	case status >= 400 && status < 500:
		return "4xx"
	default:
		return "5xx"
	}
}
