// Package api owns the HTTP surface: the Echo server and its middleware,
// the GET / handler (identify the caller, parse, count the quota, answer
// from cache or render once for every identical request, respond), embed,
// health, and the one mapping from any failure to the error envelope. It
// is the only orchestrator package that imports Echo; only the root
// package imports it.
package api
