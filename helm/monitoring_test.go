package helm_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/common/model"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/yaml"

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
		t.Fatal(err)
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

	for _, want := range []string{"GlimpseNoHealthySidecars", "GlimpseBusyRejections", "GlimpseHighErrorRatio", "GlimpseChromiumRestartLoop"} {
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

	t.Run("the alerts use only metrics glimpse exports", func(t *testing.T) {
		exported := exportedNames(t)
		for _, g := range rf.Groups {
			for _, r := range g.Rules {
				checkNames(t, r.Alert, r.Expr, exported)
			}
		}
	})
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
			rules := objectsOf[*prometheusRule](render(t, c))
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

	t.Run("every panel query is PromQL that promtool accepts", func(t *testing.T) {
		// promtool parses rule expressions; the queries become records of
		// a throwaway rules file.
		type rule struct {
			Record string `json:"record"`
			Expr   string `json:"expr"`
		}
		var rules []rule
		for i, q := range queries {
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
	t.Run("every panel query uses only metrics glimpse exports", func(t *testing.T) {
		for _, q := range queries {
			checkNames(t, "panel "+q.Panel+" query "+q.RefID, q.Expr, exported)
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
			m := labelValuesMetric.FindStringSubmatch(v.Definition)
			if m == nil {
				t.Errorf("variable %s does not read label_values of a metric: %q", v.Name, v.Definition)
				continue
			}
			if !slices.Contains(exported, m[1]) {
				t.Errorf("variable %s reads %s, which glimpse does not export", v.Name, m[1])
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
		} {
			if !used[metric] {
				t.Errorf("no panel shows %s (%s)", need, metric)
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
}

func overlaps(a, b gridPos) bool {
	return a.X < b.X+b.W && b.X < a.X+a.W && a.Y < b.Y+b.H && b.Y < a.Y+a.H
}
