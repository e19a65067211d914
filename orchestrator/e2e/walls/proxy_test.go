package walls_test

import (
	"encoding/base64"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/glimpse/glimpse/orchestrator"
	"github.com/glimpse/glimpse/orchestrator/internal/e2e"
	"github.com/glimpse/glimpse/sidecar/guard/guardtest"
)

// upstreamProxy is a caller's forward proxy on loopback that records what
// passes through it: each request's method, URL (or CONNECT authority)
// and credentials. It tells the target so with a Via header, as proxies
// do, on the plain http requests it forwards.
type upstreamProxy struct{ *guardtest.RecordingProxy }

func newUpstreamProxy(t *testing.T) upstreamProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return upstreamProxy{guardtest.NewRecordingProxy(t, ln, "")}
}

func (up upstreamProxy) url(userinfo string) string { return up.URL(userinfo) }

func (up upstreamProxy) requests() (seen, auth []string) {
	for _, r := range up.Requests() {
		seen, auth = append(seen, r.Line), append(auth, r.Auth)
	}
	return seen, auth
}

const proxySecret = "s3cret-Pr0xy"

// A request that names a proxy sends its browser's and its plain fetch's
// traffic through it, with the credentials, and nothing else does: not
// another request, not the same page asked for without the proxy. The
// credentials reach no log, no metric and no answer.
func TestAProxyCarriesExactlyTheRequestsTraffic(t *testing.T) {
	logs := &e2e.LogBuffer{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	app := e2e.StartAppLogging(t, log, e2e.DefaultPlans, nil)
	up := newUpstreamProxy(t)
	var viaMu sync.Mutex
	via := map[string]string{} // path → the Via header it arrived with
	record := func(h http.HandlerFunc) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			viaMu.Lock()
			via[r.URL.Path] += r.Header.Get("Via") + ";"
			viaMu.Unlock()
			h(w, r)
		}
	}
	png := e2e.PNG(t, 40, 30)
	page := `<!doctype html><html lang="en"><head><title>Through the proxy</title><meta property="og:image" content="/og.png"></head>
<body><h1>Hello</h1></body></html>`
	image := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write(png)
	}
	ps := e2e.NewPageServer(t, map[string]http.HandlerFunc{
		"/browser": record(e2e.HTML(page)), "/plain": record(e2e.HTML(page)), "/direct": record(e2e.HTML(page)),
		"/og.png": record(image), "/favicon.ico": record(image),
	})
	proxy := up.url("alice:" + proxySecret)
	wantAuth := "Basic " + basicOf("alice:"+proxySecret)

	a := app.Get(ps.URL+"/browser", "prerender=true&proxy="+url.QueryEscape(proxy))
	if a.HTTP != 200 || a.Field("title") != "Through the proxy" {
		t.Fatalf("through the proxy in a browser: HTTP %d %s", a.HTTP, a.Raw)
	}
	seen, auth := up.requests()
	// The page (the browser), its icon (the browser's own request) and its
	// image (the probe of data.image).
	for _, want := range []string{"GET " + ps.URL + "/browser", "GET " + ps.URL + "/favicon.ico", "GET " + ps.URL + "/og.png"} {
		if !contains(seen, want) {
			t.Errorf("the proxy did not see %q; it saw %q", want, seen)
		}
	}
	for i, got := range auth {
		if got != wantAuth {
			t.Errorf("request %q reached the proxy with Proxy-Authorization %q, want the caller's credentials", seen[i], got)
		}
	}

	before := len(seen)
	a = app.Get(ps.URL+"/plain", "proxy="+url.QueryEscape(proxy))
	if a.HTTP != 200 || a.Header.Get("x-fetch-mode") != "fetch" {
		t.Fatalf("through the proxy by a plain fetch: HTTP %d %s %s", a.HTTP, a.Header.Get("x-fetch-mode"), a.Raw)
	}
	seen, _ = up.requests()
	if !contains(seen[before:], "GET "+ps.URL+"/plain") {
		t.Errorf("the plain fetch did not go through the proxy; it saw %q", seen[before:])
	}

	// The page's image, streamed as the answer (embed), comes through it too.
	before = len(seen)
	img := app.Get(ps.URL+"/plain", "proxy="+url.QueryEscape(proxy)+"&embed=image.url")
	if img.HTTP != 200 || img.Header.Get("content-type") != "image/png" {
		t.Fatalf("embed=image.url through the proxy: HTTP %d %s", img.HTTP, img.Header.Get("content-type"))
	}
	seen, _ = up.requests()
	if !contains(seen[before:], "GET "+ps.URL+"/og.png") {
		t.Errorf("the embedded image did not come through the proxy; it saw %q", seen[before:])
	}

	// Every request the target received for these came through the proxy.
	viaMu.Lock()
	for path, vias := range via {
		for v := range strings.SplitSeq(strings.TrimSuffix(vias, ";"), ";") {
			if v == "" {
				t.Errorf("%s reached the target around the proxy", path)
			}
		}
	}
	viaMu.Unlock()

	before = len(seen)
	a = app.Get(ps.URL+"/direct", "prerender=true")
	b := app.Get(ps.URL+"/browser", "prerender=true")
	if a.HTTP != 200 || b.HTTP != 200 {
		t.Fatalf("without a proxy: HTTP %d, %d", a.HTTP, b.HTTP)
	}
	if b.Header.Get("x-cache-status") != "MISS" {
		t.Errorf("the page asked for without the proxy was served from the proxied answer's cache entry (%s)", b.Header.Get("x-cache-status"))
	}
	if seen, _ = up.requests(); len(seen) != before {
		t.Errorf("requests without a proxy went through it: %q", seen[before:])
	}
	viaMu.Lock()
	if strings.Contains(via["/direct"], "upstream-test-proxy") {
		t.Error("a request without a proxy reached the target through it")
	}
	viaMu.Unlock()

	for where, text := range map[string]string{"the log": logs.String(), "the metrics": metricsText(t, app)} {
		if strings.Contains(text, proxySecret) || strings.Contains(text, basicOf("alice:"+proxySecret)) {
			t.Errorf("%s holds the proxy's credentials", where)
		}
	}
}

