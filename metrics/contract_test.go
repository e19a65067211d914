package metrics_test

import (
	"bytes"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/glimpse/glimpse/internal/testtool"
	"github.com/glimpse/glimpse/metrics"
	"github.com/glimpse/glimpse/metrics/metricstest"
)

type contractMetric struct {
	name   string
	typ    dto.MetricType
	labels []string
}

// The contract other packages, the dashboard and the alerts rely on.
var contract = []contractMetric{
	{"glimpse_http_requests_total", dto.MetricType_COUNTER, []string{"code", "status", "output"}},
	{"glimpse_http_request_duration_seconds", dto.MetricType_HISTOGRAM, []string{"cache", "output"}},
	{"glimpse_render_phase_duration_seconds", dto.MetricType_HISTOGRAM, []string{"phase"}},
	{"glimpse_pool_lease_wait_seconds", dto.MetricType_HISTOGRAM, nil},
	{"glimpse_pool_busy_rejections_total", dto.MetricType_COUNTER, nil},
	{"glimpse_pool_retries_total", dto.MetricType_COUNTER, nil},
	{"glimpse_cdp_events_dropped_total", dto.MetricType_COUNTER, []string{"method"}},
	{"glimpse_cache_requests_total", dto.MetricType_COUNTER, []string{"result", "source"}},
	{"glimpse_ratelimit_rejections_total", dto.MetricType_COUNTER, []string{"plan"}},
	{"glimpse_pdf_generated_total", dto.MetricType_COUNTER, nil},
	{"glimpse_pdf_stored_bytes_total", dto.MetricType_COUNTER, nil},
	{"glimpse_storage_errors_total", dto.MetricType_COUNTER, []string{"op"}},
	{"glimpse_guard_refusals_total", dto.MetricType_COUNTER, []string{"where"}},
	{"glimpse_render_early_reads_total", dto.MetricType_COUNTER, []string{"reason"}},
	{"glimpse_render_consent_dismissed_total", dto.MetricType_COUNTER, []string{"manager"}},
	{"glimpse_render_bot_walls_total", dto.MetricType_COUNTER, []string{"vendor"}},
	{"glimpse_pool_sidecars", dto.MetricType_GAUGE, []string{"state"}},
	{"glimpse_pool_leases_in_use", dto.MetricType_GAUGE, []string{"sidecar"}},
	{"glimpse_pool_capacity", dto.MetricType_GAUGE, []string{"sidecar"}},
	{"glimpse_pool_warm_targets", dto.MetricType_GAUGE, []string{"sidecar"}},
	{"glimpse_pool_queue_length", dto.MetricType_GAUGE, nil},
	{"glimpse_pool_queue_capacity", dto.MetricType_GAUGE, nil},
	{"glimpse_cache_entries", dto.MetricType_GAUGE, nil},
	{"glimpse_cache_memory_bytes", dto.MetricType_GAUGE, nil},
	{"glimpse_cache_memory_limit_bytes", dto.MetricType_GAUGE, nil},
	{"glimpse_storage_local_bytes", dto.MetricType_GAUGE, nil},
	{"glimpse_storage_local_objects", dto.MetricType_GAUGE, nil},
	{"glimpse_storage_local_limit_bytes", dto.MetricType_GAUGE, nil},
	{"glimpse_storage_swept_objects_total", dto.MetricType_COUNTER, []string{"reason"}},
	{"glimpse_storage_swept_bytes_total", dto.MetricType_COUNTER, []string{"reason"}},
	{"glimpse_storage_local_volume_bytes", dto.MetricType_GAUGE, nil},
	{"glimpse_storage_local_volume_free_bytes", dto.MetricType_GAUGE, nil},
	{"glimpse_quota_backend_errors_total", dto.MetricType_COUNTER, nil},
	{"glimpse_sidecar_up", dto.MetricType_GAUGE, nil},
	{"glimpse_sidecar_draining", dto.MetricType_GAUGE, nil},
	{"glimpse_sidecar_open_pages", dto.MetricType_GAUGE, nil},
	{"glimpse_sidecar_pages_created_total", dto.MetricType_COUNTER, nil},
	{"glimpse_sidecar_chromium_restarts_total", dto.MetricType_COUNTER, nil},
	{"glimpse_sidecar_chromium_recycles_total", dto.MetricType_COUNTER, nil},
	{"glimpse_sidecar_chromium_memory_bytes", dto.MetricType_GAUGE, nil},
	{"glimpse_sidecar_guard_refusals_total", dto.MetricType_COUNTER, nil},
	{"glimpse_sidecar_adblock_blocked_total", dto.MetricType_COUNTER, nil},
	{"glimpse_sidecar_auth_refusals_total", dto.MetricType_COUNTER, nil},
	{"glimpse_sidecar_cdp_refusals_total", dto.MetricType_COUNTER, []string{"reason"}},
	{"glimpse_sidecar_max_pages", dto.MetricType_GAUGE, nil},
	{"glimpse_sidecar_admitted_pages", dto.MetricType_GAUGE, nil},
	{"glimpse_sidecar_pages_refused_total", dto.MetricType_COUNTER, nil},
	{"glimpse_sidecar_background_refusals_total", dto.MetricType_COUNTER, nil},
	{"glimpse_sidecar_chromium_start_time_seconds", dto.MetricType_GAUGE, nil},
}

