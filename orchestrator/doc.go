// Package orchestrator wires glimpse's front service: Config (flags and
// their environment twins), the logger, and App, which starts the pool,
// storage, the embedded sidecar when no sidecars are configured, and the
// HTTP API of package api. Behaviour lives in its subpackages: api (HTTP),
// query (parsing), render (the browser), answer (the data object), cache,
// quota, apierr and meta. Nothing imports this package but its command.
package orchestrator
