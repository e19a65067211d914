package sidecar

import (
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/target"

	"github.com/glimpse/glimpse/sidecar/guard"
)

type upstreamParams struct {
	DisposeOnDetach *bool  `json:"disposeOnDetach,omitempty"`
	ProxyServer     string `json:"proxyServer,omitempty"`
	ProxyBypassList string `json:"proxyBypassList,omitempty"`
	Upstream        string `json:"glimpseUpstream,omitempty"`
}

func TestFilterRoutesAContextThroughItsCallersProxy(t *testing.T) {
	yes := true
	type opened struct {
		proxy      string
		unfiltered bool
	}
	var calls []opened
	open := func(proxy string, unfiltered bool) (string, error) {
		calls = append(calls, opened{proxy, unfiltered})
		if strings.Contains(proxy, "refused.test") {
			return "", errors.New("the proxy's address is refused")
		}
		if unfiltered {
			return "127.0.0.1:9002", nil
		}
		return "127.0.0.1:9001", nil
	}
	f := newCDPFilter(testGuard, testUnfiltered).routeContextsTo(testGuard, true).withUpstreams(open, testUnfiltered)
	cases := []struct {
		name       string
		params     upstreamParams
		wantProxy  string // the proxyServer Chromium gets; "" for a refusal
		unfiltered bool
	}{
		{"a context naming a proxy gets the guard's route through it",
			upstreamParams{DisposeOnDetach: &yes, Upstream: "http://alice:s3cret@proxy.test:8080"}, "http://127.0.0.1:9001", false},
		{"an unfiltered context naming a proxy gets the unfiltered route",
			upstreamParams{DisposeOnDetach: &yes, ProxyServer: "http://" + testUnfiltered, ProxyBypassList: "<-loopback>", Upstream: "http://proxy.test:8080"}, "http://127.0.0.1:9002", true},
		{"a proxy whose route does not open is refused",
			upstreamParams{DisposeOnDetach: &yes, Upstream: "http://refused.test:8080"}, "", false},
		{"a context naming a proxy may still not name a proxyServer of its own",
			upstreamParams{DisposeOnDetach: &yes, ProxyServer: "http://evil.test:3128", ProxyBypassList: "<-loopback>", Upstream: "http://proxy.test:8080"}, "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			calls = nil
			msg := message(t, 7, "", target.CommandCreateBrowserContext, c.params)
			answer, r, method := f.check(msg)
			if c.wantProxy == "" {
				if r == nil {
					t.Fatalf("passed, want a refusal")
				}
				if strings.Contains(string(answer), "s3cret") {
					t.Errorf("the refusal repeats the credentials: %s", answer)
				}
				return
			}
			if r != nil {
				t.Fatalf("refused: %s", r.message)
			}
			out := f.routed(method, msg)
			var got struct {
				ID     int64          `json:"id"`
				Params upstreamParams `json:"params"`
			}
			if err := jsonv2.Unmarshal(out, &got); err != nil {
				t.Fatal(err)
			}
			if got.ID != 7 || got.Params.ProxyServer != c.wantProxy || got.Params.ProxyBypassList != "<-loopback>" || got.Params.Upstream != "" {
				t.Errorf("Chromium gets %s, want proxyServer %s, loopback not exempt, no glimpseUpstream", out, c.wantProxy)
			}
			if strings.Contains(string(out), "proxy.test") {
				t.Errorf("Chromium learns of the caller's proxy: %s", out)
			}
			if len(calls) == 0 || calls[len(calls)-1].unfiltered != c.unfiltered || calls[len(calls)-1].proxy != c.params.Upstream {
				t.Errorf("the route was opened as %+v", calls)
			}
		})
	}
	t.Run("a sidecar without routes refuses a context naming a proxy", func(t *testing.T) {
		plain := newCDPFilter(testGuard, testUnfiltered)
		if _, r, _ := plain.check(message(t, 1, "", target.CommandCreateBrowserContext, upstreamParams{Upstream: "http://proxy.test:8080"})); r == nil {
			t.Error("passed")
		}
	})
}

