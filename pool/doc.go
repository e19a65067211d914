// Package pool owns the set of browser sidecars the orchestrator may use:
// which ones exist (a static list or the addresses behind a DNS name, such as
// a Kubernetes headless Service), whether each is healthy, and leases of a
// fresh browser context with one page on them, with a per-sidecar limit and a
// bounded wait queue. It knows nothing of HTTP API parameters; it speaks to a
// sidecar only through its /healthz and its DevTools WebSockets: one per
// sidecar for contexts and pages, and one per lease to its own page.
package pool
