package metrics_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/glimpse/glimpse/metrics"
)

func TestNewRegistryCarriesTheGoAndProcessCollectors(t *testing.T) {
	families, err := metrics.NewRegistry().Gather()
	if err != nil {
		t.Fatalf("gathering a new registry failed: %v", err)
	}
	have := map[string]bool{}
	for _, f := range families {
		have[f.GetName()] = true
	}
	for _, name := range []string{"go_goroutines", "go_memstats_alloc_bytes", "go_build_info", "process_resident_memory_bytes", "process_cpu_seconds_total"} {
		t.Run(name+" is exported", func(t *testing.T) {
			if !have[name] {
				t.Errorf("%s is missing from a new registry", name)
			}
		})
	}
}

func TestEveryCollectorRegistersOnOneRegistry(t *testing.T) {
	reg := metrics.NewRegistry()
	metrics.NewOrchestrator(reg)
	metrics.RegisterPool(reg, func() metrics.PoolSnapshot { return metrics.PoolSnapshot{} })
	metrics.RegisterCache(reg, func() metrics.CacheSnapshot { return metrics.CacheSnapshot{} })
	metrics.RegisterLocalStorage(reg, func() metrics.LocalStorageSnapshot { return metrics.LocalStorageSnapshot{} })
	// The embedded default runs a sidecar inside the orchestrator process,
	// so the sidecar's metrics must fit on the same registry.
	metrics.RegisterSidecar(reg, func() metrics.SidecarStats { return metrics.SidecarStats{} })
	if _, err := reg.Gather(); err != nil {
		t.Fatalf("gathering a registry with every collector failed: %v", err)
	}
}

func TestRegisteringTwiceIsAWiringMistakeThatPanics(t *testing.T) {
	cases := []struct {
		name     string
		register func(prometheus.Registerer)
	}{
		{"the orchestrator collectors", func(r prometheus.Registerer) { metrics.NewOrchestrator(r) }},
		{"the pool collector", func(r prometheus.Registerer) {
			metrics.RegisterPool(r, func() metrics.PoolSnapshot { return metrics.PoolSnapshot{} })
		}},
		{"the cache collector", func(r prometheus.Registerer) {
			metrics.RegisterCache(r, func() metrics.CacheSnapshot { return metrics.CacheSnapshot{} })
		}},
		{"the sidecar collector", func(r prometheus.Registerer) {
			metrics.RegisterSidecar(r, func() metrics.SidecarStats { return metrics.SidecarStats{} })
		}},
		{"the local storage collector", func(r prometheus.Registerer) {
			metrics.RegisterLocalStorage(r, func() metrics.LocalStorageSnapshot { return metrics.LocalStorageSnapshot{} })
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name+" panic when registered a second time", func(t *testing.T) {
			reg := prometheus.NewRegistry()
			tc.register(reg)
			defer func() {
				r := recover()
				err, ok := r.(error)
				var already prometheus.AlreadyRegisteredError
				if !ok || !errors.As(err, &already) {
					t.Errorf("want a panic with AlreadyRegisteredError, got %v", r)
				}
			}()
			tc.register(reg)
		})
		t.Run(tc.name+" register nothing with a nil registerer", func(t *testing.T) {
			tc.register(nil) // must not panic
		})
	}
}

func TestNilSnapshotFunctionsAreRefusedAtRegistration(t *testing.T) {
	cases := []struct {
		name     string
		register func()
		want     string
	}{
		{"the pool", func() { metrics.RegisterPool(prometheus.NewRegistry(), nil) }, "RegisterPool needs a snapshot function"},
		{"the cache", func() { metrics.RegisterCache(prometheus.NewRegistry(), nil) }, "RegisterCache needs a snapshot function"},
		{"the sidecar", func() { metrics.RegisterSidecar(prometheus.NewRegistry(), nil) }, "RegisterSidecar needs a stats function"},
		{"the local storage", func() { metrics.RegisterLocalStorage(prometheus.NewRegistry(), nil) }, "RegisterLocalStorage needs a snapshot function"},
	}
	for _, tc := range cases {
		t.Run(tc.name+" without a snapshot function panics at once, not at scrape time", func(t *testing.T) {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), tc.want) {
					t.Errorf("want a panic saying %q, got %v", tc.want, r)
				}
			}()
			tc.register()
		})
	}
}

