package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
)

// Quota holds the collectors of the quota store that replicas share
// (Redis, with GLIMPSE_REDIS_URL).
type Quota struct {
	// BackendErrors: glimpse_quota_backend_errors_total, quota operations
	// the shared store failed; each request was counted by its replica
	// alone instead. Without a shared store it stays at zero.
	BackendErrors prometheus.Counter
}

// NewQuota creates the quota collectors and registers them with reg; a nil
// reg leaves them unregistered. A second registration panics, as
// MustRegister does.
func NewQuota(reg prometheus.Registerer) *Quota {
	return &Quota{
		BackendErrors: promauto.With(reg).NewCounter(prometheus.CounterOpts{
			Namespace: Namespace, Subsystem: "quota", Name: "backend_errors_total",
			Help: "Quota operations the shared store (Redis) failed; each of those requests was counted by its replica alone.",
		}),
	}
}
