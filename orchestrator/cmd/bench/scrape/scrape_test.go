package scrape

import (
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

const exposition = `# HELP glimpse_cache_requests_total Cache lookups.
# TYPE glimpse_cache_requests_total counter
glimpse_cache_requests_total{result="hit"} 40
glimpse_cache_requests_total{result="miss"} 2
# HELP glimpse_render_phase_duration_seconds Phases.
# TYPE glimpse_render_phase_duration_seconds histogram
glimpse_render_phase_duration_seconds_bucket{phase="navigate",le="0.1"} 2
glimpse_render_phase_duration_seconds_bucket{phase="navigate",le="0.2"} 6
glimpse_render_phase_duration_seconds_bucket{phase="navigate",le="+Inf"} 8
glimpse_render_phase_duration_seconds_sum{phase="navigate"} 1.6
glimpse_render_phase_duration_seconds_count{phase="navigate"} 8
glimpse_render_phase_duration_seconds_bucket{phase="pdf",le="0.1"} 0
glimpse_render_phase_duration_seconds_bucket{phase="pdf",le="0.2"} 1
glimpse_render_phase_duration_seconds_bucket{phase="pdf",le="+Inf"} 1
glimpse_render_phase_duration_seconds_sum{phase="pdf"} 0.15
glimpse_render_phase_duration_seconds_count{phase="pdf"} 1
`

func TestSnapshot(t *testing.T) {
	s, err := Parse(strings.NewReader(exposition))
	if err != nil {
		t.Fatal(err)
	}
	nav := map[string]string{"phase": "navigate"}
	t.Run("a counter is read by its labels", func(t *testing.T) {
		if v := s.Value("glimpse_cache_requests_total", map[string]string{"result": "hit"}); v != 40 {
			t.Errorf("hits = %v", v)
		}
	})
	t.Run("counters without a label filter add up", func(t *testing.T) {
		if v := s.Value("glimpse_cache_requests_total", nil); v != 42 {
			t.Errorf("all lookups = %v", v)
		}
	})
	t.Run("a family that is not there reads as zero", func(t *testing.T) {
		if v := s.Value("nope_total", nil); v != 0 {
			t.Errorf("missing = %v", v)
		}
		if h := s.Histogram("nope_seconds", nil); h.Count != 0 || !math.IsNaN(h.Quantile(0.5)) {
			t.Errorf("missing histogram = %+v", h)
		}
	})
	t.Run("a histogram gives its mean and an interpolated median", func(t *testing.T) {
		h := s.Histogram("glimpse_render_phase_duration_seconds", nav)
		if h.Count != 8 || math.Abs(h.Mean()-0.2) > 1e-9 {
			t.Errorf("count %v mean %v, want 8 and 0.2", h.Count, h.Mean())
		}
		// rank 4 lies halfway between the 2 below 0.1 and the 6 below 0.2.
		if q := h.Quantile(0.5); math.Abs(q-0.15) > 1e-9 {
			t.Errorf("median = %v, want 0.15", q)
		}
	})
	t.Run("a quantile in the +Inf bucket reports the largest finite bound", func(t *testing.T) {
		h := s.Histogram("glimpse_render_phase_duration_seconds", nav)
		if q := h.Quantile(0.99); q != 0.2 {
			t.Errorf("p99 = %v, want 0.2", q)
		}
	})
	t.Run("histograms without a label filter add up", func(t *testing.T) {
		h := s.Histogram("glimpse_render_phase_duration_seconds", nil)
		if h.Count != 9 || math.Abs(h.Sum-1.75) > 1e-9 {
			t.Errorf("all phases = %+v", h)
		}
	})
}

func TestHistogramArithmetic(t *testing.T) {
	before := Histogram{Bounds: []float64{0.1, 1, math.Inf(1)}, Counts: []float64{1, 2, 2}, Count: 2, Sum: 0.6}
	after := Histogram{Bounds: []float64{0.1, 1, math.Inf(1)}, Counts: []float64{3, 7, 8}, Count: 8, Sum: 5.6}
	t.Run("subtracting two readings leaves what happened between them", func(t *testing.T) {
		d := after.Sub(before)
		if d.Count != 6 || math.Abs(d.Sum-5) > 1e-9 || d.Counts[0] != 2 || d.Counts[1] != 5 || d.Counts[2] != 6 {
			t.Errorf("Sub = %+v", d)
		}
	})
	t.Run("adding to the zero histogram gives the other one", func(t *testing.T) {
		var zero Histogram
		s := zero.Add(before)
		if s.Count != 2 || len(s.Bounds) != 3 || s.Counts[1] != 2 {
			t.Errorf("Add = %+v", s)
		}
	})
	t.Run("adding two readings adds every bucket", func(t *testing.T) {
		s := before.Add(after)
		if s.Count != 10 || s.Counts[0] != 4 || s.Counts[2] != 10 || !math.IsInf(s.Bounds[2], 1) {
			t.Errorf("Add = %+v", s)
		}
	})
	t.Run("an empty histogram has a mean of zero", func(t *testing.T) {
		if m := (Histogram{}).Mean(); m != 0 {
			t.Errorf("Mean = %v", m)
		}
	})
}

func TestFetchReadsARealRegistry(t *testing.T) {
	reg := prometheus.NewRegistry()
	h := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "glimpse_render_phase_duration_seconds", Buckets: []float64{0.1, 1}}, []string{"phase"})
	reg.MustRegister(h)
	h.WithLabelValues("extract").Observe(0.05)
	h.WithLabelValues("extract").Observe(0.5)
	srv := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	defer srv.Close()

	t.Run("a /metrics endpoint is read into a snapshot", func(t *testing.T) {
		s, err := Fetch(context.Background(), srv.Client(), srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		got := s.Histogram("glimpse_render_phase_duration_seconds", map[string]string{"phase": "extract"})
		if got.Count != 2 || math.Abs(got.Sum-0.55) > 1e-9 {
			t.Errorf("histogram = %+v", got)
		}
	})
	t.Run("an endpoint that does not answer 200 is an error naming the status", func(t *testing.T) {
		bad := httptest.NewServer(http.NotFoundHandler())
		defer bad.Close()
		_, err := Fetch(context.Background(), bad.Client(), bad.URL)
		if err == nil || !strings.Contains(err.Error(), "HTTP 404") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("an endpoint nobody listens on is an error", func(t *testing.T) {
		if _, err := Fetch(context.Background(), srv.Client(), "http://127.0.0.1:1/metrics"); err == nil {
			t.Error("want an error")
		}
	})
}
