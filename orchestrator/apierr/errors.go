package apierr

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/glimpse/glimpse/sidecar/guard"
)

// The error codes of the API (docs/api.md#codes). They are part of the wire
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

	// Codes glimpse adds to the original contract's, for answers that are
	// not about a page: an unknown path, a method other than GET/HEAD, and
	// a target that failed in a way that trying again does not mend
	// (refused, reset, a bad certificate, an answer no browser can use).
	CodeNotFound = "ENOTFOUND"
	CodeMethod   = "EMETHOD"
	CodeFetch    = "EFETCH"
	// CodeStorage is file storage being unreachable: only answers that
	// store or read a file (PDF, screenshot, their embed) fail with it.
	CodeStorage = "ESTORAGE"
	// CodeTooLarge is a request whose line and headers exceed what glimpse
	// reads.
	CodeTooLarge = "ETOOLARGE"
	// CodeClient is a caller that went away before its answer: it is
	// never sent, but logs and metrics count it apart from failures.
	CodeClient = "ECLIENT"
	// CodeProxyNeeded is a bot wall (a challenge, a CAPTCHA, a block)
	// that answered instead of the page, as Microlink names it: reaching
	// the page takes another way out, a `proxy`.
	CodeProxyNeeded = "EPROXYNEEDED"
)

// StatusClientClosed is the status logged for ECLIENT, after nginx's 499.
const StatusClientClosed = 499

// codeStatus is the HTTP status of each code: the one place a status is
// chosen.
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
	// 424, not 502: clients such as @microlink/mql retry 502 twice, and a
	// target that refused or broke the connection would be visited three
	// times for the same failure.
	CodeFetch:    http.StatusFailedDependency,
	CodeStorage:  http.StatusServiceUnavailable,
	CodeTooLarge: http.StatusRequestHeaderFieldsTooLarge,
	CodeClient:   StatusClientClosed,
	// 403 as most walls answer; ProxyNeeded keeps a wall's 429.
	CodeProxyNeeded: http.StatusForbidden,
}

// ClientRetried are the statuses that got, and so @microlink/mql and the
// microlink CLI, retry on their own (twice, by default). Only failures
// that may pass on a second try get one of them; every other failure's
// status is outside this list, so a client does not repeat the traffic.
var ClientRetried = []int{408, 413, 429, 500, 502, 503, 504, 521, 522, 524}

// Codes lists every code of the table, so metrics can start each series
// at zero.
func Codes() []string {
	out := make([]string, 0, len(codeStatus))
	for c := range codeStatus {
		out = append(out, c)
	}
	slices.Sort(out)
	return out
}

