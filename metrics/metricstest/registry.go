package metricstest

import (
	"fmt"
	"sort"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/glimpse/glimpse/metrics"
)

// Populated returns a registry from metrics.NewRegistry with every glimpse
// collector registered and every labelled series observed at least once, so
// that gathering it shows each name glimpse can export. Two sidecars are in
// the pool snapshot, because per-sidecar series exist only for listed
// sidecars.
func Populated() *prometheus.Registry {
	reg := metrics.NewRegistry()
	o := metrics.NewOrchestrator(reg)
	o.Requests.WithLabelValues(metrics.CodeOK, metrics.StatusClass(200), metrics.OutputMetadata).Inc()
	o.Requests.WithLabelValues(metrics.CodeOK, metrics.StatusClass(200), metrics.OutputPDF).Inc()
	o.Requests.WithLabelValues("EINVALURL", metrics.StatusClass(400), metrics.OutputNone).Inc()
	o.Requests.WithLabelValues("EBUSY", metrics.StatusClass(503), metrics.OutputScreenshot).Inc()
	o.RequestDuration.WithLabelValues(metrics.CacheStatusMiss, metrics.OutputPDF).Observe(1.2)
	o.RequestDuration.WithLabelValues(metrics.CacheStatusHit, metrics.OutputMetadata).Observe(0.004)
	o.Phase.WithLabelValues(metrics.PhaseNavigate).Observe(0.8)
	o.LeaseWait.Observe(0.02)
	o.BusyRejections.Inc()
	o.Retries.Inc()
	o.EventsDropped.WithLabelValues("Network.requestWillBeSent").Inc()
	o.Cache.WithLabelValues(metrics.CacheHit, metrics.CacheFromMemory).Inc()
	o.Cache.WithLabelValues(metrics.CacheStale, metrics.CacheFromShared).Inc()
	o.RateLimited.WithLabelValues("free").Inc()
	o.PDFs.Inc()
	o.PDFBytes.Add(48200)
	o.StorageErrors.WithLabelValues(metrics.StoragePut).Inc()
	o.GuardRefusals.WithLabelValues(metrics.GuardRedirect).Inc()
	o.EarlyReads.WithLabelValues(metrics.EarlyQuiet).Inc()

	metrics.NewQuota(reg).BackendErrors.Inc()

	metrics.RegisterPool(reg, func() metrics.PoolSnapshot {
		return metrics.PoolSnapshot{
			Sidecars: []metrics.SidecarState{
				{Addr: "10.0.0.7:9230", State: metrics.SidecarHealthy, InUse: 3, Capacity: 4, Warm: 1},
				{Addr: "10.0.0.8:9230", State: metrics.SidecarDraining, InUse: 1, Capacity: 4},
			},
			Queued: 2, QueueCap: 64,
		}
	})
	metrics.RegisterCache(reg, func() metrics.CacheSnapshot {
		return metrics.CacheSnapshot{Entries: 12, Bytes: 1 << 20, MaxBytes: 64 << 20}
	})
	metrics.RegisterLocalStorage(reg, func() metrics.LocalStorageSnapshot {
		return metrics.LocalStorageSnapshot{
			Bytes: 3 << 30, Objects: 1200, MaxBytes: 10 << 30,
			SweptObjects: map[string]int64{metrics.SweptAge: 40, metrics.SweptPartial: 1},
			SweptBytes:   map[string]int64{metrics.SweptAge: 90 << 20, metrics.SweptPartial: 4096},
			VolumeBytes:  20 << 30, VolumeFreeBytes: 12 << 30,
		}
	})
	metrics.RegisterSidecar(reg, func() metrics.SidecarStats {
		return metrics.SidecarStats{
			Up: true, OpenPages: 2, PagesCreated: 140, Restarts: 1, Recycles: 2,
			MemoryBytes: 512 << 20, GuardRefusals: 3, AdsBlocked: 40, AuthRefusals: 2,
			CDPRefusals: map[string]int64{metrics.CDPRefusedMethod: 1},
			MaxPages:    5, AdmittedPages: 4, PagesRefused: 7, BackgroundRefusals: 9,
			BrowserStarted: time.Unix(1_790_000_000, 0),
		}
	})
	return reg
}

// SampleNames returns, sorted, the name of every sample in g's text
// exposition: a histogram contributes its _bucket, _sum and _count names, a
// summary its own name with _sum and _count. These are the names a PromQL
// query can select.
func SampleNames(g prometheus.Gatherer) ([]string, error) {
	families, err := g.Gather()
	if err != nil {
		return nil, fmt.Errorf("gather metrics: %w", err)
	}
	var names []string
	for _, f := range families {
		n := f.GetName()
		switch f.GetType() {
		case dto.MetricType_HISTOGRAM, dto.MetricType_GAUGE_HISTOGRAM:
			names = append(names, n+"_bucket", n+"_sum", n+"_count")
		case dto.MetricType_SUMMARY:
			names = append(names, n, n+"_sum", n+"_count")
		default:
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names, nil
}
