package sidecar

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"testing"
	"time"

	"github.com/glimpse/glimpse/sidecar/guard"
)

// The sidecar's authenticated proxy hop carries the orchestrator's nonce
// to the guard and no further; the guard's answers on it are marked under
// the token's key, for that nonce; and only a holder of the token may ask
// whether the list names a host.
func TestTheSidecarsGuardMarksItsAnswersForTheTokenHolder(t *testing.T) {
	const token = "the-sidecar-token-0123"
	var seen http.Header
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = r.Header.Clone()
		io.WriteString(w, "reached")
	}))
	defer target.Close()
	_, front := serveFront(t, RunConfig{
		Sidecar:      Config{ChromePath: writeScript(t, "exit 1"), Logger: testLogger(t), Token: token},
		AllowTargets: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")},
		Blocks:       func(host string) bool { return host == "ads.example" },
	})
	proxyURL, _ := url.Parse(front.URL)
	withToken := *proxyURL
	withToken.User = url.UserPassword("glimpse", token)
	marks := guard.NewMarks(token)

	cases := []struct {
		name, url, ask, host, word string
		proxy                      *url.URL
		status                     int
	}{
		{"the address rule's refusal is marked for the request", "http://127.0.0.2:9/", "", "127.0.0.2", "refused", &withToken, http.StatusForbidden},
		{"a listed host is told listed", "http://ads.example/", "listed", "ads.example", "blocked", &withToken, http.StatusForbidden},
		{"another host is told unlisted", "http://example.test/", "listed", "example.test", "unlisted", &withToken, http.StatusOK},
		{"a question without the token is not answered", "http://ads.example/", "listed", "ads.example", "", proxyURL, http.StatusProxyAuthRequired},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{Proxy: http.ProxyURL(tc.proxy)}}
			req, _ := http.NewRequest(http.MethodGet, tc.url, nil)
			req.Header.Set(guard.NonceHeader, "nonce-3")
			if tc.ask != "" {
				req.Header.Set(guard.AskHeader, tc.ask)
			}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if got := marks.Word(resp.Header.Get, tc.host, "nonce-3"); resp.StatusCode != tc.status || got != tc.word {
				t.Errorf("answered %d with the marked word %q; want %d %q", resp.StatusCode, got, tc.status, tc.word)
			}
		})
	}
	t.Run("the nonce does not reach the target", func(t *testing.T) {
		client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{Proxy: http.ProxyURL(&withToken)}}
		req, _ := http.NewRequest(http.MethodGet, target.URL+"/", nil)
		req.Header.Set(guard.NonceHeader, "nonce-4")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(body) != "reached" || seen == nil || seen.Get(guard.NonceHeader) != "" {
			t.Errorf("the target answered %q and saw the nonce %q", body, seen.Get(guard.NonceHeader))
		}
	})
}
