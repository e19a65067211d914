package guard

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"testing"
	"time"
)

// markedProxy is a proxy with marks behind the handling of the sidecar's
// authenticated hop (WithNonce, AnswerAsk), with ads.test on its list.
func markedProxy(t *testing.T, marks *Marks) *url.URL {
	t.Helper()
	d := &Dialer{
		Policy: NewPolicy([]netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}),
		Resolver: staticResolver(map[string][]string{
			"allowed.test": {"127.0.0.1"}, "internal.test": {"127.0.0.2"}, "ads.test": {"127.0.0.1"},
		}),
	}
	p := NewProxy(d, nil)
	p.Marks = marks
	blocks := func(host string) bool { return host == "ads.test" }
	filtered := p.Filter(blocks)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r = WithNonce(r)
		if p.AnswerAsk(w, r, blocks) {
			return
		}
		filtered.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { p.Close(); srv.Close() })
	u, _ := url.Parse(srv.URL)
	return u
}

// through is a client of the proxy whose every request and CONNECT carries
// nonce.
func through(t *testing.T, proxy *url.URL, nonce string) *http.Client {
	t.Helper()
	tr := &http.Transport{Proxy: http.ProxyURL(proxy), DisableKeepAlives: true,
		GetProxyConnectHeader: func(context.Context, *url.URL, string) (http.Header, error) {
			return http.Header{NonceHeader: {nonce}}, nil
		},
		OnProxyConnectResponse: func(_ context.Context, _ *url.URL, _ *http.Request, res *http.Response) error {
			if res.StatusCode != http.StatusOK {
				return &connectRefusal{res.Header.Clone()}
			}
			return nil
		},
	}
	return &http.Client{Transport: tr, Timeout: 10 * time.Second}
}

// connectRefusal carries the headers of a refused CONNECT out of the
// transport.
type connectRefusal struct{ h http.Header }

func (c *connectRefusal) Error() string { return "the CONNECT was refused" }

func TestTheGuardMarksItsOwnAnswersForTheHostAndTheRequest(t *testing.T) {
	marks := NewMarks("a sidecar token of the guard tests")
	proxy := markedProxy(t, marks)
	internal := newTrackedServer(t, "127.0.0.2", false, http.NotFoundHandler())
	_, port, _ := net.SplitHostPort(internal.Listener.Addr().String())
	cases := []struct {
		name, url, host, word string
	}{
		{"an address the rule refuses", "http://127.0.0.2:" + port + "/", "127.0.0.2", "refused"},
		{"a host on the list", "http://ads.test/pixel", "ads.test", "blocked"},
		{"a host that does not resolve", "http://nowhere.test/", "nowhere.test", "unresolvable"},
		{"a tunnel the rule refuses", "https://internal.test:" + port + "/", "internal.test", "refused"},
		{"a tunnel to a listed host", "https://ads.test/", "ads.test", "blocked"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodGet, tc.url, nil)
			req.Header.Set(NonceHeader, "nonce-1")
			var h http.Header
			resp, err := through(t, proxy, "nonce-1").Do(req)
			if err == nil {
				resp.Body.Close()
				h = resp.Header
			} else if cr, ok := err.(*url.Error).Err.(*connectRefusal); ok {
				h = cr.h
			} else {
				t.Fatal(err)
			}
			if got := marks.Word(h.Get, tc.host, "nonce-1"); got != tc.word {
				t.Errorf("the answer's marked word is %q (header %q); want %q", got, h.Get(Header), tc.word)
			}
			if marks.Holds(tc.word, tc.host, "another nonce", h.Get(MarkHeader)) || marks.Holds(tc.word, "other.test", "nonce-1", h.Get(MarkHeader)) {
				t.Error("the mark holds for another request or host too")
			}
			if NewMarks("another token").Holds(tc.word, tc.host, "nonce-1", h.Get(MarkHeader)) {
				t.Error("the mark holds under another token")
			}
		})
	}
	if n := internal.requests.Load(); n != 0 {
		t.Errorf("the refused address was reached %d times", n)
	}
}

// What a target sends never carries the guard's mark, and the nonce of
// the request never reaches the target.
func TestAMarkOrANonceNeverPassesTheGuard(t *testing.T) {
	marks := NewMarks("a sidecar token of the guard tests")
	proxy := markedProxy(t, marks)
	var seen http.Header
	target := newTrackedServer(t, "127.0.0.1", false, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = r.Header.Clone()
		w.Header().Set(Header, "refused")
		w.Header().Set(MarkHeader, marks.Mark("refused", "127.0.0.1", "nonce-1"))
		w.WriteHeader(http.StatusForbidden)
		io.WriteString(w, "the target's own page")
	}))
	req, _ := http.NewRequest(http.MethodGet, target.URL+"/", nil)
	req.Header.Set(NonceHeader, "nonce-1")
	resp, err := through(t, proxy, "nonce-1").Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Header.Get(Header) != "" || resp.Header.Get(MarkHeader) != "" {
		t.Errorf("the target's word %q and mark %q passed the guard", resp.Header.Get(Header), resp.Header.Get(MarkHeader))
	}
	if seen == nil || seen.Get(NonceHeader) != "" {
		t.Errorf("the target saw the request's nonce: %v", seen)
	}
}

// The sidecar's authenticated hop may ask whether the list names a host;
// the answer is the guard's own, and nothing is dialled.
func TestTheGuardAnswersWhetherItsListNamesAHost(t *testing.T) {
	marks := NewMarks("a sidecar token of the guard tests")
	proxy := markedProxy(t, marks)
	target := newTrackedServer(t, "127.0.0.1", false, http.NotFoundHandler())
	_, port, _ := net.SplitHostPort(target.Listener.Addr().String())
	cases := []struct {
		name, question, url, host, word string
		status                          int
	}{
		{"a listed host", "listed", "http://ads.test/", "ads.test", "blocked", http.StatusForbidden},
		{"a host the list does not name", "listed", "http://allowed.test:" + port + "/", "allowed.test", "unlisted", http.StatusOK},
		{"a question the guard does not know", "open", "http://allowed.test:" + port + "/", "allowed.test", "bad-request", http.StatusBadRequest},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodGet, tc.url, nil)
			req.Header.Set(AskHeader, tc.question)
			req.Header.Set(NonceHeader, "nonce-2")
			resp, err := through(t, proxy, "nonce-2").Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if got := marks.Word(resp.Header.Get, tc.host, "nonce-2"); resp.StatusCode != tc.status || got != tc.word {
				t.Errorf("the guard answered %d with the marked word %q; want %d %q", resp.StatusCode, got, tc.status, tc.word)
			}
		})
	}
	if n := target.requests.Load(); n != 0 {
		t.Errorf("a question reached the host %d times", n)
	}
}
