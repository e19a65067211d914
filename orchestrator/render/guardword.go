package render

import (
	"context"
	"crypto/rand"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/glimpse/glimpse/sidecar/guard"
)

// The egress guard's word (its X-Glimpse-Guard header: refused, blocked,
// timeout, …) decides how a render fails, so only the guard may give it.
// It is read only on the proxy hop, where the guard answers itself: a
// tunnel's CONNECT, or a plain http answer, which passes the guard; an
// https answer comes through a tunnel from the target alone. And it is
// read only with its mark (guard.MarkHeader), which a target cannot make:
// the guard strips both headers from whatever it forwards, and even a
// copied mark holds for one word, host and request only.

// guardWord is the guard's word on an answer for target, whose headers
// are get, to a request that carried nonce ("" for the browser's own):
// "" unless the answer came over the proxy hop and its mark holds.
func guardWord(marks *guard.Marks, target string, get func(string) string, nonce string) string {
	u, err := url.Parse(target)
	if err != nil || !strings.EqualFold(u.Scheme, "http") {
		return ""
	}
	return marks.Word(get, u.Host, nonce)
}

// newNonce is a fresh value that binds the guard's mark to one request.
func newNonce() string { return rand.Text() }

// askListed asks a sidecar's guard whether its ad-block list names host.
// The answer is the guard's own, marked and bound to this question;
// nothing reaches the host.
func (f *staticFetcher) askListed(ctx context.Context, host string) (bool, error) {
	if f == nil {
		return false, errNoEgress
	}
	u := &url.URL{Scheme: "http", Host: host, Path: "/"}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return false, err
	}
	nonce := newNonce()
	req.Header.Set(guard.AskHeader, "listed")
	req.Header.Set(guard.NonceHeader, nonce)
	resp, err := f.client.Do(req)
	if err != nil {
		return false, err
	}
	resp.Body.Close()
	switch f.marks.Word(resp.Header.Get, host, nonce) {
	case "blocked":
		return true, nil
	case "unlisted":
		return false, nil
	}
	return false, fmt.Errorf("%w: the egress guard gave no marked answer to whether %s is listed (HTTP %d)", ErrEgress, host, resp.StatusCode)
}