// Status is the HTTP status of a code. A code missing from the table is a
// programming mistake and answers 500, never a 4xx that blames the caller.
func Status(code string) int {
	if s, ok := codeStatus[code]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// DocsPath is where glimpse serves the page that documents its error
// codes, one anchor per code (DocsPage). Unless the operator names another
// page, the `more` link of an error points there, on the address the
// caller reached: documentation every caller of a self-hosted glimpse can
// open.
const DocsPath = "/docs/errors"

// MoreLink is the `more` link of an error with code: the errors page docs,
// with the code in lower case as the anchor.
func MoreLink(docs, code string) string {
	return docs + "#" + strings.ToLower(code)
}

// fatalMessage is all a caller learns about an unexpected failure; the cause
// goes to the log under the same request id.
const fatalMessage = "glimpse could not answer because of an unexpected error on its side; " +
	"try again, and if it keeps failing, report it with this request id"

// Error is the one error type of the API. Message, Param and Data are
// public; Err is the internal cause, which is logged and never sent.
type Error struct {
	Code       string         // one of the Code* constants; the status follows from it
	Message    string         // says what to change
	Param      string         // the query parameter concerned, if any
	Data       map[string]any // the envelope's "data", such as {"url": "no"}
	RetryAfter time.Duration  // for ERATE and EBUSY: when trying again makes sense
	Err        error          // internal cause
	// HTTPStatus, when set, replaces the code's status: EPROXYNEEDED
	// answers 429 when the wall did.
	HTTPStatus int
}

// New makes an error of the given code.
func New(code, message string) *Error {
	return &Error{Code: code, Message: message}
}

// Status is the HTTP status of the error's code.
func (e *Error) Status() int {
	if e.HTTPStatus != 0 {
		return e.HTTPStatus
	}
	return Status(e.Code)
}

// ProxyNeeded is EPROXYNEEDED for a target whose bot wall, of the vendor
// named, answered with status instead of the page.
func ProxyNeeded(target, vendor string, status int) *Error {
	e := New(CodeProxyNeeded, fmt.Sprintf(
		"The URL %s answered with a bot wall of %s instead of the page; glimpse does not pass off a challenge as the page. Give a `proxy` (http://user:pass@host:port) that the site lets through, or try again later.",
		Show(target), vendor))
	e.Param = "proxy"
	e.Data = map[string]any{"url": Clip(target, MaxDataValue)}
	if status == http.StatusTooManyRequests {
		e.HTTPStatus = status
	}
	return e
}

// Fatal wraps an unexpected failure. The caller sees a generic message with
// the request id; the cause stays in Err for the log.
func Fatal(cause error) *Error {
	e := New(CodeFatal, fatalMessage)
	e.Err = cause
	return e
}

// From turns any error into *Error. An *Error anywhere in the chain wins;
// a refusal or failed lookup by the address rule becomes EFORBIDDENURL or
// EINVALURL; a passed deadline becomes ETIMEOUT; anything else is EFATAL with
// the cause kept. From(nil) is nil.
func From(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) && e != nil {
		return e
	}
	var refused *guard.RefusedError
	if errors.As(err, &refused) {
		out := Forbidden(refused.Host, refused.Reason)
		out.Err = err
		return out
	}
	var lookup *guard.LookupError
	if errors.As(err, &lookup) {
		out := Unresolvable(lookup.Host)
		out.Err = err
		return out
	}
	if errors.Is(err, context.DeadlineExceeded) {
		out := New(CodeTimeout, "The request took longer than its `timeout`; "+
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
// docs is the URL of the page that documents the codes, which `more`
// links to.
func (e *Error) Envelope(requestID, docs string) ErrorEnvelope {
	status := e.Status()
	env := ErrorEnvelope{
		Status:  "fail",
		Code:    e.Code,
		Message: e.Message,
		More:    MoreLink(docs, e.Code),
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

// Query is a bad parameter value: EINVALQUERY naming the parameter, and
// the value given in data so the caller sees what glimpse received.
func Query(param, value, format string, args ...any) *Error {
	e := New(CodeInvalidQuery, fmt.Sprintf(format, args...))
	e.Param = param
	e.Data = map[string]any{param: Clip(value, MaxDataValue)}
	return e
}

// URL is EINVALURL for the given target spelling.
func URL(raw, format string, args ...any) *Error {
	e := New(CodeInvalidURL, fmt.Sprintf(format, args...))
	e.Param = "url"
	e.Data = map[string]any{"url": Clip(raw, MaxDataValue)}
	return e
}

// Forbidden is the address rule's refusal, the one wording of it whether
// the target, a redirect hop or a connection of the page was refused.
// target is the URL (or the bare host) concerned; reason says which kind of
// address it resolved to. The resolved address itself stays out: echoing
// it would let a caller map the internal DNS of the network glimpse runs
// in.
func Forbidden(target, reason string) *Error {
	if reason == "" {
		reason = "not public unicast"
	}
	e := New(CodeForbiddenURL, fmt.Sprintf(
		"The URL %s is not allowed: it resolves to a non-public address (%s), and glimpse only fetches pages on public addresses; use a publicly reachable URL.",
		Show(target), reason))
	e.Param = "url"
	e.Data = map[string]any{"url": Clip(target, MaxDataValue)}
	return e
}

// Unresolvable is EINVALURL for a host, or the host of a URL, that does
// not resolve.
func Unresolvable(target string) *Error {
	e := New(CodeInvalidURL, fmt.Sprintf(
		"The URL %s is not valid: its host does not resolve to any address; check the spelling.", Show(target)))
	e.Param = "url"
	e.Data = map[string]any{"url": Clip(target, MaxDataValue)}
	return e
}

// maxShown and MaxDataValue bound how much of a caller's input is echoed:
// enough to recognise it, not enough to turn an error into an amplifier.
const (
	maxShown     = 120
	MaxDataValue = 2048
)

// Show quotes a caller's value for a message: in backticks, control bytes
// and broken UTF-8 made visible, long values cut with an ellipsis.
func Show(s string) string {
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

// Clip cuts s to at most n bytes without splitting a UTF-8 sequence.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && i > n-4 && s[i]&0xc0 == 0x80 {
		i--
	}
	return s[:i] + "…"
}
