package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/glimpse/glimpse/sidecar/guard"
)

// The error codes of the API (API.md "Errors"). They are part of the wire
// contract: clients switch on them, so they never change spelling.
const (
	CodeInvalidURL   = "EINVALURL"
	CodeForbiddenURL = "EFORBIDDENURL"
	CodeInvalidQuery = "EINVALQUERY"
	CodePageRange    = "EPAGERANGE"
	CodeMaxRedirects = "EMAXREDIRECTS"
	CodeAuth         = "EAUTH"
	CodeRate         = "ERATE"
	CodeBusy         = "EBUSY"
	CodeTimeout      = "ETIMEOUT"
	CodeFatal        = "EFATAL"

	// Codes outside API.md's table, for answers that are not about a page:
	// an unknown path, a method other than GET/HEAD, and a target that
	// answered with something that is not a page.
	CodeNotFound = "ENOTFOUND"
	CodeMethod   = "EMETHOD"
	CodeFetch    = "EFETCH"
)

// codeStatus is the HTTP status of each code. A code missing from it is a
// programming mistake and answers 500, never a 4xx that blames the caller.
var codeStatus = map[string]int{
	CodeInvalidURL:   http.StatusBadRequest,
	CodeForbiddenURL: http.StatusBadRequest,
	CodeInvalidQuery: http.StatusBadRequest,
	CodePageRange:    http.StatusBadRequest,
	CodeMaxRedirects: http.StatusBadRequest,
	CodeAuth:         http.StatusUnauthorized,
	CodeRate:         http.StatusTooManyRequests,
	CodeBusy:         http.StatusServiceUnavailable,
	CodeTimeout:      http.StatusGatewayTimeout,
	CodeFatal:        http.StatusInternalServerError,
	CodeNotFound:     http.StatusNotFound,
	CodeMethod:       http.StatusMethodNotAllowed,
	CodeFetch:        http.StatusBadGateway,
}

// ErrorDocsBase is where the `more` link of every error points; the code in
// lower case is the anchor. Set it once at start-up, before serving.
var ErrorDocsBase = "https://glimpse.dev/docs/errors"

// fatalMessage is all a caller learns about an unexpected failure; the cause
// goes to the log under the same request id.
const fatalMessage = "glimpse could not answer because of an unexpected error on its side; " +
	"try again, and if it keeps failing, report it with this request id"

// Error is the one error type of the API. Message, Param and Data are
// public; Err is the internal cause, which is logged and never sent.
type Error struct {
	Code       string         // one of the Code* constants
	Status     int            // HTTP status, derived from Code
	Message    string         // says what to change
	Param      string         // the query parameter concerned, if any
	Data       map[string]any // the envelope's "data", such as {"url": "no"}
	RetryAfter time.Duration  // for ERATE and EBUSY: when trying again makes sense
	Err        error          // internal cause
}

// NewError makes an error whose status follows from its code.
func NewError(code, message string) *Error {
	return &Error{Code: code, Status: statusOf(code), Message: message}
}

// Fatal wraps an unexpected failure. The caller sees a generic message with
// the request id; the cause stays in Err for the log.
func Fatal(cause error) *Error {
	e := NewError(CodeFatal, fatalMessage)
	e.Err = cause
	return e
}

// AsError turns any error into *Error. An *Error anywhere in the chain wins;
// a refusal or failed lookup by the address rule becomes EFORBIDDENURL or
// EINVALURL; a passed deadline becomes ETIMEOUT; anything else is EFATAL with
// the cause kept. AsError(nil) is nil.
func AsError(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) && e != nil {
		if e.Status == 0 {
			e.Status = statusOf(e.Code)
		}
		return e
	}
	var refused *guard.RefusedError
	if errors.As(err, &refused) {
		out := forbiddenHostError(refused)
		out.Err = err
		return out
	}
	var lookup *guard.LookupError
	if errors.As(err, &lookup) {
		out := unresolvableHostError(lookup.Host)
		out.Err = err
		return out
	}
	if errors.Is(err, context.DeadlineExceeded) {
		out := NewError(CodeTimeout, "The request took longer than its `timeout`; "+
			"raise `timeout` (in milliseconds, or with a unit such as `30s`) or try again later.")
		out.Param = "timeout"
		out.Err = err
		return out
	}
	return Fatal(err)
}

