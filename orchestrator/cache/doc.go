// Package cache owns finished answers: entries in a memory LRU bounded by
// bytes in front of the shared store, their compressed bodies, and the
// single flight that renders one answer for every identical request. It
// knows nothing of requests or rendering and imports none of the
// orchestrator's packages; only storage and metrics.
package cache