func gatherPopulated(t *testing.T) map[string]*dto.MetricFamily {
	t.Helper()
	families, err := metricstest.Populated().Gather()
	if err != nil {
		t.Fatalf("gathering a registry with every collector failed: %v", err)
	}
	byName := map[string]*dto.MetricFamily{}
	for _, f := range families {
		byName[f.GetName()] = f
	}
	return byName
}

func labelNames(f *dto.MetricFamily) []string {
	var names []string
	for _, m := range f.GetMetric() {
		for _, l := range m.GetLabel() {
			if !slices.Contains(names, l.GetName()) {
				names = append(names, l.GetName())
			}
		}
	}
	sort.Strings(names)
	return names
}

func TestEveryContractMetricIsExportedWithItsTypeAndLabels(t *testing.T) {
	got := gatherPopulated(t)
	for _, want := range contract {
		t.Run(want.name+" is a "+strings.ToLower(want.typ.String()), func(t *testing.T) {
			f, ok := got[want.name]
			if !ok {
				t.Fatalf("%s is not exported", want.name)
			}
			if f.GetType() != want.typ {
				t.Errorf("%s is a %s, want a %s", want.name, f.GetType(), want.typ)
			}
			wantLabels := slices.Clone(want.labels)
			sort.Strings(wantLabels)
			if gotLabels := labelNames(f); !slices.Equal(gotLabels, wantLabels) {
				t.Errorf("%s has labels %v, want %v", want.name, gotLabels, wantLabels)
			}
		})
	}
	t.Run("nothing outside the contract is exported under the glimpse namespace", func(t *testing.T) {
		for name := range got {
			if !strings.HasPrefix(name, "glimpse_") {
				continue
			}
			if !slices.ContainsFunc(contract, func(c contractMetric) bool { return c.name == name }) {
				t.Errorf("%s is exported but not in the contract; add it to the contract and to this table", name)
			}
		}
	})
}

func TestOutputLabelTakesOnlyTheKnownOutputs(t *testing.T) {
	want := []string{"data", "markdown", "metadata", "none", "pdf", "screenshot"}
	got := slices.Clone(metrics.Outputs())
	sort.Strings(got)
	if !slices.Equal(got, want) {
		t.Fatalf("metrics.Outputs() = %v, want %v; the dashboard and the runbook name these values", got, want)
	}
	families := gatherPopulated(t)
	for _, name := range []string{"glimpse_http_requests_total", "glimpse_http_request_duration_seconds"} {
		t.Run(name+" starts a series for every output and uses no other", func(t *testing.T) {
			seen := map[string]bool{}
			for _, m := range families[name].GetMetric() {
				for _, l := range m.GetLabel() {
					if l.GetName() != "output" {
						continue
					}
					if !slices.Contains(want, l.GetValue()) {
						t.Errorf("%s has output=%q, which is not one of %v", name, l.GetValue(), want)
					}
					seen[l.GetValue()] = true
				}
			}
			for _, out := range want {
				if !seen[out] {
					t.Errorf("%s has no series with output=%q before its first request", name, out)
				}
			}
		})
	}
}

