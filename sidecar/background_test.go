package sidecar

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"

	"github.com/glimpse/glimpse/cdp"
)

// idleWatch is how long the browser is watched while nobody uses it: the
// account list and update checks of a fresh Chromium come in its first
// seconds and are retried after about 1, 3 and 8 seconds.
const idleWatch = 10 * time.Second

// What Chromium asks for on its own, at start and while idle, never
// reaches the egress guard: it is refused and counted. What a page of a
// client's browser context asks for still goes through the guard.
func TestTheBrowsersOwnTrafficIsRefusedNotSent(t *testing.T) {
	chrome := requireChrome(t)
	isolateTemp(t)
	site, siteHits := countingServer(t, "127.0.0.2", "<html><title>A page</title><body>asked for</body></html>")

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := NewServer(RunConfig{
		Sidecar:      Config{ChromePath: chrome, Logger: testLogger(t), RecycleAfter: 0},
		AllowTargets: []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")},
		Listener:     ln,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	base := "http://" + ln.Addr().String()
	eventually(t, 30*time.Second, "/healthz answering ok", func() bool {
		resp, err := http.Get(base + "/healthz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})

	time.Sleep(idleWatch)
	total, hosts := srv.BackgroundRefused()
	t.Logf("at start and idle for %s the browser asked for %d requests of its own, refused: %v", idleWatch, total, hosts)
	if n := srv.EgressRequests(); n != 0 {
		t.Errorf("%d requests reached the egress guard while no page was open; the browser's own traffic must be refused, not sent", n)
	}
	if _, ok := hosts["clients2.google.com"]; ok {
		t.Error("the browser asked for the network time, which its flags turn off")
	}

	t.Run("a page of a client's browser context still goes through the guard", func(t *testing.T) {
		c := dialDevTools(t, base)
		nctx, ncancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer ncancel()
		sess, err := c.Attach(nctx, createPage(t, c))
		if err != nil {
			t.Fatal(err)
		}
		res, err := cdp.Execute(nctx, sess, page.Navigate, page.NavigateParams{URL: site.URL})
		if err != nil || res.ErrorText != "" {
			t.Fatalf("navigating: %v %s", err, res.ErrorText)
		}
		if siteHits.Load() == 0 || srv.EgressRequests() == 0 {
			t.Errorf("the page's server saw %d requests and the guard %d; want the page through the guard", siteHits.Load(), srv.EgressRequests())
		}
		if after, _ := srv.BackgroundRefused(); after > total+2 {
			// A browser context's own start may ask for an account list
			// once more; a page's requests would be many more.
			t.Errorf("the page's requests were refused as background traffic: %d, then %d", total, after)
		}
	})
}