func TestNilRegistererStillGivesUsableCollectors(t *testing.T) {
	o := metrics.NewOrchestrator(nil)
	o.PDFs.Inc()
	o.Requests.WithLabelValues("ETIMEOUT", "5xx", metrics.OutputPDF).Inc()
	if got := testutil.ToFloat64(o.PDFs); got != 1 {
		t.Errorf("PDFs = %v, want 1", got)
	}
}

func TestHandlerServesTheTextExposition(t *testing.T) {
	reg := metrics.NewRegistry()
	o := metrics.NewOrchestrator(reg)
	o.PDFs.Inc()
	srv := httptest.NewServer(metrics.Handler(reg))
	defer srv.Close()

	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatalf("GET /metrics failed: %v", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)

	t.Run("the answer is 200 in the text format", func(t *testing.T) {
		if resp.StatusCode != http.StatusOK {
			t.Errorf("status %d", resp.StatusCode)
		}
		if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
			t.Errorf("content type %q, want text/plain", ct)
		}
	})
	t.Run("the answer holds glimpse, Go and process metrics", func(t *testing.T) {
		for _, want := range []string{"glimpse_pdf_generated_total 1", "go_goroutines ", "process_cpu_seconds_total "} {
			if !strings.Contains(string(body), want) {
				t.Errorf("the exposition lacks %q", want)
			}
		}
	})
}

// failingCollector stands for a collector whose snapshot broke.
type failingCollector struct{ desc *prometheus.Desc }

func (f failingCollector) Describe(ch chan<- *prometheus.Desc) { ch <- f.desc }
func (f failingCollector) Collect(ch chan<- prometheus.Metric) {
	ch <- prometheus.NewInvalidMetric(f.desc, errors.New("snapshot failed"))
}

func TestHandlerServesTheRestWhenOneCollectorFails(t *testing.T) {
	reg := metrics.NewRegistry()
	metrics.NewOrchestrator(reg).Retries.Inc()
	reg.MustRegister(failingCollector{prometheus.NewDesc("glimpse_broken", "Broken.", nil, nil)})

	rec := httptest.NewRecorder()
	metrics.Handler(reg).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d, want 200 with the metrics that could be gathered", rec.Code)
	}
	if !strings.Contains(rec.Body.String(), "glimpse_pool_retries_total 1") {
		t.Errorf("the working metrics are missing from the answer:\n%s", rec.Body.String())
	}
}

func TestScrapesRaceNeitherWithUpdatesNorWithEachOther(t *testing.T) {
	reg := metrics.NewRegistry()
	o := metrics.NewOrchestrator(reg)
	var mu sync.Mutex
	inUse := 0
	metrics.RegisterPool(reg, func() metrics.PoolSnapshot {
		mu.Lock()
		defer mu.Unlock()
		return metrics.PoolSnapshot{Sidecars: []metrics.SidecarState{{Addr: "a:9230", State: "healthy", InUse: inUse, Capacity: 4}}}
	})
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 50 {
				o.Requests.WithLabelValues("OK", "2xx", metrics.OutputMetadata).Inc()
				o.LeaseWait.Observe(0.01)
				mu.Lock()
				inUse = (inUse + 1) % 4
				mu.Unlock()
			}
		})
		wg.Go(func() {
			for range 10 {
				if _, err := reg.Gather(); err != nil {
					t.Errorf("gather failed: %v", err)
				}
			}
		})
	}
	wg.Wait()
	if got := testutil.ToFloat64(o.Requests.WithLabelValues("OK", "2xx", metrics.OutputMetadata)); got != 200 {
		t.Errorf("requests = %v, want 200", got)
	}
}