// Error is for logs: code, public message and internal cause in one line.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Code)
	b.WriteString(": ")
	b.WriteString(e.Message)
	if e.Err != nil {
		b.WriteString(" (cause: ")
		b.WriteString(e.Err.Error())
		b.WriteString(")")
	}
	return b.String()
}

// Unwrap exposes the internal cause to errors.Is and errors.As.
func (e *Error) Unwrap() error { return e.Err }

// ErrorEnvelope is the JSON body of an error answer.
type ErrorEnvelope struct {
	Status  string         `json:"status"` // "fail" for 4xx, "error" for 5xx
	Code    string         `json:"code"`
	Message string         `json:"message"`
	More    string         `json:"more"`
	Data    map[string]any `json:"data"`
}

// Envelope is the body sent for e. The request id appears in it only at the
// end of EFATAL's message, because that message carries nothing else a
// caller could report; every answer has the id in x-request-id anyway.
func (e *Error) Envelope(requestID string) ErrorEnvelope {
	status := e.Status
	if status == 0 {
		status = statusOf(e.Code)
	}
	env := ErrorEnvelope{
		Status:  "fail",
		Code:    e.Code,
		Message: e.Message,
		More:    ErrorDocsBase + "#" + strings.ToLower(e.Code),
		Data:    e.Data,
	}
	if status >= 500 {
		env.Status = "error"
	}
	if env.Data == nil {
		// Clients read data.url without checking for null first.
		env.Data = map[string]any{}
	}
	if e.Code == CodeFatal && requestID != "" {
		env.Message = strings.TrimRight(env.Message, ". ") + " (request " + requestID + ")"
	}
	return env
}

func statusOf(code string) int {
	if s, ok := codeStatus[code]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// queryError is a bad parameter value: EINVALQUERY naming the parameter, and
// the value given in data so the caller sees what glimpse received.
func queryError(param, value, format string, args ...any) *Error {
	e := NewError(CodeInvalidQuery, fmt.Sprintf(format, args...))
	e.Param = param
	e.Data = map[string]any{param: clip(value, maxDataValue)}
	return e
}

// urlError is EINVALURL for the given target spelling.
func urlError(raw, format string, args ...any) *Error {
	e := NewError(CodeInvalidURL, fmt.Sprintf(format, args...))
	e.Param = "url"
	e.Data = map[string]any{"url": clip(raw, maxDataValue)}
	return e
}

func forbiddenHostError(r *guard.RefusedError) *Error {
	// The resolved address stays out of the message: echoing it would let a
	// caller map the internal DNS of the network glimpse runs in.
	e := NewError(CodeForbiddenURL, fmt.Sprintf(
		"The host %s resolves to a non-public address (%s), and glimpse only fetches pages on public addresses; use a publicly reachable URL.",
		show(r.Host), reasonOrDefault(r.Reason)))
	e.Param = "url"
	e.Data = map[string]any{"host": clip(r.Host, maxDataValue)}
	return e
}

func unresolvableHostError(host string) *Error {
	e := NewError(CodeInvalidURL, fmt.Sprintf(
		"The host %s does not resolve to any address; check the spelling of the URL.", show(host)))
	e.Param = "url"
	e.Data = map[string]any{"host": clip(host, maxDataValue)}
	return e
}

// maxShown and maxDataValue bound how much of a caller's input is echoed:
// enough to recognise it, not enough to turn an error into an amplifier.
const (
	maxShown     = 120
	maxDataValue = 2048
)

// show quotes a caller's value for a message: in backticks, control bytes
// and broken UTF-8 made visible, long values cut with an ellipsis.
func show(s string) string {
	var b strings.Builder
	b.WriteByte('`')
	n := 0
	for i := 0; i < len(s); {
		if n == maxShown {
			b.WriteString("…")
			break
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			fmt.Fprintf(&b, `\x%02x`, r)
		case unicode.Is(unicode.Cf, r) || (unicode.IsSpace(r) && r != ' '):
			// Invisible characters are what make two spellings look equal.
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
		n++
	}
	b.WriteByte('`')
	return b.String()
}

// clip cuts s to at most n bytes without splitting a UTF-8 sequence.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && i > n-4 && s[i]&0xc0 == 0x80 {
		i--
	}
	return s[:i] + "…"
}
