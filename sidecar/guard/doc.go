// Package guard owns glimpse's address rule and its enforcement: which
// addresses a target may resolve to (public unicast only, plus a development
// allow-list), a Dialer that resolves once and connects only to the address it
// checked, and the HTTP/CONNECT egress proxy every browser connection passes.
// Launching Chromium, metrics registration and mapping refusals to API error
// codes are left to the sidecar and the orchestrator.
package guard
