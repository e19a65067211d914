package guard

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net"
	"net/http"
	"strings"
)

// MarkHeader carries the proof that an answer with Header is the guard's
// own: an HMAC of the answer's word, the host asked for and the asker's
// nonce, under a key derived from the sidecar token. A target never
// learns the key (the token stays between the orchestrator and the
// sidecar, and the key is a one-way function of it), so a target that
// sends Header itself cannot send a mark that holds, whatever else it
// learns: a mark read off one answer holds for that word, host and nonce
// only.
const MarkHeader = "X-Glimpse-Guard-Mark"

// NonceHeader carries the orchestrator's fresh value for one proxy
// request on the sidecar's authenticated hop. The sidecar takes it off
// (WithNonce) before anything is forwarded, and the guard binds its
// answer's mark to it, so a mark is good for the one request that asked.
// Chromium's requests carry none; their marks are bound to the empty
// nonce.
const NonceHeader = "X-Glimpse-Guard-Nonce"

// AskHeader on a proxy request of the authenticated hop asks the sidecar a
// question instead of fetching anything: "listed" asks whether the
// ad-block list of the browser's default egress names the request's host.
// The answer is the guard's own, marked: "blocked" (403) or "unlisted"
// (200). Nothing is dialled.
const AskHeader = "X-Glimpse-Guard-Ask"

// Marks makes and checks the guard's marks.
type Marks struct{ key []byte }

// NewMarks derives the key of the marks from the sidecar token, which the
// orchestrator and every sidecar of a deployment share.
func NewMarks(token string) *Marks {
	h := hmac.New(sha256.New, []byte(token))
	h.Write([]byte("glimpse egress guard answers v1"))
	return &Marks{key: h.Sum(nil)}
}

// Mark is the mark of the guard's word kind on an answer for host, to the
// request that carried nonce ("" for none).
func (m *Marks) Mark(kind, host, nonce string) string {
	h := hmac.New(sha256.New, m.key)
	h.Write([]byte(kind + "\x00" + markHost(host) + "\x00" + nonce))
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil))
}

// Holds reports whether mark is the guard's mark of kind for host and
// nonce. A nil Marks holds nothing.
func (m *Marks) Holds(kind, host, nonce, mark string) bool {
	if m == nil || kind == "" || mark == "" {
		return false
	}
	return hmac.Equal([]byte(mark), []byte(m.Mark(kind, host, nonce)))
}

// Word is the guard's word on an answer whose headers are get, for host
// and nonce: the Header value when its mark holds, else "".
func (m *Marks) Word(get func(string) string, host, nonce string) string {
	kind := get(Header)
	if !m.Holds(kind, host, nonce, get(MarkHeader)) {
		return ""
	}
	return kind
}

// markHost is the host a mark names: without a port or brackets, in lower
// case, as the browser and the guard both spell it.
func markHost(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return strings.ToLower(strings.Trim(host, "[]"))
}

type nonceKey struct{}

// WithNonce moves the request's NonceHeader into its context, where the
// guard's answer reads it; the header itself goes no further. Only the
// sidecar's authenticated hop calls it.
func WithNonce(r *http.Request) *http.Request {
	nonce := r.Header.Get(NonceHeader)
	r.Header.Del(NonceHeader)
	if nonce == "" {
		return r
	}
	return r.WithContext(context.WithValue(r.Context(), nonceKey{}, nonce))
}

func nonceOf(r *http.Request) string {
	n, _ := r.Context().Value(nonceKey{}).(string)
	return n
}

// requestHost is the host a proxy request asks for.
func requestHost(r *http.Request) string {
	if r.Method == http.MethodConnect {
		return markHost(r.Host)
	}
	return markHost(r.URL.Host)
}

// AnswerAsk answers a request that carries AskHeader, with blocks as the
// list its question is about, and reports whether it did. The answer is
// the guard's own, and nothing is dialled. Only the sidecar's
// authenticated hop calls it: a page cannot ask.
func (p *Proxy) AnswerAsk(w http.ResponseWriter, r *http.Request, blocks func(host string) bool) bool {
	q := r.Header.Get(AskHeader)
	if q == "" {
		return false
	}
	host := requestHost(r)
	switch {
	case q != "listed" || host == "":
		p.answer(w, r, http.StatusBadRequest, "bad-request", "the guard answers X-Glimpse-Guard-Ask: listed, for the host of an absolute-form request")
	case blocks != nil && blocks(host):
		p.answer(w, r, http.StatusForbidden, "blocked", host+" is on the ad-block list")
	default:
		p.answer(w, r, http.StatusOK, "unlisted", host+" is not on the ad-block list")
	}
	return true
}
