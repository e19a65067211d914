package observability_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/glimpse/glimpse/metrics"
	"github.com/glimpse/glimpse/metrics/metricstest"
	"github.com/glimpse/glimpse/orchestrator"
	"github.com/glimpse/glimpse/orchestrator/internal/e2e"
	"github.com/glimpse/glimpse/sidecar"
)

// The monitoring files the Helm chart ships, relative to this package.
const (
	monDashboardPath = "../../../helm/glimpse/dashboards/glimpse.json"
	monAlertsPath    = "../../../helm/glimpse/files/alerts.yaml"
)

const (
	// monNamespace stands in for the namespace label that the Prometheus
	// operator adds to every target of a ServiceMonitor; the dashboard
	// filters every query by it.
	monNamespace = "glimpse-monitoring"
	// monTinyKey is an API key on a plan that admits one request per hour,
	// so its second request is refused with ERATE.
	monTinyKey  = "k-monitoring-tiny-0001"
	monTinyPlan = "tiny"
)

const monPlans = `
anonymous: {name: monitoring, limit: 1000000, window: 1h}
plans:
  - {name: ` + monTinyPlan + `, limit: 1, window: 1h}
keys:
  - {key: ` + monTinyKey + `, plan: ` + monTinyPlan + `}
`

// monEgressPage loads an image from the cloud metadata address, which the
// sidecar's egress guard refuses while the page itself renders fine.
const monEgressPage = `<!doctype html><html lang="en"><head><title>Egress probe</title></head>
<body><p>A script from an address the browser must not reach (a script, which a
metadata render loads, where it loads no picture):</p>
<script src="http://169.254.169.254/latest/meta-data/glimpse-probe.js"></script></body></html>`

// monEnv is a glimpse with its embedded sidecar, a site to render, and an
// external sidecar like the ones a cluster runs next to the orchestrators.
type monEnv struct {
	app         *e2e.App
	site        *e2e.PageServer
	sidecarAddr string                        // the external sidecar, host:port
	gate        atomic.Pointer[chan struct{}] // holds /slow until closed
}

func startMonitoringEnv(t *testing.T) *monEnv {
	t.Helper()
	env := &monEnv{}
	plans := filepath.Join(t.TempDir(), "plans.yaml")
	if err := os.WriteFile(plans, []byte(monPlans), 0o600); err != nil {
		t.Fatal(err)
	}
	env.app = e2e.StartApp(t, func(c *orchestrator.Config) {
		c.PlansFile = plans
		// One page at a time and one waiting request: two slow pages fill
		// the pool and its queue, and the next request gets EBUSY.
		c.SidecarConcurrency = 1
		c.QueueSize = 1
	})
	env.site = e2e.NewPageServer(t, map[string]http.HandlerFunc{
		"/article": e2e.HTML(e2e.ArticlePage),
		"/egress":  e2e.HTML(monEgressPage),
		"/slow": func(w http.ResponseWriter, r *http.Request) {
			if gate := env.gate.Load(); gate != nil {
				select {
				case <-*gate:
				case <-r.Context().Done():
					return
				case <-time.After(20 * time.Second):
				}
			}
			e2e.HTML(e2e.ArticlePage)(w, r)
		},
	})
	env.sidecarAddr = startExternalSidecar(t)
	return env
}

// startExternalSidecar runs a whole sidecar on loopback the way the
// sidecar command does, with its own registry served at /metrics, and
// waits until its Chromium is ready.
func startExternalSidecar(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	reg := metrics.NewRegistry()
	cfg := sidecar.DefaultConfig()
	cfg.Addr = ln.Addr().String()
	cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})).With("component", "external sidecar")
	srv, err := sidecar.NewServer(sidecar.RunConfig{Sidecar: cfg, Listener: ln, Metrics: metrics.Handler(reg)})
	if err != nil {
		ln.Close()
		t.Fatalf("starting an external sidecar: %v", err)
	}
	metrics.RegisterSidecar(reg, srv.Stats)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("the external sidecar stopped with an error: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Error("the external sidecar did not stop within 30 s")
		}
	})
	monWaitFor(t, 60*time.Second, "the external sidecar's Chromium to be ready", func() bool {
		return srv.Sidecar().Health().Status == sidecar.StatusOK
	})
	return ln.Addr().String()
}

// monResult is an answer fetched off the test's goroutine.
type monResult struct {
	answer e2e.Answer
	err    error
}

var monClient = &http.Client{Timeout: 60 * time.Second}