// A proxy on an address the rule refuses is refused before any work,
// without repeating its credentials; an operator can turn `proxy` off.
func TestAProxyTheGuardRefusesIsAnError(t *testing.T) {
	t.Parallel()
	app := e2e.Shared(t)
	ps := e2e.NewPageServer(t, map[string]http.HandlerFunc{"/": e2e.HTML(e2e.ArticlePage)})
	for _, proxy := range []string{"http://alice:" + proxySecret + "@10.20.30.40:3128", "http://alice:" + proxySecret + "@169.254.169.254:80"} {
		a := app.Get(ps.URL+"/", "prerender=true&proxy="+url.QueryEscape(proxy))
		if a.HTTP != 400 || a.Code != "EFORBIDDENURL" || !strings.Contains(a.Message, "proxy") {
			t.Errorf("%s: HTTP %d %s %s, want 400 EFORBIDDENURL about the proxy", proxy, a.HTTP, a.Code, a.Message)
		}
		if strings.Contains(string(a.Raw), proxySecret) {
			t.Errorf("the answer repeats the credentials: %s", a.Raw)
		}
	}
	if hits := ps.Hits["/"].Load(); hits != 0 {
		t.Errorf("the target was fetched %d times around a refused proxy", hits)
	}
}

func TestAnOperatorCanForbidProxies(t *testing.T) {
	app := e2e.StartApp(t, func(c *orchestrator.Config) { c.AllowProxy = false })
	up := newUpstreamProxy(t)
	ps := e2e.NewPageServer(t, map[string]http.HandlerFunc{"/": e2e.HTML(e2e.ArticlePage)})
	a := app.Get(ps.URL+"/", "proxy="+url.QueryEscape(up.url("alice:"+proxySecret)))
	if a.HTTP != 400 || a.Code != "EINVALQUERY" || !strings.Contains(a.Message, "GLIMPSE_ALLOW_PROXY") {
		t.Errorf("HTTP %d %s %s, want EINVALQUERY naming GLIMPSE_ALLOW_PROXY", a.HTTP, a.Code, a.Message)
	}
	if seen, _ := up.requests(); len(seen) != 0 || ps.Hits["/"].Load() != 0 {
		t.Errorf("a forbidden proxy carried %q", seen)
	}
}

