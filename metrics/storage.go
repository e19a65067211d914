package metrics

import "github.com/prometheus/client_golang/prometheus"

// Reasons the local store's sweeper deletes a file, the values of the reason
// label of glimpse_storage_swept_objects_total and
// glimpse_storage_swept_bytes_total.
const (
	SweptAge     = "age"     // older than the longest a cached answer can name it
	SweptBudget  = "budget"  // the oldest, removed to bring the directory under its byte budget
	SweptPartial = "partial" // left behind by a write that was interrupted
)

// SweepReasons lists every reason, in the order they are exported.
var SweepReasons = [...]string{SweptAge, SweptBudget, SweptPartial}

// LocalStorageSnapshot is the local store's state, read once per scrape.
type LocalStorageSnapshot struct {
	// Bytes is the size of every file in the storage directory, metadata
	// and temporary files included, and Objects the number of stored
	// objects, both as the last sweep found them.
	Bytes   int64
	Objects int64
	// MaxBytes is the byte budget the sweeper keeps; 0 when there is none.
	MaxBytes int64
	// SweptObjects and SweptBytes count what the sweeper deleted, ever, by
	// one of SweepReasons; a missing reason counts 0.
	SweptObjects map[string]int64
	SweptBytes   map[string]int64
	// VolumeBytes and VolumeFreeBytes are the size of the filesystem that
	// holds the directory and the bytes on it that glimpse may still
	// write, read at scrape time; both 0 when they cannot be read.
	VolumeBytes     int64
	VolumeFreeBytes int64
}

// RegisterLocalStorage exports glimpse_storage_local_bytes,
// glimpse_storage_local_objects, glimpse_storage_local_limit_bytes,
// glimpse_storage_swept_objects_total{reason},
// glimpse_storage_swept_bytes_total{reason},
// glimpse_storage_local_volume_bytes and
// glimpse_storage_local_volume_free_bytes, read from snapshot at scrape
// time. Only the local store has a sweeper; an S3 bucket is bounded by its
// lifecycle rules and registers nothing. snapshot must be safe to call from
// several goroutines at once. A nil reg registers nothing; a second
// registration panics, as MustRegister does.
func RegisterLocalStorage(reg prometheus.Registerer, snapshot func() LocalStorageSnapshot) {
	if snapshot == nil {
		panic("metrics: RegisterLocalStorage needs a snapshot function")
	}
	if reg == nil {
		return
	}
	reg.MustRegister(newLocalStorageCollector(snapshot))
}

type localStorageCollector struct {
	snapshot                 func() LocalStorageSnapshot
	bytes, objects, limit    *prometheus.Desc
	sweptObjects, sweptBytes *prometheus.Desc
	volume, volumeFree       *prometheus.Desc
}

func newLocalStorageCollector(snapshot func() LocalStorageSnapshot) *localStorageCollector {
	name := func(n string) string { return prometheus.BuildFQName(Namespace, "storage", n) }
	reason := []string{"reason"}
	return &localStorageCollector{
		snapshot: snapshot,
		bytes: prometheus.NewDesc(name("local_bytes"),
			"Bytes in the local storage directory, as measured by the last sweep.", nil, nil),
		objects: prometheus.NewDesc(name("local_objects"),
			"Objects stored in the local storage directory, as counted by the last sweep.", nil, nil),
		limit: prometheus.NewDesc(name("local_limit_bytes"),
			"Bytes the sweeper keeps the local storage directory under; 0 when there is no budget.", nil, nil),
		sweptObjects: prometheus.NewDesc(name("swept_objects_total"),
			"Objects, and files of interrupted writes, that the local store's sweeper deleted, by reason: age, budget, partial.", reason, nil),
		sweptBytes: prometheus.NewDesc(name("swept_bytes_total"),
			"Bytes the local store's sweeper freed, by reason: age, budget, partial.", reason, nil),
		volume: prometheus.NewDesc(name("local_volume_bytes"),
			"Size of the filesystem that holds the local storage directory.", nil, nil),
		volumeFree: prometheus.NewDesc(name("local_volume_free_bytes"),
			"Bytes glimpse may still write on the filesystem that holds the local storage directory.", nil, nil),
	}
}

func (c *localStorageCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.bytes, c.objects, c.limit, c.sweptObjects, c.sweptBytes, c.volume, c.volumeFree} {
		ch <- d
	}
}

func (c *localStorageCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.snapshot()
	ch <- prometheus.MustNewConstMetric(c.bytes, prometheus.GaugeValue, float64(s.Bytes))
	ch <- prometheus.MustNewConstMetric(c.objects, prometheus.GaugeValue, float64(s.Objects))
	ch <- prometheus.MustNewConstMetric(c.limit, prometheus.GaugeValue, float64(s.MaxBytes))
	ch <- prometheus.MustNewConstMetric(c.volume, prometheus.GaugeValue, float64(s.VolumeBytes))
	ch <- prometheus.MustNewConstMetric(c.volumeFree, prometheus.GaugeValue, float64(s.VolumeFreeBytes))
	// Every reason is exported, 0 included, so rate() sees the first deletion.
	for _, reason := range SweepReasons {
		ch <- prometheus.MustNewConstMetric(c.sweptObjects, prometheus.CounterValue, float64(s.SweptObjects[reason]), reason)
		ch <- prometheus.MustNewConstMetric(c.sweptBytes, prometheus.CounterValue, float64(s.SweptBytes[reason]), reason)
	}
}
