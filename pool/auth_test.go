package pool

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	sidecarpkg "github.com/glimpse/glimpse/sidecar"
)

// TestPoolSendsTheSidecarTokenOnlyWhereItIsAsked checks, against a stand-in
// sidecar that records what it is sent, where the token travels.
func TestPoolSendsTheSidecarTokenOnlyWhereItIsAsked(t *testing.T) {
	var mu sync.Mutex
	seen := map[string][]string{} // path → Authorization headers
	fake := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.URL.Path] = append(seen[r.URL.Path], r.Header.Get("Authorization"))
		mu.Unlock()
		if r.URL.Path == "/healthz" {
			io.WriteString(w, `{"status":"ok"}`)
			return
		}
		http.Error(w, "no", http.StatusUnauthorized)
	}))
	defer fake.Close()
	addr := strings.TrimPrefix(fake.URL, "http://")

	tests := []struct {
		name, token, wantDevTools string
	}{
		{"a pool with a token sends it as a bearer token on the DevTools connection", "  the-token-0123456789 \n", "Bearer the-token-0123456789"},
		{"a pool without a token sends no Authorization", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mu.Lock()
			clear(seen)
			mu.Unlock()
			p, err := New(Config{Sidecars: addr, SidecarToken: tc.token, HealthInterval: time.Hour, Logger: testLogger(t)})
			if err != nil {
				t.Fatal(err)
			}
			defer closeWithin(t, p, 10*time.Second)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := p.Start(ctx); err != nil {
				t.Fatal(err)
			}
			if p.Ready() {
				t.Error("a sidecar whose DevTools endpoint answered 401 counts as ready")
			}
			mu.Lock()
			defer mu.Unlock()
			if got := seen["/devtools/browser"]; len(got) != 1 || got[0] != tc.wantDevTools {
				t.Errorf("the DevTools handshakes carried Authorization %q, want one with %q", got, tc.wantDevTools)
			}
			for _, h := range seen["/healthz"] {
				if h != "" {
					t.Errorf("a health probe carried Authorization %q; /healthz needs none", h)
				}
			}
		})
	}
}

func TestPoolWithTheWrongTokenGetsNoBrowser(t *testing.T) {
	requireChromium(t)
	live := startSidecar(t, nil)
	p := newTestPool(t, Config{Sidecars: live.addr, SidecarToken: "not-the-token-0123456789", Warm: -1})
	if p.Ready() {
		t.Fatal("a pool with the wrong token got a browser connection")
	}
	if n := live.srv.Stats().AuthRefusals; n == 0 {
		t.Error("the sidecar did not count the refused connection")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if l, err := p.Lease(ctx); err == nil {
		l.Release()
		t.Fatal("a pool with the wrong token leased a page")
	}
}

func TestEgressProxyURLCarriesTheSidecarToken(t *testing.T) {
	requireChromium(t)
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Proxy-Authorization") != "" || r.Header.Get("Authorization") != "" {
			http.Error(w, "the sidecar passed credentials on", http.StatusTeapot)
			return
		}
		io.WriteString(w, "fetched")
	}))
	defer site.Close()
	live := startSidecar(t, func(c *sidecarpkg.RunConfig) {
		c.AllowTargets = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	})
	p := newTestPool(t, Config{Sidecars: live.addr, Warm: -1})
	u, ok := p.EgressProxyURL()
	if !ok {
		t.Fatal("a pool with a healthy sidecar names no egress proxy")
	}
	if u.Host != live.addr || strings.Contains(u.Redacted(), testToken) {
		t.Errorf("EgressProxyURL = %s, want the sidecar's address with the token hidden by Redacted", u.Redacted())
	}
	bare := *u
	bare.User = nil

	tests := []struct {
		name     string
		proxy    *url.URL
		wantCode int
		wantBody string
	}{
		{"a fetch through the URL with the token passes the guard", u, http.StatusOK, "fetched"},
		{"a fetch through the sidecar without the token is refused with 407", &bare, http.StatusProxyAuthRequired, "sidecar token"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := &http.Transport{Proxy: http.ProxyURL(tc.proxy)}
			defer tr.CloseIdleConnections()
			resp, err := (&http.Client{Transport: tr, Timeout: 10 * time.Second}).Get(site.URL)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.wantCode || !strings.Contains(string(body), tc.wantBody) {
				t.Errorf("GET through the sidecar = %d %q, want %d with %q", resp.StatusCode, body, tc.wantCode, tc.wantBody)
			}
		})
	}
	t.Run("a pool without a healthy sidecar names no proxy", func(t *testing.T) {
		empty, err := New(Config{Sidecars: "127.0.0.1:1"})
		if err != nil {
			t.Fatal(err)
		}
		defer empty.Close()
		if u, ok := empty.EgressProxyURL(); ok || u != nil {
			t.Errorf("EgressProxyURL = %v, %v; want nothing", u, ok)
		}
	})
}
