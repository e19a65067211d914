package cdp

import (
	"errors"
	"fmt"
)

// ErrClosed is wrapped by every error caused by the end of the connection.
var ErrClosed = errors.New("devtools connection closed")

// ErrSessionClosed is wrapped by every error caused by the end of a session
// while its connection lives on.
var ErrSessionClosed = errors.New("devtools session closed")

// ErrMessageTooLarge is wrapped by the error of a connection that ended
// because the browser sent a message over its read limit. On a connection
// to one page, the page made it so: its own failure, not the browser's.
var ErrMessageTooLarge = errors.New("devtools message over the read limit")

// Error is a protocol error answered by the browser.
type Error struct {
	Method  string // the command that failed, such as "Page.navigate"
	Code    int64  // the JSON-RPC error code, such as -32000
	Message string // the browser's own words
	Data    string // extra detail the browser sometimes adds; often empty
}

func (e *Error) Error() string {
	if e.Data != "" {
		return fmt.Sprintf("the browser refused %s: %s (code %d): %s", e.Method, e.Message, e.Code, e.Data)
	}
	return fmt.Sprintf("the browser refused %s: %s (code %d)", e.Method, e.Message, e.Code)
}

// CodeSidecarFull is the error code a glimpse sidecar answers
// Target.createBrowserContext with when it admits no more pages: the
// sidecar is busy, not broken, and a page may be opened there once one of
// its pages closes. It lies in JSON-RPC's range for server errors, apart
// from the codes Chromium uses.
const CodeSidecarFull int64 = -32090

// IsSidecarFull reports whether err is a sidecar's refusal of a page for
// being full.
func IsSidecarFull(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == CodeSidecarFull
}
