package render

import (
	"strings"
)

// Response is what the target's own server answered with the document,
// which Microlink's payload carries beside data: the status, the headers
// and the redirects that led there.
type Response struct {
	StatusCode int
	Headers    map[string]string // lower-case names; credentials left out
	Redirects  []Redirect
	// Cookies are the names of the cookies the page set, for
	// insights.technologies; never their values, never in the answer.
	Cookies []string
}

// Redirect is one hop of the chain: where it was asked for, and the status
// that sent the request on.
type Redirect struct {
	URL        string `json:"url"`
	StatusCode int    `json:"statusCode"`
}

// Bounds of the headers an answer repeats: a target may send many, and
// long ones.
const (
	maxResponseHeaders     = 100
	maxResponseHeaderBytes = 8 << 10
)

// credentialWords mark a header name that may carry a credential: a
// cookie set for the caller's session, a token, a key. Such headers never
// reach an answer, which a cache may share.
var credentialWords = []string{"cookie", "auth", "token", "secret", "session", "password", "credential", "api-key", "apikey"}

// keepHeader reports whether a response header may be repeated in an
// answer. glimpse's own (the egress guard's) are not the target's.
func keepHeader(name string) bool {
	if strings.HasPrefix(name, "x-glimpse-") {
		return false
	}
	for _, w := range credentialWords {
		if strings.Contains(name, w) {
			return false
		}
	}
	return true
}

// addHeader adds one header to h, lower-cased, after the filter and within
// the bounds; repeated values are joined with ", ".
func addHeader(h map[string]string, name string, values ...string) {
	name = strings.ToLower(strings.TrimSpace(name))
	if name == "" || !keepHeader(name) {
		return
	}
	if _, ok := h[name]; !ok && len(h) >= maxResponseHeaders {
		return
	}
	v := strings.Join(values, ", ")
	if old, ok := h[name]; ok {
		v = old + ", " + v
	}
	if len(v) > maxResponseHeaderBytes {
		v = strings.ToValidUTF8(v[:maxResponseHeaderBytes], "")
	}
	h[name] = v
}
