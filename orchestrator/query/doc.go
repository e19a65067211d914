// Package query turns a raw query string into a validated *Request: one
// file per parameter family (pdf, screenshot, controls, data rules, meta,
// cache), the target URL's parsing and the address rule (CheckTarget), the
// device presets, the cache key and the parse memo. Parsers return values;
// nothing here touches a browser, storage or Echo. It imports only apierr
// and overlay (to read an overlay's background) of the orchestrator's
// packages.
package query
