package metrics_test

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/glimpse/glimpse/metrics"
)

func TestQuotaBackendErrorsIsACounterFromZero(t *testing.T) {
	reg := prometheus.NewRegistry()
	q := metrics.NewQuota(reg)
	want := `
# HELP glimpse_quota_backend_errors_total Quota operations the shared store (Redis) failed; each of those requests was counted by its replica alone.
# TYPE glimpse_quota_backend_errors_total counter
glimpse_quota_backend_errors_total %s
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(strings.Replace(want, "%s", "0", 1)), "glimpse_quota_backend_errors_total"); err != nil {
		t.Errorf("before any error: %v", err)
	}
	q.BackendErrors.Inc()
	q.BackendErrors.Inc()
	if err := testutil.GatherAndCompare(reg, strings.NewReader(strings.Replace(want, "%s", "2", 1)), "glimpse_quota_backend_errors_total"); err != nil {
		t.Errorf("after two errors: %v", err)
	}
	problems, err := testutil.GatherAndLint(reg)
	if err != nil || len(problems) > 0 {
		t.Errorf("lint: %v %+v", err, problems)
	}
}
