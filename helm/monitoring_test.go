package helm_test

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/yaml"

	"github.com/glimpse/glimpse/internal/testtool"
	"github.com/glimpse/glimpse/metrics/metricstest"
)

var (
	alertsFile    = filepath.Join(chartDir, "files", "alerts.yaml")
	dashboardFile = filepath.Join(chartDir, "dashboards", "glimpse.json")
)

func promtool(t *testing.T) string {
	t.Helper()
	p, err := metricstest.Promtool()
	if err != nil {
		testtool.Missing(t, err)
	}
	return p
}

// exportedNames are the sample names glimpse exports, from a registry with
// every collector registered.
func exportedNames(t *testing.T) []string {
	t.Helper()
	names, err := metricstest.SampleNames(metricstest.Populated())
	if err != nil {
		t.Fatal(err)
	}
	return names
}

func readAlerts(t *testing.T) ruleFile {
	t.Helper()
	raw, err := os.ReadFile(alertsFile)
	if err != nil {
		t.Fatal(err)
	}
	var rf ruleFile
	if err := yaml.UnmarshalStrict(raw, &rf); err != nil {
		t.Fatalf("%s is not a Prometheus rules file: %v", alertsFile, err)
	}
	return rf
}

func TestAlertRules(t *testing.T) {
	t.Run("promtool check rules accepts the alerts file", func(t *testing.T) {
		out, err := exec.Command(promtool(t), "check", "rules", alertsFile).CombinedOutput()
		if err != nil {
			t.Fatalf("promtool check rules failed: %v\n%s", err, out)
		}
	})

	t.Run("each alert fires on its situation and not on its look-alike", func(t *testing.T) {
		out, err := exec.Command(promtool(t), "test", "rules", filepath.Join("testdata", "alerts_test.yaml")).CombinedOutput()
		if err != nil {
			t.Fatalf("promtool test rules failed: %v\n%s", err, out)
		}
	})

	rf := readAlerts(t)
	var alerts []string
	for _, g := range rf.Groups {
		for _, r := range g.Rules {
			alerts = append(alerts, r.Alert)
		}
	}

	for _, want := range []string{"GlimpseNoHealthySidecars", "GlimpseBusyRejections", "GlimpseHighErrorRatio", "GlimpseChromiumRestartLoop",
		"GlimpseChromiumRecycleChurn", "GlimpseContainerMemoryNearLimit", "GlimpseContainerOOMKilled",
		"GlimpseOrchestratorsAbsent", "GlimpseSidecarsAbsent", "GlimpseSidecarRefusingPages",
		"GlimpseQuotaStoreErrors", "GlimpseLocalStorageVolumeFilling"} {
		t.Run("there is an alert "+want, func(t *testing.T) {
			if !slices.Contains(alerts, want) {
				t.Errorf("no alert %s in %v", want, alerts)
			}
		})
	}

	t.Run("every alert has a severity, a summary, a description and a valid for", func(t *testing.T) {
		for _, g := range rf.Groups {
			for _, r := range g.Rules {
				if r.Alert == "" {
					t.Errorf("rule %q is not an alert; the file holds alerts only", r.Expr)
					continue
				}
				if s := r.Labels["severity"]; s != "critical" && s != "warning" {
					t.Errorf("%s has severity %q, want critical or warning", r.Alert, s)
				}
				if r.Annotations["summary"] == "" || r.Annotations["description"] == "" {
					t.Errorf("%s lacks a summary or a description", r.Alert)
				}
				if _, err := model.ParseDuration(r.For); err != nil {
					t.Errorf("%s has for %q: %v", r.Alert, r.For, err)
				}
			}
		}
	})

	t.Run("the alerts use only metrics glimpse or the cluster's exporters export", func(t *testing.T) {
		known := exportedNames(t)
		for name := range kubernetesMetrics {
			known = append(known, name)
		}
		for _, g := range rf.Groups {
			for _, r := range g.Rules {
				checkNames(t, r.Alert, r.Expr, known)
			}
		}
	})

	t.Run("every alert is tested by promtool", func(t *testing.T) {
		tests, err := os.ReadFile(filepath.Join("testdata", "alerts_test.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range alerts {
			if !strings.Contains(string(tests), "alertname: "+a+"\n") {
				t.Errorf("testdata/alerts_test.yaml does not test %s", a)
			}
		}
	})
}

// kubernetesMetrics are the series of the cluster's own exporters that the
// dashboard reads beside glimpse's, by exporter: cAdvisor (served by the
// kubelet) and kube-state-metrics. Both label a series with the namespace,
// pod and container it describes.
var kubernetesMetrics = map[string]string{
	"container_memory_working_set_bytes":               "cAdvisor",
	"kube_pod_container_resource_limits":               "kube-state-metrics",
	"kube_pod_container_status_restarts_total":         "kube-state-metrics",
	"kube_pod_container_status_last_terminated_reason": "kube-state-metrics",
}

func checkNames(t *testing.T, where, expr string, exported []string) {
	t.Helper()
	names, err := metricstest.MetricNames(expr)
	if err != nil {
		t.Errorf("%s: %v", where, err)
		return
	}
	if len(names) == 0 {
		t.Errorf("%s selects no metric: %s", where, expr)
	}
	for _, n := range names {
		if !slices.Contains(exported, n) {
			t.Errorf("%s uses %s, which glimpse does not export", where, n)
		}
	}
}

func TestPrometheusRuleEmbedsTheAlertsFile(t *testing.T) {
	want := readAlerts(t)
	for _, c := range valuesCases(t) {
		t.Run("the PrometheusRule holds the alerts file as it is "+c.name, func(t *testing.T) {
			rules := alertsRules(objectsOf[*prometheusRule](render(t, c)))
			enabled := valuesOf(t, c).lookup("metrics.prometheusRule.enabled") == true
			if len(rules) != map[bool]int{true: 1, false: 0}[enabled] {
				t.Fatalf("metrics.prometheusRule.enabled is %v but %d PrometheusRules rendered", enabled, len(rules))
			}
			if !enabled {
				return
			}
			got, _ := json.Marshal(rules[0].Spec)
			wantJSON, _ := json.Marshal(want)
			if string(got) != string(wantJSON) {
				t.Errorf("the PrometheusRule's groups differ from %s:\n got %s\nwant %s", alertsFile, got, wantJSON)
			}
		})
	}
}

func TestServiceMonitorScrapesOrchestratorAndSidecars(t *testing.T) {
	for _, c := range valuesCases(t) {
		r := render(t, c)
		monitors := objectsOf[*serviceMonitor](r)
		if valuesOf(t, c).lookup("metrics.serviceMonitor.enabled") != true {
			if len(monitors) > 0 {
				t.Errorf("%s: a ServiceMonitor rendered although it is off", c.name)
			}
			continue
		}
		t.Run("the ServiceMonitor selects the orchestrator and sidecar Services and no other "+c.name, func(t *testing.T) {
			if len(monitors) != 1 {
				t.Fatalf("%d ServiceMonitors rendered, want 1", len(monitors))
			}
			sm := monitors[0]
			sel, err := metav1.LabelSelectorAsSelector(&sm.Spec.Selector)
			if err != nil {
				t.Fatal(err)
			}
			var picked []string
			for _, svc := range objectsOf[*corev1.Service](r) {
				if !sel.Matches(labels.Set(svc.Labels)) {
					continue
				}
				picked = append(picked, svc.Labels[componentLabel])
				for _, ep := range sm.Spec.Endpoints {
					if !slices.ContainsFunc(svc.Spec.Ports, func(p corev1.ServicePort) bool { return p.Name == ep.Port }) {
						t.Errorf("Service %s has no port %q to scrape", svc.Name, ep.Port)
					}
				}
			}
			slices.Sort(picked)
			if !slices.Equal(picked, []string{"orchestrator", "sidecar"}) {
				t.Errorf("the ServiceMonitor selects the Services of %v, want orchestrator and sidecar", picked)
			}
			if !slices.Equal(sm.Spec.NamespaceSelector.MatchNames, []string{namespace}) {
				t.Errorf("the ServiceMonitor looks in %v, want the release namespace", sm.Spec.NamespaceSelector.MatchNames)
			}
			for _, ep := range sm.Spec.Endpoints {
				if ep.Path != "/metrics" {
					t.Errorf("the ServiceMonitor scrapes %q, want /metrics", ep.Path)
				}
				interval, err1 := model.ParseDuration(ep.Interval)
				timeout, err2 := model.ParseDuration(ep.ScrapeTimeout)
				if err1 != nil || err2 != nil || timeout > interval {
					t.Errorf("scrape interval %q and time-out %q are not durations with the time-out within the interval", ep.Interval, ep.ScrapeTimeout)
				}
			}
		})
	}
}

var labelValuesMetric = regexp.MustCompile(`label_values\(\s*([a-zA-Z_:][a-zA-Z0-9_:]*)`)

func TestDashboard(t *testing.T) {
	queries, err := metricstest.DashboardPanels(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	if len(queries) == 0 {
		t.Fatal("the dashboard has no queries")
	}

	t.Run("every panel and annotation query is PromQL that promtool accepts", func(t *testing.T) {
		// promtool parses rule expressions; the queries become records of
		// a throwaway rules file.
		type rule struct {
			Record string `json:"record"`
			Expr   string `json:"expr"`
		}
		var rules []rule
		annotations, err := metricstest.DashboardAnnotations(dashboardFile)
		if err != nil {
			t.Fatal(err)
		}
		for i, q := range append(slices.Clone(queries), annotations...) {
			rules = append(rules, rule{Record: "glimpse_dashboard:query" + string(rune('a'+i/26)) + string(rune('a'+i%26)), Expr: q.Expr})
		}
		file := map[string]any{"groups": []any{map[string]any{"name": "dashboard", "rules": rules}}}
		raw, err := yaml.Marshal(file)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "dashboard-rules.yaml")
		if err := os.WriteFile(path, raw, 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(promtool(t), "check", "rules", path).CombinedOutput()
		if err != nil {
			t.Fatalf("promtool rejects a dashboard query: %v\n%s", err, out)
		}
	})

	exported := exportedNames(t)
	records := sloRecords(t)
	t.Run("every panel query uses only metrics glimpse or the cluster's exporters export, or the chart's recording rules", func(t *testing.T) {
		known := slices.Clone(exported)
		for name := range kubernetesMetrics {
			known = append(known, name)
		}
		for name := range records {
			known = append(known, name)
		}
		for _, q := range queries {
			checkNames(t, "panel "+q.Panel+" query "+q.RefID, q.Expr, known)
		}
	})

	annotations, err := metricstest.DashboardAnnotations(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("annotations mark orchestrator starts and Chromium starts, from metrics glimpse exports", func(t *testing.T) {
		marks := map[string]bool{}
		for _, a := range annotations {
			checkNames(t, "annotation "+a.Panel, a.Expr, exported)
			names, _ := metricstest.MetricNames(a.Expr)
			for _, n := range names {
				marks[n] = true
			}
			for _, sel := range selectorPattern.FindAllString(a.Expr, -1) {
				for _, f := range []string{`cluster=~".*"`, `namespace=~".*"`, `pod=~".*"`} {
					if !strings.Contains(sel, f) {
						t.Errorf("annotation %q: the selector %s lacks %s", a.Panel, sel, f)
					}
				}
			}
		}
		for need, metric := range map[string]string{
			"orchestrator starts (deploys)":                        "process_start_time_seconds",
			"Chromium starts (sidecar starts, restarts, recycles)": "glimpse_sidecar_chromium_start_time_seconds",
		} {
			if !marks[metric] {
				t.Errorf("no annotation marks %s (%s)", need, metric)
			}
		}
	})

	raw, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		UID        string `json:"uid"`
		Title      string `json:"title"`
		Templating struct {
			List []struct {
				Name       string `json:"name"`
				Type       string `json:"type"`
				Definition string `json:"definition"`
				IncludeAll bool   `json:"includeAll"`
				Multi      bool   `json:"multi"`
				AllValue   string `json:"allValue"`
			} `json:"list"`
		} `json:"templating"`
		Panels []dashboardPanel `json:"panels"`
	}
	if err := json.Unmarshal(raw, &dash); err != nil {
		t.Fatal(err)
	}

	t.Run("template variables use only metrics glimpse exports", func(t *testing.T) {
		for _, v := range dash.Templating.List {
			if v.Type != "query" {
				continue
			}
			names := labelValuesMetrics(v.Definition)
			if len(names) == 0 {
				t.Errorf("variable %s does not read label_values of a metric: %q", v.Name, v.Definition)
				continue
			}
			for _, n := range names {
				if !slices.Contains(exported, n) {
					t.Errorf("variable %s reads %s, which glimpse does not export", v.Name, n)
				}
			}
		}
	})

	t.Run("cluster, namespace and pod variables narrow one another and offer All", func(t *testing.T) {
		defs := map[string]string{}
		for _, v := range dash.Templating.List {
			if v.Type != "query" {
				continue
			}
			defs[v.Name] = v.Definition
			if !v.IncludeAll || !v.Multi || v.AllValue != ".*" {
				t.Errorf("variable %s needs includeAll, multi and the All value .* (which matches a series without the label, as in a single cluster)", v.Name)
			}
		}
		for name, uses := range map[string][]string{
			"cluster":   nil,
			"namespace": {"$cluster"},
			"pod":       {"$cluster", "$namespace"},
		} {
			def, ok := defs[name]
			if !ok {
				t.Errorf("the dashboard has no %s variable", name)
				continue
			}
			for _, u := range uses {
				if !strings.Contains(def, u) {
					t.Errorf("variable %s (%s) is not narrowed by %s", name, def, u)
				}
			}
		}
		if def := defs["pod"]; !strings.Contains(def, "glimpse_http_requests_total") || !strings.Contains(def, "glimpse_sidecar_up") {
			t.Errorf("the pod variable (%s) must offer both orchestrator and sidecar pods", def)
		}
	})

	// The SLO's recorded ratios are per cluster, namespace and output, so
	// they are narrowed by cluster and namespace only; the objectives are
	// constants, one per output, joined to them.
	t.Run("every selector of every panel query filters on the cluster, namespace and pod variables, or the labels its recording rule keeps", func(t *testing.T) {
		for _, p := range allPanels(dash.Panels) {
			for _, q := range p.Targets {
				sels := namedSelectorPattern.FindAllStringSubmatch(q.Expr, -1)
				if len(sels) == 0 {
					t.Errorf("panel %q query %s has no selector: %s", p.Title, q.RefID, q.Expr)
				}
				for _, m := range sels {
					sel, name := m[0], m[1]
					filters := []string{`cluster=~"$cluster"`, `namespace=~"$namespace"`, `pod=~"$pod"`}
					if expr, ok := records[name]; ok {
						filters = filters[:2]
						if strings.HasPrefix(expr, "vector(") {
							filters = nil
						}
					}
					for _, f := range filters {
						if !strings.Contains(sel, f) {
							t.Errorf("panel %q query %s: the selector %s lacks %s", p.Title, q.RefID, sel, f)
						}
					}
				}
			}
		}
	})

	t.Run("legends name pods, not instance addresses", func(t *testing.T) {
		for _, p := range allPanels(dash.Panels) {
			for _, q := range p.Targets {
				if strings.Contains(q.LegendFormat, "{{instance}}") {
					t.Errorf("panel %q query %s has the legend %q; use {{pod}}", p.Title, q.RefID, q.LegendFormat)
				}
			}
		}
	})

	t.Run("the dashboard shows what an operator needs", func(t *testing.T) {
		used := map[string]bool{}
		for _, q := range queries {
			names, _ := metricstest.MetricNames(q.Expr)
			for _, n := range names {
				used[n] = true
			}
		}
		for need, metric := range map[string]string{
			"request rate and errors by code":     "glimpse_http_requests_total",
			"latency percentiles":                 "glimpse_http_request_duration_seconds_bucket",
			"cache hit ratio":                     "glimpse_cache_requests_total",
			"leases in use":                       "glimpse_pool_leases_in_use",
			"pool capacity":                       "glimpse_pool_capacity",
			"the wait queue":                      "glimpse_pool_queue_length",
			"lease wait":                          "glimpse_pool_lease_wait_seconds_bucket",
			"Chromium restarts":                   "glimpse_sidecar_chromium_restarts_total",
			"Chromium memory per sidecar":         "glimpse_sidecar_chromium_memory_bytes",
			"PDF throughput":                      "glimpse_pdf_generated_total",
			"rate-limit refusals":                 "glimpse_ratelimit_rejections_total",
			"guard refusals":                      "glimpse_guard_refusals_total",
			"the sidecars' egress guard refusals": "glimpse_sidecar_guard_refusals_total",
			"requests the ad-block list refused":  "glimpse_sidecar_adblock_blocked_total",
			"each sidecar's own load":             "glimpse_sidecar_admitted_pages",
			"each sidecar's page limit":           "glimpse_sidecar_max_pages",
			"pages sidecars refused":              "glimpse_sidecar_pages_refused_total",
			"recycles per page":                   "glimpse_sidecar_pages_created_total",
			"the storage volume's free space":     "glimpse_storage_local_volume_free_bytes",
			"Redis quota errors":                  "glimpse_quota_backend_errors_total",
			"the error budget's burn":             "glimpse:slo_availability_errors:ratio_rate1h",
			"the error budget left":               "glimpse:slo_availability_errors:ratio_rate3d",
			"the latency budget's burn":           "glimpse:slo_latency_slow:ratio_rate1h",
			"the latency budget left":             "glimpse:slo_latency_slow:ratio_rate3d",
			"the availability objectives":         "glimpse:slo_availability:objective",
			"the latency objectives":              "glimpse:slo_latency:objective",
		} {
			if !used[metric] {
				t.Errorf("no panel shows %s (%s)", need, metric)
			}
		}
		for name, exporter := range kubernetesMetrics {
			if !used[name] {
				t.Errorf("no panel shows %s (%s)", name, exporter)
			}
		}
		for need, pattern := range map[string]*regexp.Regexp{
			"request rate by output":             regexp.MustCompile(`sum by \(output\) \(rate\(glimpse_http_requests_total\{`),
			"p95 latency by output":              regexp.MustCompile(`histogram_quantile\(0\.95, sum by \(le, output\) \(rate\(glimpse_http_request_duration_seconds_bucket\{`),
			"server errors by output":            regexp.MustCompile(`sum by \(output\) \(rate\(glimpse_http_requests_total\{[^}]*status="5xx"`),
			"cache lookups by result and source": regexp.MustCompile(`sum by \(result, source\) \(rate\(glimpse_cache_requests_total\{`),
			"orchestrators and sidecars scraped": regexp.MustCompile(`count\(glimpse_sidecar_up\{`),
		} {
			if !slices.ContainsFunc(queries, func(q metricstest.Query) bool { return pattern.MatchString(q.Expr) }) {
				t.Errorf("no panel shows the %s", need)
			}
		}
		for _, q := range []string{"0.5", "0.95", "0.99"} {
			if !slices.ContainsFunc(queries, func(x metricstest.Query) bool {
				return strings.Contains(x.Expr, "histogram_quantile("+q+",") && strings.Contains(x.Expr, "glimpse_http_request_duration_seconds_bucket")
			}) {
				t.Errorf("no panel shows the %s quantile of request latency", q)
			}
		}
	})

	t.Run("a stat shows availability from server errors only, since 4xx are the callers' mistakes", func(t *testing.T) {
		found := false
		for _, p := range allPanels(dash.Panels) {
			if p.Type != "stat" || !strings.Contains(strings.ToLower(p.Title), "availability") {
				continue
			}
			found = true
			for _, q := range p.Targets {
				if !strings.Contains(q.Expr, `status="5xx"`) || strings.Contains(q.Expr, "code!=") || strings.Contains(q.Expr, "4xx") {
					t.Errorf("panel %q counts more than 5xx answers as failures: %s", p.Title, q.Expr)
				}
			}
		}
		if !found {
			t.Error("no stat panel shows availability")
		}
	})

	t.Run("panels have unique ids, titles, the data source variable and do not overlap", func(t *testing.T) {
		if dash.UID == "" || dash.Title == "" {
			t.Error("the dashboard needs a uid and a title, or Grafana makes up a new one on each load")
		}
		ids := map[int]bool{}
		var boxes []dashboardPanel
		for _, p := range dash.Panels {
			if ids[p.ID] {
				t.Errorf("panel id %d is used twice", p.ID)
			}
			ids[p.ID] = true
			if p.Title == "" {
				t.Errorf("panel %d has no title", p.ID)
			}
			if p.Type == "row" {
				continue
			}
			if p.Datasource.UID != "${datasource}" {
				t.Errorf("panel %q does not use the datasource variable", p.Title)
			}
			for _, b := range boxes {
				if overlaps(p.GridPos, b.GridPos) {
					t.Errorf("panels %q and %q overlap", p.Title, b.Title)
				}
			}
			boxes = append(boxes, p)
		}
	})
}

type gridPos struct{ H, W, X, Y int }

type dashboardPanel struct {
	ID         int     `json:"id"`
	Type       string  `json:"type"`
	Title      string  `json:"title"`
	GridPos    gridPos `json:"gridPos"`
	Datasource struct {
		UID string `json:"uid"`
	} `json:"datasource"`
	Targets []struct {
		RefID        string `json:"refId"`
		Expr         string `json:"expr"`
		LegendFormat string `json:"legendFormat"`
	} `json:"targets"`
	Panels []dashboardPanel `json:"panels"` // a collapsed row keeps its panels here
}

// allPanels lists the panels with those of collapsed rows.
func allPanels(ps []dashboardPanel) []dashboardPanel {
	var out []dashboardPanel
	for _, p := range ps {
		out = append(out, p)
		out = append(out, allPanels(p.Panels)...)
	}
	return out
}

// selectorPattern finds the label matchers of a PromQL expression; the
// dashboard's matchers hold no braces inside their strings.
var selectorPattern = regexp.MustCompile(`\{[^{}]*\}`)

// namedSelectorPattern finds the selectors of a PromQL expression with the
// metric name before each, which is empty for {__name__=...} and for
// grouping clauses; a bare metric name without braces is not matched. An
// objective of the SLO rules is selected by its bare name.
var namedSelectorPattern = regexp.MustCompile(`([a-zA-Z_:][a-zA-Z0-9_:]*)?\{[^{}]*\}`)

// sloRecords maps each recording rule of the chart's SLO rules, with the
// default values, to its expression.
func sloRecords(t *testing.T) map[string]string {
	t.Helper()
	raw := renderSLORules(t)
	if raw == nil {
		t.Fatal("no SLO rules are rendered with prometheusRule.enabled")
	}
	var rf ruleFile
	if err := yaml.UnmarshalStrict(raw, &rf); err != nil {
		t.Fatal(err)
	}
	records := map[string]string{}
	for _, g := range rf.Groups {
		for _, r := range g.Rules {
			if r.Record != "" {
				records[r.Record] = r.Expr
			}
		}
	}
	return records
}

// labelValuesMetrics returns the metrics a Grafana variable defined as
// label_values(metric, label), label_values(metric{…}, label) or
// label_values({__name__=~"a|b", …}, label) reads, or nil for another
// definition.
func labelValuesMetrics(def string) []string {
	if m := labelValuesByName.FindStringSubmatch(def); m != nil {
		return strings.Split(m[1], "|")
	}
	if m := labelValuesMetric.FindStringSubmatch(def); m != nil {
		return []string{m[1]}
	}
	return nil
}

var labelValuesByName = regexp.MustCompile(`label_values\(\s*\{\s*__name__=~"([a-zA-Z0-9_:|]+)"`)

func overlaps(a, b gridPos) bool {
	return a.X < b.X+b.W && b.X < a.X+a.W && a.Y < b.Y+b.H && b.Y < a.Y+a.H
}

// containerMatcher finds container="x" and container=~"x|y" in a query.
var containerMatcher = regexp.MustCompile(`container(=~?)"([^"]*)"`)

func TestDashboardFiltersOnTheChartsContainerNames(t *testing.T) {
	r := render(t, valuesCase{name: "with the default values"})
	containers := map[string]bool{}
	for _, component := range []string{"orchestrator", "sidecar"} {
		for _, c := range workloadOf(t, r, component).template.Spec.Containers {
			containers[c.Name] = true
		}
	}
	queries, err := metricstest.DashboardPanels(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	check := func(where, expr string) {
		for _, m := range containerMatcher.FindAllStringSubmatch(expr, -1) {
			seen++
			for _, name := range strings.Split(m[2], "|") {
				if !containers[name] {
					t.Errorf("%s selects container %q, which the chart's orchestrator and sidecar pods do not run (they run %v)",
						where, name, sortedNames(containers))
				}
			}
		}
	}
	for _, q := range queries {
		check(fmt.Sprintf("panel %q query %s", q.Panel, q.RefID), q.Expr)
	}
	for _, g := range readAlerts(t).Groups {
		for _, r := range g.Rules {
			check("alert "+r.Alert, r.Expr)
		}
	}
	if seen == 0 {
		t.Error("no panel selects a container; the Kubernetes panels would mix in every container of the pods")
	}
}

func sortedNames(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

const runbookFile = "glimpse/docs/runbook.md"

// runbookAnchors are the anchors GitHub gives the headings of a Markdown
// file: lower case, punctuation other than - and _ dropped, spaces as -.
func runbookAnchors(t *testing.T) map[string]bool {
	t.Helper()
	raw, err := os.ReadFile(runbookFile)
	if err != nil {
		t.Fatalf("the runbook is missing: %v", err)
	}
	anchors := map[string]bool{}
	inFence := false
	for _, line := range strings.Split(string(raw), "\n") {
		if strings.HasPrefix(line, "```") {
			inFence = !inFence
		}
		if inFence || !strings.HasPrefix(line, "#") {
			continue
		}
		heading := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(heading) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		anchors[b.String()] = true
	}
	return anchors
}

func TestEveryAlertLinksToItsRunbookSection(t *testing.T) {
	anchors := runbookAnchors(t)
	base, _ := valuesOf(t, valuesCase{}).lookup("metrics.prometheusRule.runbookBaseURL").(string)
	if base == "" {
		t.Fatal("values.yaml has no metrics.prometheusRule.runbookBaseURL")
	}
	t.Run("the default runbook address names the runbook of the chart", func(t *testing.T) {
		if !strings.HasSuffix(base, "/helm/"+runbookFile) {
			t.Errorf("metrics.prometheusRule.runbookBaseURL is %s, want the address of helm/%s", base, runbookFile)
		}
	})
	linked := map[string]bool{}
	for _, g := range readAlerts(t).Groups {
		for _, r := range g.Rules {
			t.Run(r.Alert+" links to its own section of the runbook", func(t *testing.T) {
				u := r.Annotations["runbook_url"]
				page, anchor, ok := strings.Cut(u, "#")
				if !ok || page != base {
					t.Fatalf("runbook_url is %q, want %s#<anchor>, the chart's runbookBaseURL", u, base)
				}
				if anchor != strings.ToLower(r.Alert) {
					t.Errorf("runbook_url points at #%s, want #%s, the alert's own section", anchor, strings.ToLower(r.Alert))
				}
				if !anchors[anchor] {
					t.Errorf("runbook_url points at #%s, which is no heading of %s", anchor, runbookFile)
				}
				linked[anchor] = true
			})
		}
	}
	// The SLO alerts are rendered from the chart's template and link to
	// the same runbook; TestSLORules checks their links.
	if rules := renderSLORules(t); rules != nil {
		var rf ruleFile
		if err := yaml.UnmarshalStrict(rules, &rf); err != nil {
			t.Fatal(err)
		}
		for _, g := range rf.Groups {
			for _, r := range g.Rules {
				if r.Alert != "" {
					linked[strings.ToLower(r.Alert)] = true
				}
			}
		}
	}
	t.Run("every alert section of the runbook belongs to an alert", func(t *testing.T) {
		for a := range anchors {
			if strings.HasPrefix(a, "glimpse") && a != "glimpse-runbook" && !linked[a] {
				t.Errorf("the runbook has a section #%s, but no alert links to it", a)
			}
		}
	})
}

func TestPrometheusRulePointsAtTheConfiguredRunbook(t *testing.T) {
	const base = "https://wiki.example.com/ops/glimpse"
	out, err := helmTemplate(t, "--set", "metrics.prometheusRule.enabled=true", "--set", "metrics.prometheusRule.runbookBaseURL="+base+"/")
	if err != nil {
		t.Fatal(err)
	}
	objs, err := decodeAll(out)
	if err != nil {
		t.Fatal(err)
	}
	rules := alertsRules(objectsOf[*prometheusRule](rendering{objects: objs}))
	if len(rules) != 1 {
		t.Fatalf("%d PrometheusRules of files/alerts.yaml rendered, want 1", len(rules))
	}
	want := readAlerts(t)
	n := 0
	for gi, g := range rules[0].Spec.Groups {
		for ri, r := range g.Rules {
			n++
			orig := want.Groups[gi].Rules[ri]
			t.Run(r.Alert+" points into the configured runbook and is otherwise the alerts file's", func(t *testing.T) {
				if got, wantURL := r.Annotations["runbook_url"], base+"#"+strings.ToLower(r.Alert); got != wantURL {
					t.Errorf("runbook_url is %q, want %q", got, wantURL)
				}
				r.Annotations["runbook_url"] = orig.Annotations["runbook_url"]
				got, _ := json.Marshal(r)
				wantJSON, _ := json.Marshal(orig)
				if string(got) != string(wantJSON) {
					t.Errorf("the rule differs from the alerts file beyond its runbook_url:\n got %s\nwant %s", got, wantJSON)
				}
			})
		}
	}
	if n == 0 {
		t.Fatal("the PrometheusRule holds no rules")
	}
	t.Run("an address that is not http(s) is refused by the schema", func(t *testing.T) {
		if _, err := helmTemplate(t, "--set", "metrics.prometheusRule.enabled=true", "--set", "metrics.prometheusRule.runbookBaseURL=wiki/glimpse"); err == nil {
			t.Error("helm template accepted runbookBaseURL=wiki/glimpse")
		}
	})
}

// ---------------------------------------------------------------------------
// The dashboard on a real Prometheus.

// The pods the test's targets stand for, as the Prometheus operator and the
// cluster's exporters label their series.
const (
	liveCluster      = "test-cluster"
	liveOrchestrator = "gl-glimpse-orchestrator-6c9d7-x2x4k"
	liveSidecar      = "gl-glimpse-sidecar-7f8b9-q7w2m"
)

// scaledExposition serves the glimpse series of metricstest.Populated whose
// names keep says, with every glimpse counter and histogram multiplied by
// the number of scrapes so far: each scrape sees them rise, so rate() and
// histogram_quantile() have something to show.
func scaledExposition(t *testing.T, keep func(name string) bool) http.Handler {
	var scrapes atomic.Int64
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := float64(scrapes.Add(1))
		families, err := metricstest.Populated().Gather()
		if err != nil {
			t.Errorf("gathering the populated registry: %v", err)
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		format := expfmt.NewFormat(expfmt.TypeTextPlain)
		w.Header().Set("Content-Type", string(format))
		enc := expfmt.NewEncoder(w, format)
		for _, f := range families {
			if !keep(f.GetName()) {
				continue
			}
			if strings.HasPrefix(f.GetName(), "glimpse_") {
				for _, m := range f.GetMetric() {
					if c := m.GetCounter(); c != nil {
						v := c.GetValue() * n
						c.Value = &v
					}
					if h := m.GetHistogram(); h != nil {
						count, sum := h.GetSampleCount()*uint64(n), h.GetSampleSum()*n
						h.SampleCount, h.SampleSum = &count, &sum
						for _, b := range h.GetBucket() {
							c := b.GetCumulativeCount() * uint64(n)
							b.CumulativeCount = &c
						}
					}
				}
			}
			if err := enc.Encode(f); err != nil {
				return
			}
		}
	})
}

// kubernetesExposition serves what cAdvisor and kube-state-metrics say
// about the test's two pods: the sidecar near its memory limit and
// restarting after out-of-memory kills, the orchestrator calm. The pod
// cgroup's own series (container="") and the CPU limit are there to be
// left out by the dashboard's matchers.
func kubernetesExposition() http.Handler {
	var scrapes atomic.Int64
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := scrapes.Add(1)
		lbl := func(pod, container string, extra ...string) string {
			s := fmt.Sprintf(`cluster=%q,namespace=%q,pod=%q,container=%q`, liveCluster, namespace, pod, container)
			for i := 0; i+1 < len(extra); i += 2 {
				s += fmt.Sprintf(`,%s=%q`, extra[i], extra[i+1])
			}
			return "{" + s + "}"
		}
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		fmt.Fprintf(w, "# TYPE container_memory_working_set_bytes gauge\n")
		fmt.Fprintf(w, "container_memory_working_set_bytes%s %d\n", lbl(liveSidecar, "sidecar"), 2900<<20)
		fmt.Fprintf(w, "container_memory_working_set_bytes%s %d\n", lbl(liveSidecar, ""), 2950<<20)
		fmt.Fprintf(w, "container_memory_working_set_bytes%s %d\n", lbl(liveOrchestrator, "orchestrator"), 300<<20)
		fmt.Fprintf(w, "# TYPE kube_pod_container_resource_limits gauge\n")
		fmt.Fprintf(w, "kube_pod_container_resource_limits%s %d\n", lbl(liveSidecar, "sidecar", "resource", "memory", "unit", "byte"), 3<<30)
		fmt.Fprintf(w, "kube_pod_container_resource_limits%s 2\n", lbl(liveSidecar, "sidecar", "resource", "cpu", "unit", "core"))
		fmt.Fprintf(w, "kube_pod_container_resource_limits%s %d\n", lbl(liveOrchestrator, "orchestrator", "resource", "memory", "unit", "byte"), 1<<30)
		fmt.Fprintf(w, "# TYPE kube_pod_container_status_restarts_total counter\n")
		fmt.Fprintf(w, "kube_pod_container_status_restarts_total%s %d\n", lbl(liveSidecar, "sidecar"), n)
		fmt.Fprintf(w, "kube_pod_container_status_restarts_total%s 0\n", lbl(liveOrchestrator, "orchestrator"))
		fmt.Fprintf(w, "# TYPE kube_pod_container_status_last_terminated_reason gauge\n")
		fmt.Fprintf(w, "kube_pod_container_status_last_terminated_reason%s 1\n", lbl(liveSidecar, "sidecar", "reason", "OOMKilled"))
	})
}

func serveOnLoopback(t *testing.T, h http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
}

func positive(v float64) bool { return v > 0 && !math.IsInf(v, 0) && !math.IsNaN(v) }

// TestDashboardPanelsShowDataOnARealPrometheus scrapes glimpse series from
// an orchestrator and a sidecar target, and the cluster's exporters from a
// third, the way a cluster's Prometheus does, and runs every panel query
// of the dashboard against them.
func TestDashboardPanelsShowDataOnARealPrometheus(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real Prometheus; skipped with -short")
	}
	queries, err := metricstest.DashboardPanels(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	sidecarOwn := func(name string) bool { return strings.HasPrefix(name, "glimpse_sidecar_") }
	runtime := func(name string) bool { return strings.HasPrefix(name, "process_") || strings.HasPrefix(name, "go_") }
	orchestrator := serveOnLoopback(t, scaledExposition(t, func(name string) bool { return !sidecarOwn(name) }))
	sidecar := serveOnLoopback(t, scaledExposition(t, func(name string) bool { return sidecarOwn(name) || runtime(name) }))
	kube := serveOnLoopback(t, kubernetesExposition())
	alerts, err := filepath.Abs(alertsFile)
	if err != nil {
		t.Fatal(err)
	}
	// The SLO panels read the chart's recording rules, so Prometheus
	// evaluates them as the PrometheusRule would have it do.
	slo := filepath.Join(t.TempDir(), "slo.yaml")
	if err := os.WriteFile(slo, renderSLORules(t), 0o600); err != nil {
		t.Fatal(err)
	}
	records := sloRecords(t)
	readsRecords := func(expr string) bool {
		names, _ := metricstest.MetricNames(expr)
		return slices.ContainsFunc(names, func(n string) bool { _, ok := records[n]; return ok })
	}
	// The glimpse targets carry the labels the Prometheus operator gives a
	// ServiceMonitor's targets; the exporters' series carry their own
	// (honor_labels, as kube-state-metrics is scraped).
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
        labels: {cluster: %q, namespace: %q, pod: %q, container: orchestrator}
  - job_name: glimpse-sidecar
    static_configs:
      - targets: [%q]
        labels: {cluster: %q, namespace: %q, pod: %q, container: sidecar}
  - job_name: kubernetes
    honor_labels: true
    static_configs:
      - targets: [%q]
`, alerts, slo, orchestrator, liveCluster, namespace, liveOrchestrator, sidecar, liveCluster, namespace, liveSidecar, kube)
	const targets = 3
	prom := metricstest.StartPrometheus(t, config)
	// rate() needs two samples in its window; a few more make it steady.
	prom.Scrapes(t, 4, targets)
	// The recording rules are evaluated every second; the panels on them
	// need a ratio and an objective recorded after the scrapes.
	monWaitRecorded(t, prom, "glimpse:slo_availability_errors:ratio_rate3d", "glimpse:slo_availability:objective")

	for _, q := range queries {
		t.Run(fmt.Sprintf("panel %s, query %s, shows data", q.Panel, q.RefID), func(t *testing.T) {
			got, err := prom.Query(q.Expr)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) == 0 {
				t.Fatalf("the query gives no series: %s", q.Expr)
			}
		})
	}

	// Each filter set to the test's pods keeps the data; set to values
	// without glimpse it empties every panel.
	narrowed := func(expr, label, value string) string {
		return strings.ReplaceAll(expr, label+`=~".*"`, label+`=~"`+value+`"`)
	}
	for _, f := range []struct{ label, value string }{
		{"cluster", "another-cluster"},
		{"namespace", "another-namespace"},
		{"pod", "another-pod"},
	} {
		t.Run(fmt.Sprintf("every panel is empty with %s set to %s", f.label, f.value), func(t *testing.T) {
			for _, q := range queries {
				if f.label == "pod" && readsRecords(q.Expr) {
					continue // the SLO is per namespace: its panels say that the pod variable does not narrow them
				}
				got, err := prom.Query(narrowed(q.Expr, f.label, f.value))
				if err != nil {
					t.Fatal(err)
				}
				if len(got) > 0 {
					t.Errorf("panel %s, query %s still shows %v", q.Panel, q.RefID, got)
				}
			}
		})
	}
	t.Run("every panel shows data with cluster and namespace set to the test's", func(t *testing.T) {
		for _, q := range queries {
			expr := narrowed(narrowed(q.Expr, "cluster", liveCluster), "namespace", namespace)
			if got, err := prom.Query(expr); err != nil || len(got) == 0 {
				t.Errorf("panel %s, query %s shows nothing (%v): %s", q.Panel, q.RefID, err, expr)
			}
		}
	})

	byKey := map[string]string{}
	for _, q := range queries {
		byKey[q.Panel+"/"+q.RefID] = q.Expr
	}
	value := func(t *testing.T, key string, labels ...string) (float64, bool) {
		t.Helper()
		expr, ok := byKey[key]
		if !ok {
			t.Fatalf("the dashboard has no query %s", key)
		}
		got, err := prom.Query(expr)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range got {
			match := true
			for i := 0; i+1 < len(labels); i += 2 {
				match = match && s.Labels[labels[i]] == labels[i+1]
			}
			if match {
				return s.Value, true
			}
		}
		t.Errorf("%s has no series %v: %v", key, labels, got)
		return 0, false
	}
	t.Run("requests are shown by output, PDFs apart from metadata", func(t *testing.T) {
		for _, out := range []string{"pdf", "metadata"} {
			if v, ok := value(t, "Request rate by output/A", "output", out); ok && !positive(v) {
				t.Errorf("the rate of %s requests is %v, want above zero", out, v)
			}
			if v, ok := value(t, "Latency p95 by output/A", "output", out); ok && !positive(v) {
				t.Errorf("the p95 latency of %s requests is %v, want above zero", out, v)
			}
		}
		if v, ok := value(t, "Server errors by output/A", "output", "screenshot"); ok && !positive(v) {
			t.Errorf("the server error ratio of screenshots (an EBUSY one) is %v, want above zero", v)
		}
	})
	t.Run("availability counts 5xx answers only", func(t *testing.T) {
		// metricstest.Populated answers two requests with OK, one with
		// EINVALURL (4xx) and one with EBUSY (5xx): three of four are
		// available.
		if v, ok := value(t, "Availability/A"); ok && math.Abs(v-0.75) > 1e-9 {
			t.Errorf("availability is %v, want 0.75", v)
		}
	})
	t.Run("the sidecar's memory is shown against its limit, by pod", func(t *testing.T) {
		if v, ok := value(t, "Sidecar memory against its limit/A", "pod", liveSidecar); ok && v != 2900<<20 {
			t.Errorf("the sidecar's working set is %v, want the sidecar container's %d, not the pod's", v, 2900<<20)
		}
		if v, ok := value(t, "Sidecar memory against its limit/B", "pod", liveSidecar); ok && v != 3<<30 {
			t.Errorf("the sidecar's limit is %v, want its memory limit %d", v, 3<<30)
		}
	})
	t.Run("OOMKills and restarts are shown for the sidecar and orchestrator containers", func(t *testing.T) {
		if v, ok := value(t, "OOMKills/A", "pod", liveSidecar, "container", "sidecar"); ok && !positive(v) {
			t.Errorf("the sidecar's OOMKills are %v, want above zero", v)
		}
		if v, ok := value(t, "OOMKills/A", "pod", liveOrchestrator, "container", "orchestrator"); ok && v != 0 {
			t.Errorf("the orchestrator's OOMKills are %v, want 0", v)
		}
		if v, ok := value(t, "Container restarts/A", "pod", liveSidecar, "container", "sidecar"); ok && !positive(v) {
			t.Errorf("the sidecar's restarts are %v, want above zero", v)
		}
		value(t, "Container restarts/A", "pod", liveOrchestrator, "container", "orchestrator")
	})
	// metricstest.Populated's sidecar holds 4 pages of its 5; its
	// orchestrator answered a screenshot with EBUSY and a metadata and a
	// PDF request with OK; its volume has 12 GiB free of 20.
	t.Run("each sidecar's load is the sidecar's own report", func(t *testing.T) {
		if v, ok := value(t, "Sidecar load/A", "pod", liveSidecar); ok && v != 4 {
			t.Errorf("the sidecar holds %v pages, want 4", v)
		}
		if v, ok := value(t, "Sidecar load/B", "pod", liveSidecar); ok && v != 5 {
			t.Errorf("the sidecar's limit is %v, want 5", v)
		}
	})
	t.Run("the budgets are spent by the output that failed", func(t *testing.T) {
		// Every screenshot failed: 1 / (1 - 0.99) is 100 times the budget.
		// (Outputs without a 5xx series have no ratio here; the
		// orchestrator starts one for every error code and output.)
		if v, ok := value(t, "Error budget burn rate/A", "output", "screenshot"); ok && math.Abs(v-100) > 1e-6 {
			t.Errorf("the screenshots' burn rate is %v, want 100", v)
		}
		if v, ok := value(t, "Error budget left, last 3 days/A", "output", "screenshot"); ok && math.Abs(v+99) > 1e-6 {
			t.Errorf("the screenshots' budget left is %v, want -99 (spent a hundred times over)", v)
		}
	})
	t.Run("memory is shown as a share of each container's limit", func(t *testing.T) {
		if v, ok := value(t, "Memory used of the limit/A", "pod", liveSidecar, "container", "sidecar"); ok && math.Abs(v-float64(2900<<20)/float64(3<<30)) > 1e-9 {
			t.Errorf("the sidecar uses %v of its limit, want its container's working set over its limit", v)
		}
		if v, ok := value(t, "Memory used of the limit/A", "pod", liveOrchestrator, "container", "orchestrator"); ok && math.Abs(v-float64(300<<20)/float64(1<<30)) > 1e-9 {
			t.Errorf("the orchestrator uses %v of its limit", v)
		}
	})
	t.Run("the storage volume and the cache by source", func(t *testing.T) {
		if v, ok := value(t, "Storage volume/A", "pod", liveOrchestrator); ok && v != 12<<30 {
			t.Errorf("the volume has %v bytes free, want %d", v, 12<<30)
		}
		if v, ok := value(t, "Cache lookups by source/A", "result", "stale", "source", "shared"); ok && !positive(v) {
			t.Errorf("stale answers from the shared store are %v a second, want above zero", v)
		}
		if v, ok := value(t, "Cache lookups by source/A", "result", "hit", "source", "shared"); ok && v != 0 {
			t.Errorf("hits from the shared store are %v a second, want 0: only a memory hit and a stale one happened", v)
		}
	})
	t.Run("legends can name pods: per-process panels keep the pod label", func(t *testing.T) {
		for _, key := range []string{"Cache memory/A", "Chromium memory/A", "Resident memory/A", "Goroutines/A"} {
			value(t, key, "pod", map[bool]string{true: liveSidecar, false: liveOrchestrator}[strings.HasPrefix(key, "Chromium")])
		}
		value(t, "Resident memory/A", "pod", liveSidecar)
	})

	t.Run("every alert rule evaluates with health ok", func(t *testing.T) {
		var data struct {
			Groups []struct {
				Rules []struct {
					Name      string `json:"name"`
					Health    string `json:"health"`
					LastError string `json:"lastError"`
				} `json:"rules"`
			} `json:"groups"`
		}
		deadline := time.Now().Add(10 * time.Second)
		for {
			err := prom.API("/api/v1/rules", nil, &data)
			evaluated := err == nil && len(data.Groups) > 0
			for _, g := range data.Groups {
				for _, r := range g.Rules {
					evaluated = evaluated && r.Health != "unknown"
				}
			}
			if evaluated {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the rules were not evaluated within 10 s (%v): %+v", err, data)
			}
			time.Sleep(200 * time.Millisecond)
		}
		for _, g := range data.Groups {
			for _, r := range g.Rules {
				if r.Health != "ok" {
					t.Errorf("rule %s has health %q: %s", r.Name, r.Health, r.LastError)
				}
			}
		}
	})
}

// monWaitRecorded waits until each recording rule named has a series.
func monWaitRecorded(t *testing.T, prom *metricstest.Prometheus, names ...string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for _, n := range names {
		for {
			got, err := prom.Query(n)
			if err == nil && len(got) > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the recording rule %s has no series after 20 s (%v)", n, err)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
}
