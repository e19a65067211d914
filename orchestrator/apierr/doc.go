// Package apierr owns the API's one error type: its codes, the one table
// that gives each code its HTTP status, the envelope an error is sent as,
// and the safe quoting of a caller's input in messages. It imports nothing
// of glimpse's orchestrator; every other orchestrator package may import
// it. Turning other packages' typed errors into codes is left to api.
package apierr
