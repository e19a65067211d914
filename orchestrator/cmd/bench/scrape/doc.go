// Package scrape reads a Prometheus text exposition (glimpse's /metrics)
// into counters, gauges and histograms, and subtracts two readings so a
// benchmark step can see only its own requests: per-phase time of the
// render, cache hits. Which series matter is the caller's.
package scrape
