package metricstest_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/glimpse/glimpse/internal/testtool"
	"github.com/glimpse/glimpse/metrics/metricstest"
)

func TestMetricNamesFindsTheSelectedMetrics(t *testing.T) {
	cases := []struct {
		name string
		expr string
		want []string
	}{
		{"a bare metric", `glimpse_pool_queue_length`, []string{"glimpse_pool_queue_length"}},
		{"a rate with matchers and a range", `rate(glimpse_http_requests_total{code!="OK", namespace=~".*"}[5m])`, []string{"glimpse_http_requests_total"}},
		{
			"a quantile over an aggregation with a by clause before the body",
			`histogram_quantile(0.95, sum by (le, cache) (rate(glimpse_http_request_duration_seconds_bucket[5m])))`,
			[]string{"glimpse_http_request_duration_seconds_bucket"},
		},
		{
			"a ratio with a by clause after the body and a vector matching clause",
			`sum(rate(glimpse_cache_requests_total{result="hit"}[5m])) by (namespace) / on (namespace) group_left sum(rate(glimpse_cache_requests_total[5m])) by (namespace)`,
			[]string{"glimpse_cache_requests_total"},
		},
		{"set operators, bool and offset", `glimpse_sidecar_up == bool 0 and glimpse_sidecar_draining offset 1h or vector(0)`, []string{"glimpse_sidecar_draining", "glimpse_sidecar_up"}},
		{"numbers, durations and special values", `glimpse_pool_capacity > 1e3 or glimpse_pool_capacity < Inf or 0x1f > NaN`, []string{"glimpse_pool_capacity"}},
		{"strings that look like metric names", `label_replace(glimpse_pool_capacity, "glimpse_fake", "$1", "sidecar", "(glimpse_other).*")`, []string{"glimpse_pool_capacity"}},
		{"a subquery and an @ modifier", `max_over_time(glimpse_pool_queue_length[1h:5m] @ end())`, []string{"glimpse_pool_queue_length"}},
		{"a comment", "glimpse_sidecar_up # and not_a_metric\n", []string{"glimpse_sidecar_up"}},
		{"a name with a colon, as recording rules write them", `glimpse:requests:rate5m`, []string{"glimpse:requests:rate5m"}},
	}
	for _, tc := range cases {
		t.Run(tc.name+" names its metrics", func(t *testing.T) {
			got, err := metricstest.MetricNames(tc.expr)
			if err != nil {
				t.Fatalf("MetricNames(%q): %v", tc.expr, err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("MetricNames(%q) = %v, want %v", tc.expr, got, tc.want)
			}
		})
	}

	bad := []struct {
		name, expr, want string
	}{
		{"a selector by __name__", `{__name__=~"glimpse_.*"}`, "selects series by __name__"},
		{"an unclosed brace", `glimpse_sidecar_up{job="x"`, "unclosed"},
		{"an unclosed string", `glimpse_sidecar_up{job="x}`, "unclosed string"},
	}
	for _, tc := range bad {
		t.Run(tc.name+" is refused", func(t *testing.T) {
			_, err := metricstest.MetricNames(tc.expr)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("MetricNames(%q) error = %v, want one saying %q", tc.expr, err, tc.want)
			}
		})
	}
}

func TestSampleNamesExpandsHistogramsAndSummaries(t *testing.T) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(
		prometheus.NewHistogram(prometheus.HistogramOpts{Name: "h_seconds", Help: "H."}),
		prometheus.NewSummary(prometheus.SummaryOpts{Name: "s_seconds", Help: "S."}),
		prometheus.NewCounter(prometheus.CounterOpts{Name: "c_total", Help: "C."}),
		prometheus.NewGauge(prometheus.GaugeOpts{Name: "g", Help: "G."}),
	)
	got, err := metricstest.SampleNames(reg)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"c_total", "g", "h_seconds_bucket", "h_seconds_count", "h_seconds_sum", "s_seconds", "s_seconds_count", "s_seconds_sum"}
	if !slices.Equal(got, want) {
		t.Errorf("SampleNames = %v, want %v", got, want)
	}
}

func TestPopulatedShowsEveryGlimpseFamily(t *testing.T) {
	names, err := metricstest.SampleNames(metricstest.Populated())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"glimpse_ratelimit_rejections_total", // has no series until a plan is limited
		"glimpse_pool_leases_in_use",         // has no series until a sidecar is listed
		"glimpse_pool_lease_wait_seconds_bucket",
		"glimpse_sidecar_chromium_restarts_total",
		"go_gc_duration_seconds_count",
		"process_resident_memory_bytes",
	} {
		t.Run(want+" is among the sample names", func(t *testing.T) {
			if !slices.Contains(names, want) {
				t.Errorf("%s is missing from %v", want, names)
			}
		})
	}
}

const dashboardJSON = `{
  "title": "t",
  "templating": {"list": [
    {"name": "datasource", "type": "datasource", "query": "prometheus"},
    {"name": "namespace", "type": "query", "query": {"query": "label_values(glimpse_sidecar_up, namespace)", "refId": "V"}},
    {"name": "job", "type": "custom", "query": "a,b", "allValue": "glimpse-.+"},
    {"name": "step", "type": "interval", "query": "1m,5m", "current": {"value": "5m"}}
  ]},
  "panels": [
    {"title": "Requests", "targets": [
      {"refId": "A", "expr": "sum(rate(glimpse_http_requests_total{namespace=~\"$namespace\"}[$__rate_interval]))"},
      {"refId": "B", "expr": "sum(increase(glimpse_pdf_generated_total{job=~\"${job}\"}[$__range]))"}
    ]},
    {"title": "Row", "type": "row", "collapsed": true, "panels": [
      {"title": "Inside", "targets": [{"refId": "A", "expr": "avg_over_time(glimpse_sidecar_up[[[step]]]) * $__range_s"}]}
    ]},
    {"title": "Text", "type": "text"}
  ]
}`

