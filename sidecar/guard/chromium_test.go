package guard

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/glimpse/glimpse/internal/testtool"
)

// TestChromiumCannotReachRefusedServers runs a real Chromium behind the proxy
// with an allow-list holding only the page server's address. The page tries
// every way a browser opens connections (redirect, image, iframe, fetch,
// WebSocket, odd host spellings) towards a second loopback server, which
// must never see a single connection.
func TestChromiumCannotReachRefusedServers(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium; skipped under -short")
	}
	chrome := testtool.ChromiumPath(t)

	internal := newTrackedServer(t, "127.0.0.3", false, http.HandlerFunc(hello))
	ip, port := "127.0.0.3", internal.port()
	done := make(chan struct{})
	var doneOnce sync.Once
	var page *trackedServer
	page = newTrackedServer(t, "127.0.0.2", false, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, attackPage(ip, port))
		case "/redirect":
			http.Redirect(w, r, "http://"+ip+":"+port+"/landing", http.StatusFound)
		case "/done":
			doneOnce.Do(func() { close(done) })
		default:
			http.NotFound(w, r)
		}
	}))

	var refusals refusalLog
	d := &Dialer{
		Policy:   NewPolicy([]netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")}),
		OnRefuse: refusals.record,
	}
	proxy := NewProxy(d, slog.New(slog.DiscardHandler))
	proxyLn := listen(t, "127.0.0.1:0")
	srv := proxy.NewServer()
	served := make(chan struct{})
	go func() {
		defer close(served)
		srv.Serve(proxyLn)
	}()
	t.Cleanup(func() {
		proxy.Close()
		srv.Close()
		<-served
	})

	devtools := startChromium(t, chrome, ChromeFlags(proxyLn.Addr().String()))
	openTab(t, devtools, page.URL+"/")
	openTab(t, devtools, page.URL+"/redirect")

	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatalf("the page never reported that its attempts were over (page server saw %d requests, proxy refused %d)",
			page.requests.Load(), proxy.Refused())
	}
	// The redirect tab runs on its own; wait until its hop was refused too.
	const attempts = 7 // redirect, 3 images, iframe, fetch, WebSocket
	deadline := time.Now().Add(10 * time.Second)
	for proxy.Refused() < attempts && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}

	if got := proxy.Refused(); got < attempts {
		t.Errorf("the proxy refused %d connections; want at least %d (one per attempt on the page)", got, attempts)
	}
	if n := internal.requests.Load(); n != 0 {
		t.Errorf("the refused server logged %d requests; want none", n)
	}
	internal.ln.assertNoConnection(t)
	refusals.mu.Lock()
	hosts := strings.Join(refusals.hosts, " ")
	refusals.mu.Unlock()
	for _, want := range []string{"127.0.0.3", "::ffff:7f00:3"} {
		if !strings.Contains(hosts, want) {
			t.Errorf("no refusal named %s; refused hosts: %s", want, hosts)
		}
	}
	t.Logf("refused %d connections, hosts: %s", proxy.Refused(), hosts)
}

// attackPage loads resources from the refused server in every way a page
// can, then reports to its own server once each attempt has settled.
func attackPage(ip, port string) string {
	base := "http://" + ip + ":" + port
	return `<!doctype html>
<title>guard</title>
<img id="plain" src="` + base + `/image.png">
<img id="decimal" src="http://2130706435:` + port + `/decimal.png">
<img id="mapped" src="http://[::ffff:127.0.0.3]:` + port + `/mapped.png">
<iframe id="frame" src="` + base + `/frame"></iframe>
<script>
const settled = (el) => new Promise((r) => { el.onload = el.onerror = r; });
const attempts = [
  settled(document.getElementById('plain')),
  settled(document.getElementById('decimal')),
  settled(document.getElementById('mapped')),
  settled(document.getElementById('frame')),
  fetch('` + base + `/fetch', {mode: 'no-cors'}).catch(() => {}),
  new Promise((r) => {
    try {
      const ws = new WebSocket('ws://` + ip + `:` + port + `/socket');
      ws.onopen = ws.onerror = ws.onclose = r;
    } catch (e) { r(); }
  }),
];
const timeout = new Promise((r) => setTimeout(r, 10000));
Promise.race([Promise.all(attempts), timeout]).then(() => fetch('/done'));
</script>`
}

// startChromium launches the browser in its own process group and returns the
// host:port of its DevTools HTTP endpoint. Cleanup kills the whole group.
func startChromium(t *testing.T, path string, extra []string) string {
	t.Helper()
	flags := append([]string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-dev-shm-usage", "--remote-debugging-port=0",
	}, extra...)
	ws, _ := testtool.StartChromium(t, path, flags...)
	u, err := url.Parse(ws)
	if err != nil {
		t.Fatalf("Chromium's DevTools address %q: %v", ws, err)
	}
	return u.Host
}

// openTab asks the DevTools HTTP endpoint for a new tab showing target.
func openTab(t *testing.T, devtools, target string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	u := "http://" + devtools + "/json/new?" + url.QueryEscape(target)
	req, _ := http.NewRequestWithContext(ctx, http.MethodPut, u, nil)
	client := &http.Client{Transport: &http.Transport{Proxy: nil, DialContext: (&net.Dialer{}).DialContext}}
	defer client.CloseIdleConnections()
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("opening a tab on %s: %v", target, err)
	}
	defer resp.Body.Close()
	var info struct {
		ID  string `json:"id"`
		URL string `json:"url"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&info); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("opening a tab on %s: status %d, %v", target, resp.StatusCode, err)
	}
}