// boundedLabels are the only label names glimpse uses; each has a value set
// bounded by code, configuration or the number of sidecars.
// (method: the DevTools events glimpse subscribes to, a fixed list in its
// code; manager: the names of the consent list embedded in glimpse;
// vendor: one of WallVendors).
var boundedLabels = []string{"code", "status", "output", "cache", "phase", "result", "source", "plan", "op", "where", "state", "sidecar", "reason", "method", "manager", "vendor"}

func TestNamesFollowPrometheusConventions(t *testing.T) {
	for name, f := range gatherPopulated(t) {
		t.Run(name+" follows the naming conventions", func(t *testing.T) {
			switch {
			case strings.HasPrefix(name, "glimpse_"):
			case strings.HasPrefix(name, "go_"), strings.HasPrefix(name, "process_"):
				return // the client library's own collectors, checked by promtool below
			default:
				t.Fatalf("%s is outside the glimpse namespace and is not a Go or process metric", name)
			}
			isCounter := f.GetType() == dto.MetricType_COUNTER
			if hasTotal := strings.HasSuffix(name, "_total"); isCounter != hasTotal {
				t.Errorf("%s is a %s: counters, and only counters, end in _total", name, f.GetType())
			}
			if f.GetType() == dto.MetricType_HISTOGRAM && !strings.HasSuffix(name, "_seconds") {
				t.Errorf("%s is a histogram of durations and must end in _seconds", name)
			}
			if strings.Contains(name, "bytes") && !strings.HasSuffix(strings.TrimSuffix(name, "_total"), "_bytes") {
				t.Errorf("%s counts bytes and must end in _bytes (or _bytes_total)", name)
			}
			if name != strings.ToLower(name) {
				t.Errorf("%s must be lower snake case", name)
			}
			if help := f.GetHelp(); help == "" || !strings.HasSuffix(help, ".") {
				t.Errorf("%s needs a help text that is a sentence, got %q", name, help)
			}
			for _, m := range f.GetMetric() {
				for _, l := range m.GetLabel() {
					if !slices.Contains(boundedLabels, l.GetName()) {
						t.Errorf("%s has label %q, which is not one of the bounded labels %v", name, l.GetName(), boundedLabels)
					}
					if v := l.GetValue(); strings.Contains(v, "://") || strings.Contains(v, "/") || len(v) > 64 {
						t.Errorf("%s has label %s=%q, which looks like a URL or an unbounded value", name, l.GetName(), v)
					}
				}
			}
		})
	}
}

func TestExpositionHasNoLintProblems(t *testing.T) {
	reg := metricstest.Populated()

	t.Run("the client library's linter finds no problem", func(t *testing.T) {
		problems, err := testutil.GatherAndLint(reg)
		if err != nil {
			t.Fatalf("linting failed: %v", err)
		}
		for _, p := range problems {
			t.Errorf("%s: %s", p.Metric, p.Text)
		}
	})

	t.Run("promtool check metrics finds no problem", func(t *testing.T) {
		text, err := testutil.GatherAndFormat(reg, expfmt.TypeTextPlain)
		if err != nil {
			t.Fatalf("formatting the exposition failed: %v", err)
		}
		if out, err := promtoolCheckMetrics(t, text); err != nil || len(bytes.TrimSpace(out)) > 0 {
			t.Fatalf("promtool check metrics reported problems (%v):\n%s", err, out)
		}
	})

	t.Run("promtool check metrics does flag a counter without _total", func(t *testing.T) {
		// Proves the check above can fail.
		bad := []byte("# HELP glimpse_things Things.\n# TYPE glimpse_things counter\nglimpse_things 1\n")
		if out, err := promtoolCheckMetrics(t, bad); err == nil {
			t.Fatalf("promtool accepted a badly named counter; output:\n%s", out)
		}
	})
}

func promtoolCheckMetrics(t *testing.T, exposition []byte) ([]byte, error) {
	t.Helper()
	promtool, err := metricstest.Promtool()
	if err != nil {
		testtool.Missing(t, err)
	}
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = bytes.NewReader(exposition)
	return cmd.CombinedOutput()
}
