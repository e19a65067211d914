package metrics_test

import (
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/glimpse/glimpse/metrics"
)

func TestOrchestratorCollectorsCountWhatIsObserved(t *testing.T) {
	reg := prometheus.NewRegistry()
	o := metrics.NewOrchestrator(reg)

	o.Requests.WithLabelValues(metrics.CodeOK, metrics.StatusClass(200), metrics.OutputMetadata).Add(3)
	o.Requests.WithLabelValues(metrics.CodeOK, metrics.StatusClass(200), metrics.OutputPDF).Inc()
	o.Requests.WithLabelValues("EBUSY", metrics.StatusClass(503), metrics.OutputPDF).Inc()
	o.RequestDuration.WithLabelValues(metrics.CacheStatusHit, metrics.OutputMetadata).Observe(0.003)
	o.RequestDuration.WithLabelValues(metrics.CacheStatusMiss, metrics.OutputPDF).Observe(1.5)
	o.RequestDuration.WithLabelValues(metrics.CacheStatusMiss, metrics.OutputPDF).Observe(7)
	o.Phase.WithLabelValues(metrics.PhasePDF).Observe(2)
	o.LeaseWait.Observe(0.2)
	o.BusyRejections.Inc()
	o.Retries.Add(2)
	o.Cache.WithLabelValues(metrics.CacheMiss, metrics.CacheFromJoined).Inc()
	o.RateLimited.WithLabelValues("pro").Inc()
	o.PDFs.Inc()
	o.PDFBytes.Add(1234)
	o.StorageErrors.WithLabelValues(metrics.StoragePing).Inc()

	counters := []struct {
		name string
		c    prometheus.Collector
		want float64
	}{
		{"successful metadata requests", o.Requests.WithLabelValues("OK", "2xx", "metadata"), 3},
		{"successful PDF requests", o.Requests.WithLabelValues("OK", "2xx", "pdf"), 1},
		{"busy PDF requests", o.Requests.WithLabelValues("EBUSY", "5xx", "pdf"), 1},
		{"screenshots that never happened", o.Requests.WithLabelValues("OK", "2xx", "screenshot"), 0},
		{"busy rejections", o.BusyRejections, 1},
		{"retries", o.Retries, 2},
		{"cache misses that joined another render", o.Cache.WithLabelValues("miss", "joined"), 1},
		{"cache misses rendered alone, which never happened", o.Cache.WithLabelValues("miss", "render"), 0},
		{"cache hits that never happened", o.Cache.WithLabelValues("hit", "memory"), 0},
		{"rate-limited requests of the pro plan", o.RateLimited.WithLabelValues("pro"), 1},
		{"PDFs", o.PDFs, 1},
		{"PDF bytes", o.PDFBytes, 1234},
		{"storage ping errors", o.StorageErrors.WithLabelValues("ping"), 1},
	}
	for _, tc := range counters {
		t.Run("the counter of "+tc.name+" holds what was added", func(t *testing.T) {
			if got := testutil.ToFloat64(tc.c); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}

	t.Run("the request duration histogram counts observations per cache status and output", func(t *testing.T) {
		want := `
# HELP glimpse_http_request_duration_seconds Time to answer a request, by cache status (HIT, MISS, BYPASS, or NONE when no cache decision was made) and output (pdf, screenshot, markdown, data, metadata, or none).
# TYPE glimpse_http_request_duration_seconds histogram
`
		observed := map[string][]float64{
			`cache="HIT",output="metadata"`: {0.003},
			`cache="MISS",output="pdf"`:     {1.5, 7},
		}
		outputs := metrics.Outputs()
		sort.Strings(outputs)
		for _, cache := range []string{"BYPASS", "HIT", "MISS", "NONE"} {
			for _, out := range outputs {
				label := `cache="` + cache + `",output="` + out + `"`
				var sum float64
				for _, v := range observed[label] {
					sum += v
				}
				want += histogramText("glimpse_http_request_duration_seconds", label, observed[label], sum)
			}
		}
		if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "glimpse_http_request_duration_seconds"); err != nil {
			t.Error(err)
		}
	})

	t.Run("series with a fixed label set exist before their first event", func(t *testing.T) {
		for name, want := range map[string]int{
			"glimpse_http_requests_total":           7,  // OK/2xx for each of the 6 outputs, plus the EBUSY observed above
			"glimpse_http_request_duration_seconds": 24, // each cache status for each output
			"glimpse_render_phase_duration_seconds": 9,  // the phases, the overlay's composition and the reveal included
			"glimpse_cache_requests_total":          8,  // each result with each source it can have
			"glimpse_storage_errors_total":          4,
			"glimpse_guard_refusals_total":          2,
			"glimpse_render_bot_walls_total":        len(metrics.WallVendors),
		} {
			if got, err := testutil.GatherAndCount(reg, name); err != nil || got != want {
				t.Errorf("%s has %d series (%v), want %d", name, got, err, want)
			}
		}
	})
}

var requestBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60}