// monGet is e2e.App.Do for any goroutine: it reports failures instead of
// ending the test.
func monGet(base, rawQuery string, hdr ...string) (e2e.Answer, error) {
	req, err := http.NewRequest(http.MethodGet, base+"/?"+rawQuery, nil)
	if err != nil {
		return e2e.Answer{}, err
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := monClient.Do(req)
	if err != nil {
		return e2e.Answer{}, fmt.Errorf("GET /?%s: %w", rawQuery, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return e2e.Answer{}, fmt.Errorf("reading the answer to GET /?%s: %w", rawQuery, err)
	}
	a := e2e.Answer{HTTP: resp.StatusCode, Header: resp.Header, Raw: body}
	if json.Valid(body) {
		_ = json.Unmarshal(body, &a)
	}
	return a, nil
}

func monTarget(target string) string { return "url=" + url.QueryEscape(target) }

func monWaitFor(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up after %s waiting for %s", within, what)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// traffic sends one round of every kind of request a dashboard panel
// counts: browser renders, a plain fetch, cache hits and bypasses, a PDF, a
// page the egress guard cuts off, refused URLs, a quota refusal and EBUSY.
// Each round uses new URLs, so it renders again instead of answering from
// the cache.
func (env *monEnv) traffic(t *testing.T, round int) {
	t.Helper()
	base := env.app.URL()
	article := fmt.Sprintf("%s/article?round=%d", env.site.URL, round)
	refusedBefore := e2e.Gathered(t, env.app.Registry, "glimpse_sidecar_guard_refusals_total")

	// prerender=true sends a request to the browser; without it a page
	// whose HTML holds its metadata is read by a plain fetch.
	browser := monTarget(article) + "&prerender=true"
	steps := []struct {
		what      string
		query     string
		wantHTTP  int
		wantCode  string
		wantCache string
		wantMode  string // x-fetch-mode
		wantField string
	}{
		{"a metadata render in a browser", browser, 200, "", "MISS", "prerender", "title"},
		{"a cache hit", browser, 200, "", "HIT", "prerender", "title"},
		{"a second cache hit", browser, 200, "", "HIT", "prerender", "title"},
		{"a forced render", browser + "&force=true", 200, "", "BYPASS", "prerender", "title"},
		{"a metadata read by a plain fetch", monTarget(article + "&plain=1"), 200, "", "MISS", "fetch", "title"},
		{"a PDF", monTarget(article) + "&pdf=true&meta=false", 200, "", "MISS", "", "pdf"},
		{"a page whose script the egress guard refuses", monTarget(fmt.Sprintf("%s/egress?round=%d", env.site.URL, round)) + "&prerender=true", 200, "", "MISS", "prerender", "title"},
		{"a URL that is not http", monTarget(fmt.Sprintf("ftp://example.com/round-%d", round)), 400, "EINVALURL", "", "", ""},
		{"the cloud metadata address", monTarget(fmt.Sprintf("http://169.254.169.254/latest/meta-data/round-%d", round)), 400, "EFORBIDDENURL", "", "", ""},
	}
	for _, s := range steps {
		a, err := monGet(base, s.query)
		if err != nil {
			t.Fatalf("round %d, %s: %v", round, s.what, err)
		}
		if a.HTTP != s.wantHTTP || a.Code != s.wantCode {
			t.Fatalf("round %d, %s: got %d %q, want %d %q: %s", round, s.what, a.HTTP, a.Code, s.wantHTTP, s.wantCode, a.Raw)
		}
		if got := a.Header.Get("x-cache-status"); s.wantCache != "" && got != s.wantCache {
			t.Fatalf("round %d, %s: x-cache-status is %q, want %s", round, s.what, got, s.wantCache)
		}
		if got := a.Header.Get("x-fetch-mode"); s.wantMode != "" && got != s.wantMode {
			t.Fatalf("round %d, %s: x-fetch-mode is %q, want %s", round, s.what, got, s.wantMode)
		}
		if s.wantField != "" && !a.Has(s.wantField) {
			t.Fatalf("round %d, %s: the answer has no %s: %s", round, s.what, s.wantField, a.Raw)
		}
	}
	monWaitFor(t, 5*time.Second, "the embedded sidecar to count the refused script", func() bool {
		return e2e.Gathered(t, env.app.Registry, "glimpse_sidecar_guard_refusals_total") > refusedBefore
	})

	// The tiny plan admits one request per hour: the first round spends it
	// and is refused on the second request, later rounds on the first.
	var refused e2e.Answer
	for range 2 {
		a, err := monGet(base, monTarget("http://127.0.0.1:9/")+"&meta=false", "x-api-key", monTinyKey)
		if err != nil {
			t.Fatalf("round %d, a request on the tiny plan: %v", round, err)
		}
		if refused = a; a.HTTP == http.StatusTooManyRequests {
			break
		}
	}
	if refused.HTTP != http.StatusTooManyRequests || refused.Code != "ERATE" || refused.Header.Get("x-pricing-plan") != monTinyPlan {
		t.Fatalf("round %d: a request over the tiny plan's quota got %d %q on plan %q, want 429 ERATE on %s: %s",
			round, refused.HTTP, refused.Code, refused.Header.Get("x-pricing-plan"), monTinyPlan, refused.Raw)
	}

	env.busy(t, round)
}

// busy fills the only lease and the one-place queue with slow pages and
// sends two requests more, which must be refused with EBUSY.
func (env *monEnv) busy(t *testing.T, round int) {
	t.Helper()
	base := env.app.URL()
	gate := make(chan struct{})
	env.gate.Store(&gate)
	var once atomic.Bool
	release := func() {
		if once.CompareAndSwap(false, true) {
			close(gate)
		}
	}
	defer release()

	slow := func(i string) string {
		return monTarget(fmt.Sprintf("%s/slow?round=%d&i=%s", env.site.URL, round, i)) + "&prerender=true"
	}
	admitted := make(chan monResult, 2)
	admit := func(i string) {
		go func() {
			a, err := monGet(base, slow(i))
			admitted <- monResult{a, err}
		}()
	}
	hits := env.site.Hits["/slow"].Load()
	admit("holder")
	monWaitFor(t, 20*time.Second, "a slow page to hold the only browser lease", func() bool {
		return env.site.Hits["/slow"].Load() > hits
	})
	admit("waiter")
	monWaitFor(t, 10*time.Second, "a second slow page to wait in the queue", func() bool {
		return env.app.Pool.Snapshot().Queued == 1
	})
	for i := range 2 {
		a, err := monGet(base, slow(fmt.Sprintf("refused-%d", i)))
		if err != nil {
			t.Fatalf("round %d, a request with the pool and its queue full: %v", round, err)
		}
		if a.HTTP != http.StatusServiceUnavailable || a.Code != "EBUSY" {
			t.Fatalf("round %d, a request with the pool and its queue full got %d %q, want 503 EBUSY: %s", round, a.HTTP, a.Code, a.Raw)
		}
	}
	release()
	for range 2 {
		r := <-admitted
		if r.err != nil || r.answer.HTTP != 200 {
			t.Fatalf("round %d, a slow page admitted to the pool failed: %v %d %s", round, r.err, r.answer.HTTP, r.answer.Raw)
		}
	}
}

// monRuleFile is a Prometheus rule file, as the chart's alerts.yaml is.
type monRuleFile struct {
	Groups []struct {
		Name  string `yaml:"name"`
		Rules []struct {
			Alert  string `yaml:"alert"`
			Record string `yaml:"record"`
			Expr   string `yaml:"expr"`
		} `yaml:"rules"`
	} `yaml:"groups"`
}

func monLoadRules(t *testing.T) monRuleFile {
	t.Helper()
	raw, err := os.ReadFile(monAlertsPath)
	if err != nil {
		t.Fatalf("reading the chart's alert rules: %v", err)
	}
	var f monRuleFile
	if err := yaml.Unmarshal(raw, &f); err != nil {
		t.Fatalf("the alert rules in %s are not valid YAML: %v", monAlertsPath, err)
	}
	if len(f.Groups) == 0 {
		t.Fatalf("the alert rules in %s define no group", monAlertsPath)
	}
	return f
}

// monUsedNames maps each metric name the dashboard or an alert selects to
// the panels and alerts that select it.
func monUsedNames(t *testing.T) map[string][]string {
	t.Helper()
	used := map[string][]string{}
	panels, err := metricstest.DashboardPanels(monDashboardPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range panels {
		names, err := metricstest.MetricNames(q.Expr)
		if err != nil {
			t.Fatalf("panel %q, query %s: %v", q.Panel, q.RefID, err)
		}
		for _, n := range names {
			used[n] = append(used[n], fmt.Sprintf("panel %q", q.Panel))
		}
	}
	for _, g := range monLoadRules(t).Groups {
		for _, r := range g.Rules {
			names, err := metricstest.MetricNames(r.Expr)
			if err != nil {
				t.Fatalf("rule %s%s: %v", r.Alert, r.Record, err)
			}
			for _, n := range names {
				used[n] = append(used[n], "alert "+r.Alert+r.Record)
			}
		}
	}
	if len(used) == 0 {
		t.Fatal("the dashboard and the alerts select no metric at all")
	}
	return used
}

// monExposedNames fetches a live /metrics and returns the name of every
// sample on it, as PromQL selects them (histograms as _bucket, _sum, _count).
func monExposedNames(t *testing.T, metricsURL string) map[string]bool {
	t.Helper()
	resp, err := monClient.Get(metricsURL)
	if err != nil {
		t.Fatalf("GET %s: %v", metricsURL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET %s answered %d (%v): %.300s", metricsURL, resp.StatusCode, err, body)
	}
	names := map[string]bool{}
	for _, line := range strings.Split(string(body), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if end := strings.IndexAny(line, "{ "); end > 0 {
			names[line[:end]] = true
		}
	}
	if len(names) == 0 {
		t.Fatalf("GET %s served no samples", metricsURL)
	}
	return names
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// fromClusterExporter says whether the name is one the dashboard reads from
// the cluster's own exporters (cAdvisor, kube-state-metrics) rather than
// from glimpse; the chart's tests (helm/monitoring_test.go) check those
// panels against a Prometheus that scrapes stand-ins for them.
func fromClusterExporter(name string) bool {
	return strings.HasPrefix(name, "kube_") || strings.HasPrefix(name, "container_")
}

// servedBySidecar says whether a sidecar must export the name: its own
// glimpse_sidecar_* series, and the process and Go runtime series that the
// dashboard's process panels show for every glimpse process.
func servedBySidecar(name string) bool {
	return strings.HasPrefix(name, "glimpse_sidecar_") || strings.HasPrefix(name, "process_") || strings.HasPrefix(name, "go_")
}

func TestLiveMetricsCarryEveryNameTheDashboardAndAlertsUse(t *testing.T) {
	used := monUsedNames(t)
	env := startMonitoringEnv(t)
	env.traffic(t, 1)

	orchestrator := monExposedNames(t, env.app.URL()+"/metrics")
	external := monExposedNames(t, "http://"+env.sidecarAddr+"/metrics")

	for _, name := range sortedKeys(used) {
		if fromClusterExporter(name) || strings.Contains(name, ":") {
			continue // a recording rule's name: TestDashboardPanelsAndAlertRulesWorkOnARealPrometheus evaluates those
		}
		t.Run(name+" is on the orchestrator's /metrics", func(t *testing.T) {
			if !orchestrator[name] {
				t.Errorf("%s, used by %s, is not on a running orchestrator's /metrics", name, strings.Join(slices.Compact(used[name]), ", "))
			}
		})
	}
	for _, name := range sortedKeys(used) {
		if !servedBySidecar(name) {
			continue
		}
		t.Run(name+" is on an external sidecar's /metrics", func(t *testing.T) {
			if !external[name] {
				t.Errorf("%s, used by %s, is not on a running sidecar's /metrics", name, strings.Join(slices.Compact(used[name]), ", "))
			}
		})
	}
	t.Run("an external sidecar exports no orchestrator metric that the dashboard would count twice", func(t *testing.T) {
		for _, name := range sortedKeys(external) {
			if strings.HasPrefix(name, "glimpse_") && !strings.HasPrefix(name, "glimpse_sidecar_") {
				t.Errorf("the sidecar's /metrics has %s, which belongs to the orchestrator", name)
			}
		}
	})
}

// ---------------------------------------------------------------------------
// A real Prometheus.

type promRule struct {
	Name           string    `json:"name"`
	Type           string    `json:"type"`
	State          string    `json:"state"`
	Health         string    `json:"health"`
	LastError      string    `json:"lastError"`
	LastEvaluation time.Time `json:"lastEvaluation"`
}

type promRuleGroup struct {
	Name  string     `json:"name"`
	File  string     `json:"file"`
	Rules []promRule `json:"rules"`
}

func promRules(p *metricstest.Prometheus) ([]promRuleGroup, error) {
	var data struct {
		Groups []promRuleGroup `json:"groups"`
	}
	err := p.API("/api/v1/rules", nil, &data)
	return data.Groups, err
}

// panelWant is what one panel query must show after the test's traffic.
// Instance values "$orchestrator" and "$sidecar" stand for the scraped
// addresses of the orchestrator and of the external sidecar.
type panelWant struct {
	// positive: some series is above zero, because the traffic made one.
	positive bool
	// why a zero, NaN or missing value is right here when nothing is
	// positive; required then, so that each weak check is a choice.
	why string
	// above: for each label, the values whose series must be above zero.
	above map[string][]string
	// present: for each label, the values whose series must exist, even
	// at zero.
	present map[string][]string
}

var bothInstances = []string{"$orchestrator", "$sidecar"}

// panelWants is keyed by panel title and query letter. A query missing
// from the table must still give at least one series.
var panelWants = map[string]panelWant{
	"Requests per second/A": {positive: true},
	"Availability/A":        {positive: true},
	"Cache hit ratio/A":     {positive: true},
	"Latency p95/A":         {positive: true},
	"Healthy sidecars/A":    {positive: true},
	"Pool saturation/A":     {why: "no lease is held while the query runs, so the pool is idle"},
	"Pool saturation/B":     {why: "no request waits while the query runs, so the queue is empty"},

	"Requests by code/A":            {above: map[string][]string{"code": {"OK", "EINVALURL", "EFORBIDDENURL", "ERATE", "EBUSY"}}},
	"Errors by code/A":              {above: map[string][]string{"code": {"EINVALURL", "EFORBIDDENURL", "ERATE", "EBUSY"}}},
	"Latency/A":                     {positive: true},
	"Latency/B":                     {positive: true},
	"Latency/C":                     {positive: true},
	"Latency p95 by cache status/A": {above: map[string][]string{"cache": {"HIT", "MISS", "BYPASS", "NONE"}}},
	"Cache lookups by result/A":     {above: map[string][]string{"result": {"hit", "miss", "bypass"}}},
	"Cache memory/A":                {above: map[string][]string{"instance": {"$orchestrator"}}},
	"Cache memory/B":                {above: map[string][]string{"instance": {"$orchestrator"}}},
	"Cache entries/A":               {above: map[string][]string{"instance": {"$orchestrator"}}},

	"Leases by sidecar/A": {why: "no lease is held while the query runs",
		present: map[string][]string{"sidecar": {"$embedded"}}},
	"Leases by sidecar/B": {above: map[string][]string{"sidecar": {"$embedded"}}},
	"Leases by sidecar/C": {why: "warm targets are refilled in the background and may be in flight during a scrape",
		present: map[string][]string{"sidecar": {"$embedded"}}},
	"Wait queue/A": {why: "no request waits while the query runs",
		present: map[string][]string{"instance": {"$orchestrator"}}},
	"Wait queue/B":                  {above: map[string][]string{"instance": {"$orchestrator"}}},
	"Lease wait/A":                  {positive: true},
	"Lease wait/B":                  {positive: true},
	"Lease wait/C":                  {positive: true},
	"Busy rejections and retries/A": {positive: true},
	"Busy rejections and retries/B": {why: "no sidecar dies under a request here, so nothing is retried"},
	"Sidecars by state/A": {above: map[string][]string{"state": {"healthy"}},
		present: map[string][]string{"state": {"unhealthy", "draining"}}},
	"Render phases p95/A": {above: map[string][]string{"phase": {"lease_wait", "navigate", "extract", "probe", "pdf", "upload"}}},

	"Chromium restarts and recycles/A": {why: "Chromium neither crashes nor reaches its recycle count here",
		present: map[string][]string{"instance": bothInstances}},
	"Chromium restarts and recycles/B": {why: "Chromium neither crashes nor reaches its recycle count here",
		present: map[string][]string{"instance": bothInstances}},
	"Chromium memory/A": {above: map[string][]string{"instance": bothInstances}},
	"Open pages/A": {why: "pages close when their request ends; only a warm page may be open",
		present: map[string][]string{"instance": bothInstances}},
	"Pages opened/A": {above: map[string][]string{"instance": {"$orchestrator"}},
		present: map[string][]string{"instance": {"$sidecar"}}}, // no orchestrator leases the external sidecar
	"Browser up and draining/A": {positive: true},
	"Browser up and draining/B": {why: "no sidecar is draining"},

	"PDFs generated/A":   {positive: true},
	"PDF bytes stored/A": {positive: true},
	"Storage errors/A": {why: "the local storage directory does not fail here",
		present: map[string][]string{"op": {"put", "get", "stat", "ping"}}},

	"Rate-limit refusals/A": {above: map[string][]string{"plan": {monTinyPlan}}},
	"Guard refusals/A": {above: map[string][]string{"where": {"request"}},
		present: map[string][]string{"where": {"redirect"}}},
	"Guard refusals/B": {positive: true},

	// The external sidecar runs inside the test's process, so its process and
	// Go series describe the same process as the orchestrator's; each must
	// still show up under its own instance.
	"Resident memory/A": {above: map[string][]string{"instance": bothInstances}},
	// An idle process may use less than one clock tick of CPU in the window.
	"CPU/A": {above: map[string][]string{"instance": {"$orchestrator"}},
		present: map[string][]string{"instance": {"$sidecar"}}},
	"Goroutines/A": {above: map[string][]string{"instance": bothInstances}},

	// The SLO panels read the chart's recording rules. Metadata requests
	// got EBUSY here, PDFs did not.
	"Error budget left, last 3 days/A": {above: map[string][]string{"output": {"pdf"}},
		present: map[string][]string{"output": {"metadata"}}},
	"Latency budget left, last 3 days/A": {above: map[string][]string{"output": {"pdf"}},
		present: map[string][]string{"output": {"metadata"}}},
	"glimpse processes scraped/A": {positive: true},
	"glimpse processes scraped/B": {positive: true},
	"Error budget burn rate/A": {above: map[string][]string{"output": {"metadata"}},
		present: map[string][]string{"output": {"pdf"}}},
	"Error budget burn rate/B": {above: map[string][]string{"output": {"metadata"}},
		present: map[string][]string{"output": {"pdf"}}},
	"Latency budget burn rate/A": {why: "no answer here need be slower than its output's threshold",
		present: map[string][]string{"output": {"metadata", "pdf"}}},
	"Latency budget burn rate/B": {why: "no answer here need be slower than its output's threshold",
		present: map[string][]string{"output": {"metadata", "pdf"}}},
	"Cache lookups by source/A": {positive: true,
		present: map[string][]string{"source": {"memory", "shared", "render", "joined"}}},
	"Sidecar load/A":               {why: "no page is held while the query runs"},
	"Sidecar load/B":               {why: "a sidecar whose memory has no limit may admit any number of pages (0)"},
	"Sidecar load/C":               {why: "no sidecar is full here"},
	"Chromium recycles per page/A": {why: "Chromium does not reach its recycle count here"},
	"Storage volume/A":             {positive: true},
	"Storage volume/B":             {positive: true},
	"Quota store errors/A":         {why: "no Redis here: the counter stays at zero"},
}

func (w panelWant) check(t testing.TB, expr string, got []metricstest.Sample, vars map[string]string) {
	t.Helper()
	if len(got) == 0 {
		t.Fatalf("the query gives no series: %s", expr)
	}
	t.Logf("%s gives %v", expr, got)
	positive := func(s metricstest.Sample) bool { return s.Value > 0 && !math.IsInf(s.Value, 0) && !math.IsNaN(s.Value) }
	if w.positive && !slices.ContainsFunc(got, positive) {
		t.Errorf("no series is above zero: %v", got)
	}
	find := func(label, value string) (metricstest.Sample, bool) {
		if v, ok := vars[value]; ok {
			value = v
		}
		i := slices.IndexFunc(got, func(s metricstest.Sample) bool { return s.Labels[label] == value })
		if i < 0 {
			return metricstest.Sample{}, false
		}
		return got[i], true
	}
	for label, values := range w.above {
		for _, v := range values {
			s, ok := find(label, v)
			switch {
			case !ok:
				t.Errorf("there is no series with %s=%s: %v", label, v, got)
			case !positive(s):
				t.Errorf("the series with %s=%s is %v, want above zero", label, v, s.Value)
			}
		}
	}
	for label, values := range w.present {
		for _, v := range values {
			if _, ok := find(label, v); !ok {
				t.Errorf("there is no series with %s=%s: %v", label, v, got)
			}
		}
	}
}

// monRecorder collects the failures of panelWant.check, so that the checks
// themselves can be shown to fail.
type monRecorder struct {
	testing.TB
	failures []string
}

func (r *monRecorder) Helper()             {}
func (r *monRecorder) Logf(string, ...any) {}
func (r *monRecorder) Errorf(format string, args ...any) {
	r.failures = append(r.failures, fmt.Sprintf(format, args...))
}
func (r *monRecorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	runtime.Goexit()
}

func TestPanelExpectationsRejectWhatTheTrafficShouldHaveChanged(t *testing.T) {
	vars := map[string]string{"$orchestrator": "127.0.0.1:3000"}
	sample := func(v float64, labels ...string) metricstest.Sample {
		s := metricstest.Sample{Labels: map[string]string{}, Value: v}
		for i := 0; i+1 < len(labels); i += 2 {
			s.Labels[labels[i]] = labels[i+1]
		}
		return s
	}
	cases := []struct {
		name string
		want panelWant
		got  []metricstest.Sample
		fail string // "" when the check must pass
	}{
		{"a query without any series fails", panelWant{why: "idle"}, nil, "gives no series"},
		{"NaN where a value above zero is due fails", panelWant{positive: true}, []metricstest.Sample{sample(math.NaN())}, "no series is above zero"},
		{"+Inf where a value above zero is due fails", panelWant{positive: true}, []metricstest.Sample{sample(math.Inf(1))}, "no series is above zero"},
		{"a zero series for a label value that must rise fails",
			panelWant{above: map[string][]string{"code": {"OK", "EBUSY"}}},
			[]metricstest.Sample{sample(1, "code", "OK"), sample(0, "code", "EBUSY")}, "code=EBUSY is 0"},
		{"a missing label value fails",
			panelWant{above: map[string][]string{"state": {"healthy"}}, present: map[string][]string{"state": {"draining"}}},
			[]metricstest.Sample{sample(1, "state", "healthy")}, "no series with state=draining"},
		{"an instance placeholder is filled in",
			panelWant{above: map[string][]string{"instance": {"$orchestrator"}}},
			[]metricstest.Sample{sample(3, "instance", "127.0.0.1:3000")}, ""},
		{"a zero passes where the table says why", panelWant{why: "idle"}, []metricstest.Sample{sample(0)}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := &monRecorder{TB: t}
			done := make(chan struct{})
			go func() {
				defer close(done)
				c.want.check(r, "some_query", c.got, vars)
			}()
			<-done
			joined := strings.Join(r.failures, "\n")
			switch {
			case c.fail == "" && len(r.failures) > 0:
				t.Errorf("the check failed: %s", joined)
			case c.fail != "" && !strings.Contains(joined, c.fail):
				t.Errorf("the check reported %q, want a failure saying %q", joined, c.fail)
			}
		})
	}
}

// labelValuesQuery reads a Grafana variable defined as
// label_values(metric, label).
var labelValuesQuery = regexp.MustCompile(`^\s*label_values\(\s*([A-Za-z_:][A-Za-z0-9_:]*(?:\{[^}]*\})?)\s*,\s*([A-Za-z_][A-Za-z0-9_]*)\s*\)\s*$`)

// The dashboard's variables, read here because metricstest gives only the
// panel queries with the variables already filled in.
func monDashboardVariables(t *testing.T) []struct{ Name, Type, Definition string } {
	t.Helper()
	raw, err := os.ReadFile(monDashboardPath)
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Templating struct {
			List []struct{ Name, Type, Definition string } `json:"list"`
		} `json:"templating"`
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatalf("the dashboard is not valid JSON: %v", err)
	}
	return d.Templating.List
}

// The expressions metricstest writes for the dashboard's $namespace
// variable set to "All", and for it set to one namespace.
const monAllNamespaces = `namespace=~".*"`

func monOneNamespace(ns string) string { return `namespace=~"` + ns + `"` }

func TestDashboardPanelsAndAlertRulesWorkOnARealPrometheus(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test with a real Prometheus and Chromium; skipped with -short")
	}
	panels, err := metricstest.DashboardPanels(monDashboardPath)
	if err != nil {
		t.Fatal(err)
	}
	ruleFile := monLoadRules(t)
	alertsPath, err := filepath.Abs(monAlertsPath)
	if err != nil {
		t.Fatal(err)
	}
	sloPath, sloRules := monSLORules(t)
	annotations, err := metricstest.DashboardAnnotations(monDashboardPath)
	if err != nil {
		t.Fatal(err)
	}

	env := startMonitoringEnv(t)
	orchestratorTarget := strings.TrimPrefix(env.app.URL(), "http://")
	// Both kinds of process are scraped, as the chart's ServiceMonitor does,
	// and carry the namespace label the Prometheus operator would add.
	config := fmt.Sprintf(`global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
rule_files:
  - %q
  - %q
scrape_configs:
  - job_name: glimpse-orchestrator
    static_configs:
      - targets: [%q]
        labels: {namespace: %q}
  - job_name: glimpse-sidecar
    static_configs:
      - targets: [%q]
        labels: {namespace: %q}
`, alertsPath, sloPath, orchestratorTarget, monNamespace, env.sidecarAddr, monNamespace)
	const jobs = 2
	prom := metricstest.StartPrometheus(t, config)

	// The panels keep metricstest's 5m for $__rate_interval: rate() needs
	// two samples inside its window, not a full window of them, so a few
	// scrapes a second apart are enough and the queries run exactly as the
	// dashboard's.
	//
	// Counters must be seen at their starting values before the traffic, or
	// rate() has no increase to show. Series that only appear with their
	// first event (an error code, a plan's refusals) start at 1, so the
	// second round of traffic is what gives them a rate.
	start := time.Now()
	prom.WaitScrapedAfter(t, start, jobs)
	firstScrapes := time.Now()
	prom.Scrapes(t, 1, jobs)
	env.traffic(t, 1)
	prom.Scrapes(t, 2, jobs)
	env.traffic(t, 2)
	trafficDone := time.Now()
	prom.Scrapes(t, 2, jobs)
	t.Logf("traffic and scrapes took %s", time.Since(start).Round(time.Millisecond))

	embedded := env.app.Pool.Snapshot()
	if len(embedded.Sidecars) != 1 {
		t.Fatalf("the pool lists %d sidecars, want the embedded one", len(embedded.Sidecars))
	}
	vars := map[string]string{
		"$orchestrator": orchestratorTarget,
		"$sidecar":      env.sidecarAddr,
		"$embedded":     embedded.Sidecars[0].Addr,
	}

	t.Run("every expectation names a query of the dashboard", func(t *testing.T) {
		for key, w := range panelWants {
			if !slices.ContainsFunc(panels, func(q metricstest.Query) bool { return q.Panel+"/"+q.RefID == key }) {
				t.Errorf("%s is not a panel query of the dashboard; update the table", key)
			}
			if !w.positive && len(w.above) == 0 && w.why == "" {
				t.Errorf("%s accepts a zero without saying why", key)
			}
		}
	})

	t.Run("the namespace variable offers the scraped namespace", func(t *testing.T) {
		found := false
		for _, v := range monDashboardVariables(t) {
			if v.Type != "query" || v.Name != "namespace" {
				continue
			}
			found = true
			m := labelValuesQuery.FindStringSubmatch(v.Definition)
			if m == nil {
				t.Fatalf("variable %s is defined as %q; this test reads only label_values(metric, label)", v.Name, v.Definition)
			}
			var values []string
			// The variables it is narrowed by ($cluster) are set to All.
			match := regexp.MustCompile(`"\$[A-Za-z_]+"`).ReplaceAllString(m[1], `".*"`)
			if err := prom.API("/api/v1/label/"+m[2]+"/values", url.Values{"match[]": {match}}, &values); err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(values, monNamespace) {
				t.Errorf("variable %s (%s) offers %v, want %s among them", v.Name, v.Definition, values, monNamespace)
			}
		}
		if !found {
			t.Fatal("the dashboard has no query variable; its panels cannot be narrowed to a namespace")
		}
	})

	for _, q := range panels {
		key := q.Panel + "/" + q.RefID
		if names, _ := metricstest.MetricNames(q.Expr); slices.ContainsFunc(names, fromClusterExporter) {
			continue // no cAdvisor or kube-state-metrics here; helm/monitoring_test.go runs these
		}
		t.Run(fmt.Sprintf("panel %s, query %s, shows the traffic", q.Panel, q.RefID), func(t *testing.T) {
			got, err := prom.Query(q.Expr)
			if err != nil {
				t.Fatal(err)
			}
			panelWants[key].check(t, q.Expr, got, vars)
		})
		t.Run(fmt.Sprintf("panel %s, query %s, shows only the namespace it is set to", q.Panel, q.RefID), func(t *testing.T) {
			if !strings.Contains(q.Expr, monAllNamespaces) {
				t.Fatalf("the query does not filter by the namespace variable: %s", q.Expr)
			}
			all, err := prom.Query(q.Expr)
			if err != nil {
				t.Fatal(err)
			}
			one, err := prom.Query(strings.ReplaceAll(q.Expr, monAllNamespaces, monOneNamespace(monNamespace)))
			if err != nil {
				t.Fatal(err)
			}
			if len(one) != len(all) {
				t.Errorf("set to %s the panel shows %d series, set to All %d; every series here is in %s", monNamespace, len(one), len(all), monNamespace)
			}
			other, err := prom.Query(strings.ReplaceAll(q.Expr, monAllNamespaces, monOneNamespace("another-namespace")))
			if err != nil {
				t.Fatal(err)
			}
			if len(other) != 0 {
				t.Errorf("set to a namespace without glimpse the panel still shows %v", other)
			}
		})
	}

	// Rules are evaluated every second; wait for an evaluation that saw the
	// last scrapes.
	var groups []promRuleGroup
	var rulesErr error
	monWaitFor(t, 20*time.Second, "every alert rule to be evaluated after the traffic", func() bool {
		groups, rulesErr = promRules(prom)
		if rulesErr != nil || len(groups) == 0 {
			return false
		}
		for _, g := range groups {
			for _, r := range g.Rules {
				if !r.LastEvaluation.After(trafficDone.Add(2 * time.Second)) {
					return false
				}
			}
		}
		return true
	})

	t.Run("the rule files load as the groups and rules they define", func(t *testing.T) {
		var want, got []string
		for _, f := range []monRuleFile{ruleFile, sloRules} {
			for _, g := range f.Groups {
				for _, r := range g.Rules {
					want = append(want, g.Name+"/"+r.Alert+r.Record)
				}
			}
		}
		for _, g := range groups {
			if g.File != alertsPath && g.File != sloPath {
				t.Errorf("group %s comes from %s, want %s or %s", g.Name, g.File, alertsPath, sloPath)
			}
			for _, r := range g.Rules {
				got = append(got, g.Name+"/"+r.Name)
			}
		}
		// Groups come in an order of Prometheus's choosing; the rules of
		// each keep theirs.
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("Prometheus loaded the rules %v, the files define %v", got, want)
		}
	})

	// The SLO recording rules turn the traffic into the ratios the burn-rate
	// alerts and the dashboard read: metadata requests got EBUSY (a 5xx),
	// PDFs did not, and every output has its objectives.
	for _, c := range []struct {
		query string
		want  func(float64) bool
		what  string
	}{
		{`glimpse:slo_availability_errors:ratio_rate5m{namespace="` + monNamespace + `", output="metadata"}`, func(v float64) bool { return v > 0 && v < 1 }, "between 0 and 1: some metadata requests got EBUSY"},
		{`glimpse:slo_availability_errors:ratio_rate3d{namespace="` + monNamespace + `", output="metadata"}`, func(v float64) bool { return v > 0 && v < 1 }, "between 0 and 1 over the longest window too"},
		{`glimpse:slo_availability_errors:ratio_rate5m{namespace="` + monNamespace + `", output="pdf"}`, func(v float64) bool { return v == 0 }, "0: no PDF failed"},
		{`glimpse:slo_latency_slow:ratio_rate1h{namespace="` + monNamespace + `", output="pdf"}`, func(v float64) bool { return v >= 0 && v <= 1 }, "a share: PDFs were answered"},
		{`glimpse:slo_availability:objective{output="metadata"}`, func(v float64) bool { return v == 0.995 }, "the chart's default, 0.995"},
		{`glimpse:slo_latency:objective{output="pdf"}`, func(v float64) bool { return v == 0.95 }, "the chart's default, 0.95"},
	} {
		t.Run("the recording rule "+c.query+" is "+c.what, func(t *testing.T) {
			got, err := prom.Query(c.query)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 || !c.want(got[0].Value) {
				t.Errorf("%s gives %v, want one series %s", c.query, got, c.what)
			}
		})
	}

	// Annotations are queried over the dashboard's range; a Chromium that
	// started moments before the first scrape is marked at that time.
	for _, a := range annotations {
		t.Run("the annotation "+a.Panel+" runs on Prometheus", func(t *testing.T) {
			var data struct {
				Result []json.RawMessage `json:"result"`
			}
			at := url.Values{"query": {a.Expr}, "time": {fmt.Sprintf("%.3f", float64(firstScrapes.Add(2*time.Second).UnixMilli())/1000)}}
			if err := prom.API("/api/v1/query", at, &data); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(a.Expr, "glimpse_sidecar_chromium_start_time_seconds") && len(data.Result) == 0 {
				t.Errorf("%s marks no Chromium start, though both sidecars' browsers started just before", a.Expr)
			}
		})
	}

	// The alerts a healthy service must not raise, and the one this test's
	// EBUSY answers must raise (it waits out its "for" as pending).
	wantState := map[string][]string{
		"GlimpseNoHealthySidecars":   {"inactive"},
		"GlimpseBusyRejections":      {"pending", "firing"},
		"GlimpseHighErrorRatio":      {"inactive"},
		"GlimpseChromiumRestartLoop": {"inactive"},
		"GlimpseSidecarBrowserDown":  {"inactive"},
		"GlimpseStorageErrors":       {"inactive"},
		"GlimpseOrchestratorsAbsent": {"inactive"},
		"GlimpseSidecarsAbsent":      {"inactive"},
		"GlimpseQuotaStoreErrors":    {"inactive"},
		// The EBUSY answers to metadata requests spend its budget far
		// faster than 14.4 times the rate it allows.
		"GlimpseErrorBudgetBurn": {"pending", "firing"},
	}
	for _, g := range groups {
		for _, r := range g.Rules {
			t.Run(fmt.Sprintf("rule %s of group %s evaluates with health ok", r.Name, g.Name), func(t *testing.T) {
				if r.Health != "ok" || r.LastError != "" {
					t.Errorf("health %q, last error %q", r.Health, r.LastError)
				}
			})
			if states, ok := wantState[r.Name]; ok {
				t.Run(fmt.Sprintf("alert %s is %s after the traffic", r.Name, strings.Join(states, " or ")), func(t *testing.T) {
					if !slices.Contains(states, r.State) {
						t.Errorf("alert %s is %s, want %s", r.Name, r.State, strings.Join(states, " or "))
					}
				})
			}
		}
	}
	t.Run("every expected alert state names a rule of the file", func(t *testing.T) {
		for name := range wantState {
			if !slices.ContainsFunc(groups, func(g promRuleGroup) bool {
				return slices.ContainsFunc(g.Rules, func(r promRule) bool { return r.Name == name })
			}) {
				t.Errorf("alert %s is not in %s or the SLO rules; update the table", name, monAlertsPath)
			}
		}
	})
}
