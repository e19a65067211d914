package render

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/glimpse/glimpse/cdp"
)

// Kind says what went wrong in a render, in terms of the page and the
// browser; package api turns each kind into the API's code and status.
type Kind int

const (
	// Unreadable: the target failed in a way that trying again at once
	// does not mend: a refused or reset connection, a bad certificate, an
	// answer that is malformed, too large or undecodable, a page that
	// crashes its tab.
	Unreadable Kind = iota + 1
	// TooManyRedirects: the target redirected past MaxRedirects.
	TooManyRedirects
	// Forbidden: the target, a redirect hop or the page's own document
	// resolved to an address the address rule refuses.
	Forbidden
	// Unresolvable: a host along the way does not resolve.
	Unresolvable
	// TimedOut: the request's deadline passed first.
	TimedOut
	// BadInput: a caller's value the page itself refused, such as a
	// selector that matches nothing or a script that throws.
	BadInput
	// BadPageRange: the PDF's page ranges are outside the document.
	BadPageRange
	// Busy: no browser could be leased (queue full, or shutting down).
	Busy
	// BrowserLost: the browser went away under the render, twice.
	BrowserLost
)

// Error is a render's failure with a message a caller can act on. Param
// and Value name the caller's parameter when the failure is about one;
// URL is the address concerned for Forbidden and Unresolvable, Reason why
// it was refused.
type Error struct {
	Kind       Kind
	Message    string
	Param      string
	Value      string
	URL        string
	Reason     string
	RetryAfter time.Duration
	Err        error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return e.Message + " (cause: " + e.Err.Error() + ")"
	}
	return e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// MaxRedirects is the limit of docs/api.md#the-target-url: exactly 10 hops
// is fine, 11 is not.
const MaxRedirects = 10

// errLeaseLost marks a render that failed because its browser went away;
// it is worth one retry on another sidecar.
var errLeaseLost = errors.New("the browser went away during the render")

// errListedDocument marks a render whose page itself (the target, or a
// redirect of it) was refused by the ad-block list of the egress guard; it
// is rendered again without the list.
var errListedDocument = errors.New("the page is on a host of the ad-block list")

func unreadable(msg string) error { return &Error{Kind: Unreadable, Message: msg} }

func tooManyRedirects(hops int) error {
	return &Error{Kind: TooManyRedirects,
		Message: fmt.Sprintf("The target redirected more than %d times (at least %d hops); give the final URL instead.", MaxRedirects, hops)}
}

// guardError is the egress guard's word on a connection it did not make
// (the values of its X-Glimpse-Guard header). Only a refusal by the
// address rule is EFORBIDDENURL; a target that did not accept the
// connection is the target's failure, and the guard's own trouble is the
// service's.
func guardError(target, reason string) error {
	switch reason {
	case "refused", "blocked":
		return &Error{Kind: Forbidden, URL: target}
	case "unresolvable":
		return &Error{Kind: Unresolvable, URL: target}
	case "unreachable":
		return &Error{Kind: Unreadable, URL: target,
			Message: "The target refused or dropped the connection; check the URL's host and port, and that it serves a page."}
	case "timeout":
		return &Error{Kind: TimedOut, URL: target, Message: "The target did not accept the connection in time; retry, or raise `timeout`."}
	}
	return fmt.Errorf("the egress guard could not fetch %s: %s", target, reason)
}

func timeoutError(ctx context.Context, msg string) error {
	return &Error{Kind: TimedOut, Err: ctx.Err(), Message: msg + "; retry, or raise `timeout`."}
}

// badInput is a caller's value that the page refused.
func badInput(param, value, format string, args ...any) error {
	return &Error{Kind: BadInput, Param: param, Value: value, Message: fmt.Sprintf(format, args...)}
}