func writeDashboard(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "dashboard.json")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestDashboardQueriesSubstitutesGrafanaVariables(t *testing.T) {
	want := []string{
		`sum(rate(glimpse_http_requests_total{namespace=~".*"}[5m]))`,
		`sum(increase(glimpse_pdf_generated_total{job=~"glimpse-.+"}[1h]))`,
		`avg_over_time(glimpse_sidecar_up[5m]) * 3600`,
	}
	t.Run("a dashboard file gives every panel query, collapsed rows included", func(t *testing.T) {
		got, err := metricstest.DashboardQueries(writeDashboard(t, dashboardJSON))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("got\n%q\nwant\n%q", got, want)
		}
	})
	t.Run("the HTTP API's envelope gives the same queries", func(t *testing.T) {
		got, err := metricstest.DashboardQueries(writeDashboard(t, `{"dashboard": `+dashboardJSON+`}`))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("got\n%q\nwant\n%q", got, want)
		}
	})
	t.Run("each query names its panel", func(t *testing.T) {
		qs, err := metricstest.DashboardPanels(writeDashboard(t, dashboardJSON))
		if err != nil {
			t.Fatal(err)
		}
		if qs[2].Panel != "Inside" || qs[1].RefID != "B" {
			t.Errorf("panels and ref ids are wrong: %+v", qs)
		}
	})
}

func TestDashboardQueriesReportsBrokenDashboards(t *testing.T) {
	cases := []struct {
		name    string
		content string
		want    string
	}{
		{"a file that is not JSON", `{"panels": [`, "is not valid JSON"},
		{"a dashboard without panels", `{"title": "empty"}`, "has no panels"},
		{"a query without an expression", `{"panels": [{"title": "P", "targets": [{"refId": "A", "expr": " "}]}]}`, `panel "P", query A has no PromQL expression`},
		{"a query with an undefined variable", `{"panels": [{"title": "P", "targets": [{"refId": "A", "expr": "glimpse_sidecar_up{pod=~\"$pod\"}"}]}]}`, "uses $pod, which the dashboard does not define"},
		{"a variable query of the wrong shape", `{"templating": {"list": [{"name": "v", "type": "query", "query": 3}]}, "panels": [{"title": "P"}]}`, "neither text nor an object"},
	}
	for _, tc := range cases {
		t.Run(tc.name+" is an error", func(t *testing.T) {
			_, err := metricstest.DashboardQueries(writeDashboard(t, tc.content))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want one saying %q", err, tc.want)
			}
		})
	}
	t.Run("a missing file is an error", func(t *testing.T) {
		if _, err := metricstest.DashboardQueries(filepath.Join(t.TempDir(), "none.json")); err == nil {
			t.Error("want an error for a missing file")
		}
	})
}

func TestPromtoolIsFoundOrNamedForInstallation(t *testing.T) {
	t.Run("with promtool on PATH its path is returned", func(t *testing.T) {
		p, err := metricstest.Promtool()
		if err != nil {
			testtool.Missing(t, err)
		}
		if filepath.Base(p) != "promtool" {
			t.Errorf("path %q does not name promtool", p)
		}
	})
	t.Run("without promtool the error names the Debian package", func(t *testing.T) {
		t.Setenv("PATH", t.TempDir())
		_, err := metricstest.Promtool()
		if err == nil || !strings.Contains(err.Error(), "prometheus package") {
			t.Errorf("error = %v, want one naming the prometheus package", err)
		}
	})
}

func TestDashboardAnnotationsGivesThePrometheusAnnotationQueries(t *testing.T) {
	const withAnnotations = `{
  "templating": {"list": [{"name": "namespace", "type": "query", "query": "label_values(glimpse_sidecar_up, namespace)"}]},
  "annotations": {"list": [
    {"builtIn": 1, "name": "Annotations & Alerts", "datasource": {"type": "grafana", "uid": "-- Grafana --"}},
    {"name": "Starts", "datasource": {"type": "prometheus", "uid": "${datasource}"},
     "expr": "time() - glimpse_sidecar_chromium_start_time_seconds{namespace=~\"$namespace\"} < 120"}
  ]},
  "panels": [{"title": "P", "targets": [{"refId": "A", "expr": "glimpse_sidecar_up"}]}]
}`
	t.Run("the built-in annotation is left out and variables are filled in", func(t *testing.T) {
		got, err := metricstest.DashboardAnnotations(writeDashboard(t, withAnnotations))
		if err != nil {
			t.Fatal(err)
		}
		want := []metricstest.Query{{Panel: "Starts", RefID: "annotation",
			Expr: `time() - glimpse_sidecar_chromium_start_time_seconds{namespace=~".*"} < 120`}}
		if !slices.Equal(got, want) {
			t.Errorf("got %+v, want %+v", got, want)
		}
	})
	for _, tc := range []struct{ name, annotation, want string }{
		{"an annotation without an expression", `{"name": "Empty", "datasource": {"type": "prometheus"}, "expr": ""}`, `annotation "Empty" has no PromQL expression`},
		{"an annotation with an undefined variable", `{"name": "Pods", "datasource": {"type": "prometheus"}, "expr": "up{pod=~\"$pod\"}"}`, "uses $pod"},
	} {
		t.Run(tc.name+" is an error", func(t *testing.T) {
			_, err := metricstest.DashboardAnnotations(writeDashboard(t, `{"annotations": {"list": [`+tc.annotation+`]}, "panels": []}`))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want one saying %q", err, tc.want)
			}
		})
	}
}
