package metrics

import "github.com/prometheus/client_golang/prometheus"

// CacheSnapshot is the in-memory response cache's size, read once per scrape.
type CacheSnapshot struct {
	Entries  int
	Bytes    int64
	MaxBytes int64
}

// RegisterCache exports glimpse_cache_entries, glimpse_cache_memory_bytes
// and glimpse_cache_memory_limit_bytes, read from snapshot at scrape time.
// snapshot must be safe to call from several goroutines at once. A nil reg
// registers nothing; a second registration panics, as MustRegister does.
func RegisterCache(reg prometheus.Registerer, snapshot func() CacheSnapshot) {
	if snapshot == nil {
		panic("metrics: RegisterCache needs a snapshot function")
	}
	if reg == nil {
		return
	}
	reg.MustRegister(newCacheCollector(snapshot))
}

type cacheCollector struct {
	snapshot              func() CacheSnapshot
	entries, bytes, limit *prometheus.Desc
}

func newCacheCollector(snapshot func() CacheSnapshot) *cacheCollector {
	name := func(n string) string { return prometheus.BuildFQName(Namespace, "cache", n) }
	return &cacheCollector{
		snapshot: snapshot,
		entries:  prometheus.NewDesc(name("entries"), "Responses held in the in-memory cache.", nil, nil),
		bytes:    prometheus.NewDesc(name("memory_bytes"), "Bytes held by the in-memory cache.", nil, nil),
		limit:    prometheus.NewDesc(name("memory_limit_bytes"), "Bytes the in-memory cache may hold before it evicts.", nil, nil),
	}
}

func (c *cacheCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.entries
	ch <- c.bytes
	ch <- c.limit
}

func (c *cacheCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.snapshot()
	ch <- prometheus.MustNewConstMetric(c.entries, prometheus.GaugeValue, float64(s.Entries))
	ch <- prometheus.MustNewConstMetric(c.bytes, prometheus.GaugeValue, float64(s.Bytes))
	ch <- prometheus.MustNewConstMetric(c.limit, prometheus.GaugeValue, float64(s.MaxBytes))
}
