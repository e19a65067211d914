// Package cdp is glimpse's small client for the Chrome DevTools protocol. It
// owns one WebSocket per browser, or per page when a connection goes to a
// page's own endpoint: a single read loop, pending calls keyed by
// id and bounded by their context, events fanned out per flattened session,
// and the end of sessions when the browser detaches or crashes them. The
// message types come from cdproto; what a page means, and which browser to
// talk to, are left to the pool, the sidecar and the orchestrator.
package cdp