// With GLIMPSE_WALL_PROXY, a render a bot wall answered is tried once
// more through the operator's proxy, which the site lets through.
func TestAWallIsTriedOnceMoreThroughTheWallProxy(t *testing.T) {
	up := newUpstreamProxy(t)
	wallProxy, _ := url.Parse(up.url("op:" + proxySecret))
	app := e2e.StartApp(t, func(c *orchestrator.Config) { c.WallProxy = wallProxy })
	challenge := wallShapes[0].handler()
	ps := e2e.NewPageServer(t, map[string]http.HandlerFunc{
		"/guarded": func(w http.ResponseWriter, r *http.Request) {
			if !strings.Contains(r.Header.Get("Via"), "upstream-test-proxy") {
				challenge(w, r)
				return
			}
			e2e.HTML(e2e.ArticlePage)(w, r)
		},
		"/always": challenge,
	})
	a := app.Get(ps.URL+"/guarded", "prerender=true")
	if a.HTTP != 200 || a.Field("title") != "A walk in the park" {
		t.Fatalf("HTTP %d %s %s, want the page through the wall proxy", a.HTTP, a.Code, a.Raw)
	}
	seen, _ := up.requests()
	if !contains(seen, "GET "+ps.URL+"/guarded") {
		t.Errorf("the wall proxy saw %q", seen)
	}
	if n := ps.Hits["/guarded"].Load(); n != 2 {
		t.Errorf("the target was asked %d times, want 2: once directly, once through the wall proxy", n)
	}
	// Tried once: a wall that stands through the proxy too is the answer.
	a = app.Get(ps.URL+"/always", "prerender=true")
	if a.Code != "EPROXYNEEDED" {
		t.Errorf("HTTP %d %s, want EPROXYNEEDED", a.HTTP, a.Code)
	}
	if n := ps.Hits["/always"].Load(); n != 2 {
		t.Errorf("the wall was asked %d times, want 2", n)
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func basicOf(userinfo string) string {
	return base64Std(userinfo)
}

func metricsText(t *testing.T, app *e2e.App) string {
	t.Helper()
	res, err := http.Get(app.URL() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return string(b)
}

func base64Std(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// A proxy that refuses the request (here, its credentials) fails the
// request naming the proxy, never the target, and without its
// credentials.
func TestAProxyThatRefusesTheRequestIsNamedInTheError(t *testing.T) {
	t.Parallel()
	app := e2e.Shared(t)
	refusing := e2e.NewMuxServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Proxy-Authenticate", `Basic realm="test"`)
		http.Error(w, "credentials, please", http.StatusProxyAuthRequired)
	}))
	ps := e2e.NewPageServer(t, map[string]http.HandlerFunc{"/": e2e.HTML(e2e.ArticlePage)})
	proxy := "http://mallory:" + proxySecret + "@" + refusing.Listener.Addr().String()
	a := app.Get(ps.URL+"/", "prerender=true&proxy="+url.QueryEscape(proxy))
	if a.HTTP != 424 || a.Code != "EFETCH" || !strings.Contains(a.Message, "`proxy` http://"+refusing.Listener.Addr().String()) {
		t.Errorf("HTTP %d %s %s, want 424 EFETCH that names the proxy", a.HTTP, a.Code, a.Message)
	}
	if strings.Contains(string(a.Raw), proxySecret) {
		t.Errorf("the answer repeats the credentials: %s", a.Raw)
	}
	if ps.Hits["/"].Load() != 0 {
		t.Error("the target was reached around the refusing proxy")
	}
}
