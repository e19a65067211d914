// Package metrics owns every Prometheus collector of glimpse: their names,
// help texts, label sets and buckets live here and nowhere else, so the
// dashboard and alerts in the Helm chart can be checked against one list.
// It holds no business logic: callers observe values, or hand in snapshot
// functions that this package reads at scrape time.
package metrics
