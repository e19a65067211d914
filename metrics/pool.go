package metrics

import "github.com/prometheus/client_golang/prometheus"

// PoolSnapshot is the pool's live state, read once per scrape.
type PoolSnapshot struct {
	Sidecars []SidecarState
	Queued   int // requests waiting for a lease
	QueueCap int
}

// SidecarState is one sidecar as the pool sees it.
type SidecarState struct {
	Addr     string // host:port; the sidecar label, bounded by the number of sidecars
	State    string // SidecarHealthy, SidecarUnhealthy or SidecarDraining
	InUse    int    // leases held now
	Capacity int    // leases this orchestrator may hold at once
	Warm     int    // browser targets kept open for the next lease
}

// Values of SidecarState.State and of the state label of glimpse_pool_sidecars.
const (
	SidecarHealthy   = "healthy"
	SidecarUnhealthy = "unhealthy"
	SidecarDraining  = "draining"
)

// RegisterPool exports the pool's state, read from snapshot at scrape time:
// glimpse_pool_sidecars{state}, glimpse_pool_leases_in_use{sidecar},
// glimpse_pool_capacity{sidecar}, glimpse_pool_warm_targets{sidecar},
// glimpse_pool_queue_length and glimpse_pool_queue_capacity. snapshot must
// be safe to call from several goroutines at once. A nil reg registers
// nothing; a second registration panics, as MustRegister does.
func RegisterPool(reg prometheus.Registerer, snapshot func() PoolSnapshot) {
	if snapshot == nil {
		panic("metrics: RegisterPool needs a snapshot function")
	}
	if reg == nil {
		return
	}
	reg.MustRegister(newPoolCollector(snapshot))
}

type poolCollector struct {
	snapshot                                   func() PoolSnapshot
	sidecars, inUse, capacity, warm, queue, qc *prometheus.Desc
}

func newPoolCollector(snapshot func() PoolSnapshot) *poolCollector {
	name := func(n string) string { return prometheus.BuildFQName(Namespace, "pool", n) }
	sidecar := []string{"sidecar"}
	return &poolCollector{
		snapshot: snapshot,
		sidecars: prometheus.NewDesc(name("sidecars"),
			"Sidecars known to the pool, by state: healthy, unhealthy, draining.", []string{"state"}, nil),
		inUse: prometheus.NewDesc(name("leases_in_use"),
			"Browser leases this orchestrator holds on each sidecar.", sidecar, nil),
		capacity: prometheus.NewDesc(name("capacity"),
			"Browser leases this orchestrator may hold at once on each sidecar.", sidecar, nil),
		warm: prometheus.NewDesc(name("warm_targets"),
			"Browser targets kept open on each sidecar for the next lease.", sidecar, nil),
		queue: prometheus.NewDesc(name("queue_length"),
			"Requests waiting for a browser lease.", nil, nil),
		qc: prometheus.NewDesc(name("queue_capacity"),
			"Requests that may wait for a browser lease before new ones are refused with EBUSY.", nil, nil),
	}
}

func (c *poolCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.sidecars, c.inUse, c.capacity, c.warm, c.queue, c.qc} {
		ch <- d
	}
}

func (c *poolCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.snapshot()

	byState := map[string]int{SidecarHealthy: 0, SidecarUnhealthy: 0, SidecarDraining: 0}
	// The pool should list each address once; should it ever list one twice
	// (a sidecar re-resolved while the old entry drains), the entries are
	// added up, because two series with the same labels would fail the
	// whole scrape.
	type usage struct{ inUse, capacity, warm int }
	byAddr := map[string]*usage{}
	var order []string
	for _, sc := range s.Sidecars {
		byState[sc.State]++
		u, ok := byAddr[sc.Addr]
		if !ok {
			u = &usage{}
			byAddr[sc.Addr] = u
			order = append(order, sc.Addr)
		}
		u.inUse += sc.InUse
		u.capacity += sc.Capacity
		u.warm += sc.Warm
	}

	for state, n := range byState {
		ch <- prometheus.MustNewConstMetric(c.sidecars, prometheus.GaugeValue, float64(n), state)
	}
	for _, addr := range order {
		u := byAddr[addr]
		ch <- prometheus.MustNewConstMetric(c.inUse, prometheus.GaugeValue, float64(u.inUse), addr)
		ch <- prometheus.MustNewConstMetric(c.capacity, prometheus.GaugeValue, float64(u.capacity), addr)
		ch <- prometheus.MustNewConstMetric(c.warm, prometheus.GaugeValue, float64(u.warm), addr)
	}
	ch <- prometheus.MustNewConstMetric(c.queue, prometheus.GaugeValue, float64(s.Queued))
	ch <- prometheus.MustNewConstMetric(c.qc, prometheus.GaugeValue, float64(s.QueueCap))
}
