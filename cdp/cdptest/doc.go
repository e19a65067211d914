// Package cdptest is a scripted DevTools browser for tests of DevTools
// clients. A Peer is the browser's end of one connection, over a loopback
// WebSocket (Server) or an in-memory transport (Pipe): it answers commands
// by a Script or leaves them to the test to answer by hand, sends events,
// records every message it received, and injects the faults a real browser
// shows now and then: replies that come late or never, protocol errors,
// malformed messages, crashed targets and connections that drop without a
// goodbye.
//
// It speaks the protocol's JSON and does not import glimpse's client, so
// the client's own tests use it as well as the tests of its users.
package cdptest