// netErrorClasses sort Chromium's net errors by what the caller can do
// about them. Everything here is the target's doing and would fail the same
// way if tried again at once: it becomes Unreadable, whose status clients
// do not retry. A name matches when the error text contains it.
var netErrorClasses = []struct {
	names []string
	msg   string
}{
	{[]string{"ERR_CONNECTION_REFUSED"},
		"The target refused the connection: nothing answers on that host and port; check the URL."},
	{[]string{"ERR_CERT_", "ERR_SSL_", "ERR_BAD_SSL_", "ERR_TLS_"},
		"The target's TLS certificate or handshake is not valid (%s); use a URL whose certificate browsers accept."},
	{[]string{"ERR_CONNECTION_CLOSED", "ERR_CONNECTION_RESET", "ERR_EMPTY_RESPONSE", "ERR_CONNECTION_ABORTED", "ERR_CONNECTION_FAILED", "ERR_TUNNEL_CONNECTION_FAILED"},
		"The target closed the connection without a usable answer (%s); check that the URL serves a page."},
	{[]string{"ERR_CONTENT_DECODING_FAILED", "ERR_CONTENT_DECODING_INIT_FAILED"},
		"The target's answer is compressed with an encoding it does not decode correctly (%s); the target must serve it uncompressed, gzip or br."},
	{[]string{"ERR_RESPONSE_HEADERS_TOO_BIG", "ERR_FILE_TOO_BIG", "ERR_CONTENT_LENGTH_MISMATCH", "ERR_INCOMPLETE_CHUNKED_ENCODING",
		"ERR_INVALID_HTTP_RESPONSE", "ERR_RESPONSE_HEADERS_MULTIPLE_", "ERR_INVALID_RESPONSE", "ERR_HTTP2_PROTOCOL_ERROR"},
		"The target's answer is malformed or too large for a browser (%s)."},
	{[]string{"ERR_ADDRESS_UNREACHABLE", "ERR_ADDRESS_INVALID"},
		"The target's address cannot be reached (%s); check the URL."},
	{[]string{"ERR_ABORTED"},
		"The target's answer was not a page (the browser aborted it)."},
}

// serviceNetErrors are failures of glimpse's own way out (the sidecar's
// egress proxy, the sidecar's network), not of the target: unexpected,
// and worth a retry.
var serviceNetErrors = []string{"ERR_PROXY_CONNECTION_FAILED", "ERR_NETWORK_CHANGED", "ERR_INTERNET_DISCONNECTED", "ERR_NETWORK_IO_SUSPENDED"}

// navigationError maps Chromium's net error names to render errors.
func navigationError(text string) error {
	name := strings.TrimPrefix(strings.TrimSpace(text), "net::")
	switch {
	case strings.Contains(text, "ERR_TOO_MANY_REDIRECTS"):
		return tooManyRedirects(MaxRedirects + 1)
	case strings.Contains(text, "ERR_NAME_NOT_RESOLVED"), strings.Contains(text, "ERR_NAME_RESOLUTION_FAILED"):
		return &Error{Kind: Unresolvable, Message: "The target's host does not resolve; check the URL."}
	case strings.Contains(text, "ERR_TIMED_OUT"), strings.Contains(text, "ERR_CONNECTION_TIMED_OUT"):
		return &Error{Kind: TimedOut, Message: "The target did not answer in time."}
	}
	for _, s := range serviceNetErrors {
		if strings.Contains(text, s) {
			return fmt.Errorf("the browser could not reach the network through its egress proxy: %s", name)
		}
	}
	for _, c := range netErrorClasses {
		for _, n := range c.names {
			if strings.Contains(text, n) {
				if strings.Contains(c.msg, "%s") {
					return unreadable(fmt.Sprintf(c.msg, name))
				}
				return unreadable(c.msg)
			}
		}
	}
	return unreadable(fmt.Sprintf("The target could not be loaded (%s).", name))
}

// browserError wraps a failed DevTools call: a time-out when the request's
// budget ran out, the lease lost when the browser went away, else an
// unexpected failure that is the service's.
func browserError(ctx context.Context, step string, err error) error {
	// The step may run on its own shorter context (reading the DOM does), whose
	// deadline can pass before the request's own timer fires.
	if (ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded)) || errors.Is(err, context.DeadlineExceeded) {
		return timeoutError(ctx, "The page did not finish "+step+" within the `timeout`")
	}
	switch {
	case errors.Is(err, cdp.ErrMessageTooLarge):
		return pageOverLimit(err)
	case errors.Is(err, errPageScript):
		return &Error{Kind: Unreadable, Err: err,
			Message: "The page could not be read while " + step + " (its document is not one a browser script can read)."}
	case errors.Is(err, cdp.ErrClosed) || errors.Is(err, cdp.ErrSessionClosed):
		return fmt.Errorf("%w: %s: %v", errLeaseLost, step, err)
	}
	return fmt.Errorf("%s: %w", step, err)
}