// histogramText writes the exposition of one series of a request-duration
// histogram holding the given observations.
func histogramText(name, label string, observed []float64, sum float64) string {
	var b strings.Builder
	for _, le := range requestBuckets {
		n := 0
		for _, v := range observed {
			if v <= le {
				n++
			}
		}
		b.WriteString(name + "_bucket{" + label + `,le="` + prometheusFloat(le) + `"} ` + itoa(n) + "\n")
	}
	b.WriteString(name + "_bucket{" + label + `,le="+Inf"} ` + itoa(len(observed)) + "\n")
	b.WriteString(name + "_sum{" + label + "} " + prometheusFloat(sum) + "\n")
	b.WriteString(name + "_count{" + label + "} " + itoa(len(observed)) + "\n")
	return b.String()
}

func TestPoolCollectorReadsTheSnapshotAtScrapeTime(t *testing.T) {
	cases := []struct {
		name     string
		snapshot metrics.PoolSnapshot
		want     string
	}{
		{
			name:     "an empty pool reports zero sidecars in every state and no per-sidecar series",
			snapshot: metrics.PoolSnapshot{QueueCap: 64},
			want: `
# HELP glimpse_pool_sidecars Sidecars known to the pool, by state: healthy, unhealthy, draining.
# TYPE glimpse_pool_sidecars gauge
glimpse_pool_sidecars{state="draining"} 0
glimpse_pool_sidecars{state="healthy"} 0
glimpse_pool_sidecars{state="unhealthy"} 0
# HELP glimpse_pool_queue_length Requests waiting for a browser lease.
# TYPE glimpse_pool_queue_length gauge
glimpse_pool_queue_length 0
# HELP glimpse_pool_queue_capacity Requests that may wait for a browser lease before new ones are refused with EBUSY.
# TYPE glimpse_pool_queue_capacity gauge
glimpse_pool_queue_capacity 64
`,
		},
		{
			name: "each sidecar gets its own series and the states are counted",
			snapshot: metrics.PoolSnapshot{
				Sidecars: []metrics.SidecarState{
					{Addr: "10.0.0.7:9230", State: metrics.SidecarHealthy, InUse: 3, Capacity: 4, Warm: 1},
					{Addr: "10.0.0.8:9230", State: metrics.SidecarHealthy, InUse: 0, Capacity: 4, Warm: 2},
					{Addr: "10.0.0.9:9230", State: metrics.SidecarUnhealthy, Capacity: 4},
				},
				Queued: 5, QueueCap: 64,
			},
			want: `
# HELP glimpse_pool_sidecars Sidecars known to the pool, by state: healthy, unhealthy, draining.
# TYPE glimpse_pool_sidecars gauge
glimpse_pool_sidecars{state="draining"} 0
glimpse_pool_sidecars{state="healthy"} 2
glimpse_pool_sidecars{state="unhealthy"} 1
# HELP glimpse_pool_leases_in_use Browser leases this orchestrator holds on each sidecar.
# TYPE glimpse_pool_leases_in_use gauge
glimpse_pool_leases_in_use{sidecar="10.0.0.7:9230"} 3
glimpse_pool_leases_in_use{sidecar="10.0.0.8:9230"} 0
glimpse_pool_leases_in_use{sidecar="10.0.0.9:9230"} 0
# HELP glimpse_pool_capacity Browser leases this orchestrator may hold at once on each sidecar.
# TYPE glimpse_pool_capacity gauge
glimpse_pool_capacity{sidecar="10.0.0.7:9230"} 4
glimpse_pool_capacity{sidecar="10.0.0.8:9230"} 4
glimpse_pool_capacity{sidecar="10.0.0.9:9230"} 4
# HELP glimpse_pool_warm_targets Browser targets kept open on each sidecar for the next lease.
# TYPE glimpse_pool_warm_targets gauge
glimpse_pool_warm_targets{sidecar="10.0.0.7:9230"} 1
glimpse_pool_warm_targets{sidecar="10.0.0.8:9230"} 2
glimpse_pool_warm_targets{sidecar="10.0.0.9:9230"} 0
# HELP glimpse_pool_queue_length Requests waiting for a browser lease.
# TYPE glimpse_pool_queue_length gauge
glimpse_pool_queue_length 5
# HELP glimpse_pool_queue_capacity Requests that may wait for a browser lease before new ones are refused with EBUSY.
# TYPE glimpse_pool_queue_capacity gauge
glimpse_pool_queue_capacity 64
`,
		},
		{
			name: "an address listed twice is added up instead of failing the scrape",
			snapshot: metrics.PoolSnapshot{
				Sidecars: []metrics.SidecarState{
					{Addr: "10.0.0.7:9230", State: metrics.SidecarDraining, InUse: 1, Capacity: 4},
					{Addr: "10.0.0.7:9230", State: metrics.SidecarHealthy, InUse: 2, Capacity: 4, Warm: 1},
				},
				QueueCap: 8,
			},
			want: `
# HELP glimpse_pool_sidecars Sidecars known to the pool, by state: healthy, unhealthy, draining.
# TYPE glimpse_pool_sidecars gauge
glimpse_pool_sidecars{state="draining"} 1
glimpse_pool_sidecars{state="healthy"} 1
glimpse_pool_sidecars{state="unhealthy"} 0
# HELP glimpse_pool_leases_in_use Browser leases this orchestrator holds on each sidecar.
# TYPE glimpse_pool_leases_in_use gauge
glimpse_pool_leases_in_use{sidecar="10.0.0.7:9230"} 3
# HELP glimpse_pool_capacity Browser leases this orchestrator may hold at once on each sidecar.
# TYPE glimpse_pool_capacity gauge
glimpse_pool_capacity{sidecar="10.0.0.7:9230"} 8
# HELP glimpse_pool_warm_targets Browser targets kept open on each sidecar for the next lease.
# TYPE glimpse_pool_warm_targets gauge
glimpse_pool_warm_targets{sidecar="10.0.0.7:9230"} 1
# HELP glimpse_pool_queue_length Requests waiting for a browser lease.
# TYPE glimpse_pool_queue_length gauge
glimpse_pool_queue_length 0
# HELP glimpse_pool_queue_capacity Requests that may wait for a browser lease before new ones are refused with EBUSY.
# TYPE glimpse_pool_queue_capacity gauge
glimpse_pool_queue_capacity 8
`,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			reg := prometheus.NewRegistry()
			metrics.RegisterPool(reg, func() metrics.PoolSnapshot { return tc.snapshot })
			if err := testutil.GatherAndCompare(reg, strings.NewReader(tc.want)); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestCacheCollectorReadsTheSnapshotAtScrapeTime(t *testing.T) {
	var mu sync.Mutex
	snap := metrics.CacheSnapshot{Entries: 3, Bytes: 4096, MaxBytes: 1 << 20}
	reg := prometheus.NewRegistry()
	metrics.RegisterCache(reg, func() metrics.CacheSnapshot {
		mu.Lock()
		defer mu.Unlock()
		return snap
	})
	text := func(entries, bytes int) string {
		return `
# HELP glimpse_cache_entries Responses held in the in-memory cache.
# TYPE glimpse_cache_entries gauge
glimpse_cache_entries ` + itoa(entries) + `
# HELP glimpse_cache_memory_bytes Bytes held by the in-memory cache.
# TYPE glimpse_cache_memory_bytes gauge
glimpse_cache_memory_bytes ` + itoa(bytes) + `
# HELP glimpse_cache_memory_limit_bytes Bytes the in-memory cache may hold before it evicts.
# TYPE glimpse_cache_memory_limit_bytes gauge
glimpse_cache_memory_limit_bytes 1.048576e+06
`
	}
	t.Run("the first scrape shows the cache as it is", func(t *testing.T) {
		if err := testutil.GatherAndCompare(reg, strings.NewReader(text(3, 4096))); err != nil {
			t.Error(err)
		}
	})
	t.Run("a later scrape shows the cache as it has become", func(t *testing.T) {
		mu.Lock()
		snap.Entries, snap.Bytes = 0, 0
		mu.Unlock()
		if err := testutil.GatherAndCompare(reg, strings.NewReader(text(0, 0))); err != nil {
			t.Error(err)
		}
	})
}

func TestSidecarCollectorExportsTotalsAsCounters(t *testing.T) {
	cases := []struct {
		name  string
		stats metrics.SidecarStats
		want  string
	}{
		{
			name: "a sidecar whose browser is ready",
			stats: metrics.SidecarStats{Up: true, OpenPages: 2, PagesCreated: 140, Restarts: 1, Recycles: 2, MemoryBytes: 300 << 20, GuardRefusals: 7, AdsBlocked: 31,
				AuthRefusals: 4, CDPRefusals: map[string]int64{metrics.CDPRefusedMethod: 5, metrics.CDPRefusedProxy: 1},
				MaxPages: 5, AdmittedPages: 3, PagesRefused: 11, BackgroundRefusals: 6, BrowserStarted: time.Unix(1_790_000_000, 500_000_000)},
			want: sidecarText(1, 0, 2, 140, 1, 2, "3.145728e+08", 7, 31, 4, map[string]int{"method": 5, "proxy": 1}) + admissionText(5, 3, 11, 6, "1.7900000005e+09"),
		},
		{
			name:  "a sidecar that is draining with its browser down",
			stats: metrics.SidecarStats{Draining: true, PagesCreated: 9},
			want:  sidecarText(0, 1, 0, 9, 0, 0, "0", 0, 0, 0, nil) + admissionText(0, 0, 0, 0, "0"),
		},
	}
	for _, tc := range cases {
		t.Run(tc.name+" is reported as it is", func(t *testing.T) {
			reg := prometheus.NewRegistry()
			metrics.RegisterSidecar(reg, func() metrics.SidecarStats { return tc.stats })
			if err := testutil.GatherAndCompare(reg, strings.NewReader(tc.want)); err != nil {
				t.Error(err)
			}
		})
	}
}

func sidecarText(up, draining, open, created, restarts, recycles int, memory string, refusals, blocked, unauthorized int, cdp map[string]int) string {
	cdpLines := ""
	for _, reason := range metrics.CDPRefusalReasons {
		cdpLines += `glimpse_sidecar_cdp_refusals_total{reason="` + reason + `"} ` + itoa(cdp[reason]) + "\n"
	}
	return `
# HELP glimpse_sidecar_up 1 when the sidecar's Chromium is ready for pages, 0 otherwise.
# TYPE glimpse_sidecar_up gauge
glimpse_sidecar_up ` + itoa(up) + `
# HELP glimpse_sidecar_draining 1 while the sidecar finishes in-flight pages before it stops, 0 otherwise.
# TYPE glimpse_sidecar_draining gauge
glimpse_sidecar_draining ` + itoa(draining) + `
# HELP glimpse_sidecar_open_pages Pages open in the sidecar's Chromium now.
# TYPE glimpse_sidecar_open_pages gauge
glimpse_sidecar_open_pages ` + itoa(open) + `
# HELP glimpse_sidecar_pages_created_total Pages the sidecar has opened since it started.
# TYPE glimpse_sidecar_pages_created_total counter
glimpse_sidecar_pages_created_total ` + itoa(created) + `
# HELP glimpse_sidecar_chromium_restarts_total Times Chromium was restarted after a crash or a failed health check.
# TYPE glimpse_sidecar_chromium_restarts_total counter
glimpse_sidecar_chromium_restarts_total ` + itoa(restarts) + `
# HELP glimpse_sidecar_chromium_recycles_total Times Chromium was restarted on purpose, after a number of pages or too much memory.
# TYPE glimpse_sidecar_chromium_recycles_total counter
glimpse_sidecar_chromium_recycles_total ` + itoa(recycles) + `
# HELP glimpse_sidecar_chromium_memory_bytes Resident memory of Chromium's process group.
# TYPE glimpse_sidecar_chromium_memory_bytes gauge
glimpse_sidecar_chromium_memory_bytes ` + memory + `
# HELP glimpse_sidecar_guard_refusals_total Connections from the browser refused by the egress guard.
# TYPE glimpse_sidecar_guard_refusals_total counter
glimpse_sidecar_guard_refusals_total ` + itoa(refusals) + `
# HELP glimpse_sidecar_adblock_blocked_total Requests from the browser refused by the egress guard for the ad-block list.
# TYPE glimpse_sidecar_adblock_blocked_total counter
glimpse_sidecar_adblock_blocked_total ` + itoa(blocked) + `
# HELP glimpse_sidecar_auth_refusals_total Requests to the sidecar's DevTools endpoint or egress proxy refused for a missing or wrong sidecar token.
# TYPE glimpse_sidecar_auth_refusals_total counter
glimpse_sidecar_auth_refusals_total ` + itoa(unauthorized) + `
# HELP glimpse_sidecar_cdp_refusals_total DevTools commands the sidecar answered with an error instead of passing them to Chromium, by reason.
# TYPE glimpse_sidecar_cdp_refusals_total counter
` + cdpLines
}

func admissionText(limit, admitted, refused, background int, started string) string {
	return `# HELP glimpse_sidecar_max_pages Pages the sidecar admits at once over every orchestrator (GLIMPSE_SIDECAR_MAX_PAGES); 0 for no limit.
# TYPE glimpse_sidecar_max_pages gauge
glimpse_sidecar_max_pages ` + itoa(limit) + `
# HELP glimpse_sidecar_admitted_pages Pages the sidecar's clients, every orchestrator together, hold now: its real load.
# TYPE glimpse_sidecar_admitted_pages gauge
glimpse_sidecar_admitted_pages ` + itoa(admitted) + `
# HELP glimpse_sidecar_pages_refused_total Pages the sidecar refused because it held its GLIMPSE_SIDECAR_MAX_PAGES already.
# TYPE glimpse_sidecar_pages_refused_total counter
glimpse_sidecar_pages_refused_total ` + itoa(refused) + `
# HELP glimpse_sidecar_background_refusals_total Requests Chromium made on its own, for no page, that the sidecar refused.
# TYPE glimpse_sidecar_background_refusals_total counter
glimpse_sidecar_background_refusals_total ` + itoa(background) + `
# HELP glimpse_sidecar_chromium_start_time_seconds Unix time at which the sidecar's current Chromium became ready; 0 while none runs.
# TYPE glimpse_sidecar_chromium_start_time_seconds gauge
glimpse_sidecar_chromium_start_time_seconds ` + started + `
`
}

func TestLocalStorageCollectorExportsEveryReason(t *testing.T) {
	cases := []struct {
		name string
		snap metrics.LocalStorageSnapshot
		want string
	}{
		{
			name: "a store that has swept for age and budget",
			snap: metrics.LocalStorageSnapshot{Bytes: 5000, Objects: 12, MaxBytes: 8000,
				SweptObjects: map[string]int64{metrics.SweptAge: 3, metrics.SweptBudget: 2},
				SweptBytes:   map[string]int64{metrics.SweptAge: 300, metrics.SweptBudget: 2200},
				VolumeBytes:  1 << 30, VolumeFreeBytes: 1 << 20},
			want: localStorageText(5000, 12, 8000, map[string][2]int{"age": {3, 300}, "budget": {2, 2200}}, 1<<30, 1<<20),
		},
		{
			name: "a store without budget that has not swept yet",
			snap: metrics.LocalStorageSnapshot{},
			want: localStorageText(0, 0, 0, nil, 0, 0),
		},
	}
	for _, tc := range cases {
		t.Run(tc.name+" is reported as it is, every reason included", func(t *testing.T) {
			reg := prometheus.NewRegistry()
			metrics.RegisterLocalStorage(reg, func() metrics.LocalStorageSnapshot { return tc.snap })
			if err := testutil.GatherAndCompare(reg, strings.NewReader(tc.want)); err != nil {
				t.Error(err)
			}
		})
	}
}

func localStorageText(bytes, objects, limit int, swept map[string][2]int, volume, free int) string {
	var objectLines, byteLines string
	for _, reason := range metrics.SweepReasons {
		objectLines += `glimpse_storage_swept_objects_total{reason="` + reason + `"} ` + itoa(swept[reason][0]) + "\n"
		byteLines += `glimpse_storage_swept_bytes_total{reason="` + reason + `"} ` + itoa(swept[reason][1]) + "\n"
	}
	return `
# HELP glimpse_storage_local_bytes Bytes in the local storage directory, as measured by the last sweep.
# TYPE glimpse_storage_local_bytes gauge
glimpse_storage_local_bytes ` + itoa(bytes) + `
# HELP glimpse_storage_local_objects Objects stored in the local storage directory, as counted by the last sweep.
# TYPE glimpse_storage_local_objects gauge
glimpse_storage_local_objects ` + itoa(objects) + `
# HELP glimpse_storage_local_limit_bytes Bytes the sweeper keeps the local storage directory under; 0 when there is no budget.
# TYPE glimpse_storage_local_limit_bytes gauge
glimpse_storage_local_limit_bytes ` + itoa(limit) + `
# HELP glimpse_storage_local_volume_bytes Size of the filesystem that holds the local storage directory.
# TYPE glimpse_storage_local_volume_bytes gauge
glimpse_storage_local_volume_bytes ` + itoa(volume) + `
# HELP glimpse_storage_local_volume_free_bytes Bytes glimpse may still write on the filesystem that holds the local storage directory.
# TYPE glimpse_storage_local_volume_free_bytes gauge
glimpse_storage_local_volume_free_bytes ` + itoa(free) + `
# HELP glimpse_storage_swept_objects_total Objects, and files of interrupted writes, that the local store's sweeper deleted, by reason: age, budget, partial.
# TYPE glimpse_storage_swept_objects_total counter
` + objectLines + `# HELP glimpse_storage_swept_bytes_total Bytes the local store's sweeper freed, by reason: age, budget, partial.
# TYPE glimpse_storage_swept_bytes_total counter
` + byteLines
}

func TestStatusClassKeepsTheStatusLabelBounded(t *testing.T) {
	cases := []struct {
		status int
		want   string
	}{
		{101, "1xx"}, {200, "2xx"}, {204, "2xx"}, {302, "3xx"}, {400, "4xx"}, {429, "4xx"},
		{500, "5xx"}, {503, "5xx"}, {504, "5xx"}, {0, "5xx"}, {99, "5xx"}, {600, "5xx"}, {-1, "5xx"},
	}
	for _, tc := range cases {
		t.Run("status "+itoa(tc.status)+" is in class "+tc.want, func(t *testing.T) {
			if got := metrics.StatusClass(tc.status); got != tc.want {
				t.Errorf("StatusClass(%d) = %q, want %q", tc.status, got, tc.want)
			}
		})
	}
}