func TestUpstreamRoutesOpenOnePortPerProxyAndProtectIt(t *testing.T) {
	// Loopback is allowed, as in tests and development: only the route's
	// protection keeps a page off its port.
	policy := guard.NewPolicy([]netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")})
	proxy := guard.NewProxy(&guard.Dialer{Policy: policy}, slog.New(slog.DiscardHandler))
	defer proxy.Close()
	routes := &upstreamRoutes{proxy: proxy, policy: policy, blocks: func(string) bool { return false },
		counted: func(h http.Handler) http.Handler { return h }, logger: slog.New(slog.DiscardHandler)}
	defer routes.close()
	a, err := routes.open("http://alice:s3cret@proxy.test:8080", false)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := routes.open("http://alice:s3cret@proxy.test:8080", false)
	bob, _ := routes.open("http://bob:s3cret@proxy.test:8080", false)
	unfiltered, _ := routes.open("http://alice:s3cret@proxy.test:8080", true)
	if a != again || a == bob || a == unfiltered || routes.count() != 3 {
		t.Errorf("routes %s %s %s %s (%d open): want one per proxy, credentials and list", a, again, bob, unfiltered, routes.count())
	}
	_, port, _ := net.SplitHostPort(a)
	if _, err := (&guard.Dialer{Policy: policy}).DialContext(t.Context(), "tcp", net.JoinHostPort("127.0.0.1", port)); !errors.Is(err, guard.ErrRefused) {
		t.Errorf("a page dialling the route's port got %v, want a refusal", err)
	}
	if _, err := routes.open("socks5://alice:s3cret@proxy.test:1080", false); err == nil || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("a SOCKS proxy opened a route, or its refusal repeats the credentials: %v", err)
	}
	routes.close()
	if _, err := routes.open("http://proxy.test:8080", false); err == nil {
		t.Error("a route opened after close")
	}
}

func TestTheSidecarsProxySendsAPlainFetchThroughTheNamedUpstream(t *testing.T) {
	chrome := requireChrome(t)
	target, hits := countingServer(t, "127.0.0.2", "the page")
	var seen []string
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, r.Method+" "+r.URL.String()+" "+r.Header.Get("Proxy-Authorization")+" "+r.Header.Get(UpstreamHeader))
		res, err := http.DefaultTransport.RoundTrip(&http.Request{Method: r.Method, URL: r.URL, Header: http.Header{}, Host: r.Host})
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer res.Body.Close()
		w.WriteHeader(res.StatusCode)
		io.Copy(w, res.Body)
	}))
	defer upstream.Close()
	_, front := serveFront(t, RunConfig{Sidecar: Config{ChromePath: chrome, Logger: testLogger(t)},
		AllowTargets: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}})
	frontURL, _ := url.Parse(front.URL)
	get := func(upstreamURL string) *http.Response {
		tr := &http.Transport{Proxy: http.ProxyURL(frontURL)}
		defer tr.CloseIdleConnections()
		req, _ := http.NewRequest(http.MethodGet, target.URL+"/page", nil)
		req.Header.Set(UpstreamHeader, upstreamURL)
		res, err := tr.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := get("http://alice:s3cret@" + upstream.Listener.Addr().String())
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || string(body) != "the page" || hits.Load() != 1 {
		t.Fatalf("HTTP %d %q, %d hits at the target", res.StatusCode, body, hits.Load())
	}
	want := "GET " + target.URL + "/page Basic YWxpY2U6czNjcmV0 "
	if len(seen) != 1 || seen[0] != want {
		t.Errorf("the upstream saw %q, want [%q]: the request with the caller's credentials and without the sidecar's header", seen, want)
	}
	res = get("socks5://alice:s3cret@" + upstream.Listener.Addr().String())
	body, _ = io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusBadRequest || strings.Contains(string(body), "s3cret") || hits.Load() != 1 {
		t.Errorf("a bad upstream: HTTP %d %q, %d hits at the target", res.StatusCode, body, hits.Load())
	}
}
