// Package metricstest helps tests check glimpse's metrics against what
// uses them: a registry with every collector populated, the sample names
// it exposes, the queries of the Grafana dashboard with their variables
// filled in, the metric names a PromQL expression selects, and promtool.
// It runs no Prometheus itself; end-to-end tests bring their own.
package metricstest
