package metrics

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Namespace prefixes every glimpse metric name.
const Namespace = "glimpse"

// NewRegistry returns a registry with the Go runtime, process and build-info
// collectors, ready for the glimpse collectors of one process. A fresh
// registry (rather than the global default one) keeps tests independent and
// stops libraries from slipping their own metrics into /metrics.
func NewRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		collectors.NewBuildInfoCollector(),
	)
	return reg
}

// Handler serves the exposition of g for /metrics on the orchestrator and
// on each sidecar. A collector that fails is logged and left out of the
// answer, so one broken snapshot does not hide every other metric.
func Handler(g prometheus.Gatherer) http.Handler {
	return promhttp.HandlerFor(g, promhttp.HandlerOpts{
		ErrorLog:      handlerLog{},
		ErrorHandling: promhttp.ContinueOnError,
	})
}

// handlerLog adapts promhttp's Println-style logger to slog.
type handlerLog struct{}

func (handlerLog) Println(v ...any) {
	slog.Default().Log(context.Background(), slog.LevelError,
		"Some metrics could not be gathered for /metrics; the rest were served.",
		"cause", fmt.Sprint(v...))
}
