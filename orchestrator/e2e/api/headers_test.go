package api_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"html/template"
	"image"
	"image/png"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/andybalholm/brotli"

	"github.com/glimpse/glimpse/orchestrator"
	"github.com/glimpse/glimpse/orchestrator/apierr"
	"github.com/glimpse/glimpse/orchestrator/internal/e2e"
)

// ---------------------------------------------------------------------------
// Raw HTTP: answers as they travel, neither redirected nor decompressed.

// wireAnswer is an answer exactly as the server sent it.
type wireAnswer struct {
	Status int
	Header http.Header
	Body   []byte
}

var wireClient = &http.Client{
	Transport:     &http.Transport{DisableCompression: true},
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	Timeout:       90 * time.Second,
}

// wireDo sends one request; it is safe to call from many goroutines.
func wireDo(method, u string, h http.Header) (wireAnswer, error) {
	req, err := http.NewRequest(method, u, nil)
	if err != nil {
		return wireAnswer{}, err
	}
	for k, vs := range h {
		req.Header[http.CanonicalHeaderKey(k)] = vs
	}
	resp, err := wireClient.Do(req)
	if err != nil {
		return wireAnswer{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return wireAnswer{Status: resp.StatusCode, Header: resp.Header, Body: body}, err
}

func wireGet(u string, h http.Header) (wireAnswer, error) { return wireDo(http.MethodGet, u, h) }

// ---------------------------------------------------------------------------
// The response headers of docs/api.md#response-headers, by kind of answer.

const uuidV4 = `[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}`

// headerFormats are the formats every answer's headers must have; the
// cache headers depend on the kind of answer and are added below.
var headerFormats = map[string]*regexp.Regexp{
	"x-cache-ttl":            regexp.MustCompile(`^[1-9][0-9]*$`),
	"x-fetch-mode":           regexp.MustCompile(`^(prerender|fetch|skipped)$`),
	"x-pricing-plan":         regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`),
	"x-rate-limit-limit":     regexp.MustCompile(`^[1-9][0-9]*$`),
	"x-rate-limit-remaining": regexp.MustCompile(`^(0|[1-9][0-9]*)$`),
	"x-rate-limit-reset":     regexp.MustCompile(`^[1-9][0-9]{9}$`),
	"x-response-time":        regexp.MustCompile(`^([0-9]|[1-9][0-9]{1,2})ms$|^[1-9][0-9]*\.[0-9]s$`),
	"x-fetch-time":           regexp.MustCompile(`^([0-9]|[1-9][0-9]{1,2})ms$|^[1-9][0-9]*\.[0-9]s$`),
	"x-timestamp":            regexp.MustCompile(`^[1-9][0-9]{12}$`),
}

// answerKinds names the headers each kind of answer carries and the
// cache-control and x-cache-status it has.
var answerKinds = map[string]struct {
	headers      []string
	cacheControl *regexp.Regexp
	cacheStatus  *regexp.Regexp
}{
	// A MISS or HIT, embed bodies and 304s included.
	"cached": {
		[]string{"x-cache-ttl", "x-fetch-mode", "x-fetch-time", "x-timestamp", "x-pricing-plan", "x-rate-limit-limit", "x-rate-limit-remaining", "x-rate-limit-reset"},
		regexp.MustCompile(`^public, immutable, max-age=(0|[1-9][0-9]*)$`), regexp.MustCompile(`^(MISS|HIT)$`),
	},
	"bypass": {
		[]string{"x-cache-ttl", "x-fetch-mode", "x-fetch-time", "x-timestamp", "x-pricing-plan", "x-rate-limit-limit", "x-rate-limit-remaining", "x-rate-limit-reset"},
		regexp.MustCompile(`^public, must-revalidate, max-age=0$`), regexp.MustCompile(`^BYPASS$`),
	},
	// An error of the API once the caller is known.
	"error": {
		[]string{"x-pricing-plan", "x-rate-limit-limit", "x-rate-limit-remaining", "x-rate-limit-reset"},
		regexp.MustCompile(`^no-store$`), nil,
	},
	// An error before the caller is known (EAUTH), or outside the API.
	"bare": {nil, regexp.MustCompile(`^no-store$`), nil},
	// Other endpoints, such as /healthz.
	"endpoint": {},
}

// checkAnswerHeaders checks the headers of docs/api.md#response-headers on
// one answer of kind.
func checkAnswerHeaders(t *testing.T, region, kind string, h http.Header) {
	t.Helper()
	k, ok := answerKinds[kind]
	if !ok {
		t.Fatalf("no answer kind %q", kind)
	}
	check := func(name string, re *regexp.Regexp) {
		t.Helper()
		v := h.Values(name)
		switch {
		case len(v) == 0:
			t.Errorf("%s answer: the header %s is missing", kind, name)
		case len(v) > 1:
			t.Errorf("%s answer: the header %s is sent %d times: %q", kind, name, len(v), v)
		case !re.MatchString(v[0]):
			t.Errorf("%s answer: %s = %q, want the format %s", kind, name, v[0], re)
		}
	}
	check("x-request-id", regexp.MustCompile(`^`+regexp.QuoteMeta(region)+`:`+uuidV4+`$`))
	check("x-response-time", headerFormats["x-response-time"])
	for _, name := range k.headers {
		if kind == "error" && strings.HasPrefix(name, "x-rate-limit-") && h.Get(name) == "" {
			continue // reported once below
		}
		check(name, headerFormats[name])
	}
	if kind == "error" && (h.Get("x-rate-limit-limit") == "" || h.Get("x-rate-limit-remaining") == "" || h.Get("x-rate-limit-reset") == "") {
		t.Errorf("error answer: x-rate-limit-limit, -remaining and -reset are missing (got %q, %q, %q); docs/api.md and the issue put them "+
			"on every answer, errors included (api.go handleAPI sets them only once ParseRequest has succeeded: "+
			"set them from the caller's window before parsing, counting the request or not)",
			h.Get("x-rate-limit-limit"), h.Get("x-rate-limit-remaining"), h.Get("x-rate-limit-reset"))
	}
	if k.cacheControl != nil {
		check("cache-control", k.cacheControl)
	}
	if k.cacheStatus != nil {
		check("x-cache-status", k.cacheStatus)
	}
	if kind == "error" || kind == "bare" {
		if e := h.Get("etag"); e != "" {
			t.Errorf("%s answer: an error carries etag %q", kind, e)
		}
	}
	if lim, rem := h.Get("x-rate-limit-limit"), h.Get("x-rate-limit-remaining"); lim != "" && rem != "" {
		l, _ := strconv.Atoi(lim)
		r, _ := strconv.Atoi(rem)
		if r > l {
			t.Errorf("%s answer: x-rate-limit-remaining %d is more than x-rate-limit-limit %d", kind, r, l)
		}
	}
	if reset := h.Get("x-rate-limit-reset"); reset != "" {
		n, _ := strconv.ParseInt(reset, 10, 64)
		if now := time.Now().Unix(); n < now-1 || n > now+32*24*3600 {
			t.Errorf("%s answer: x-rate-limit-reset %d is not a moment of the current window (now is %d)", kind, n, now)
		}
	}
}

// ---------------------------------------------------------------------------
// Sites that record what they were sent.

// seenRequest is one request a recording site received.
type seenRequest struct {
	path   string
	header http.Header
}

// recordingSite serves pages on one loopback address and keeps the
// headers of every request.
type recordingSite struct {
	*httptest.Server
	mu   sync.Mutex
	seen []seenRequest
}

func newRecordingSite(t *testing.T, addr string, routes map[string]http.HandlerFunc) *recordingSite {
	t.Helper()
	rs := &recordingSite{}
	mux := http.NewServeMux()
	for p, h := range routes {
		mux.HandleFunc(p, func(w http.ResponseWriter, r *http.Request) {
			rs.mu.Lock()
			rs.seen = append(rs.seen, seenRequest{r.URL.Path, r.Header.Clone()})
			rs.mu.Unlock()
			h(w, r)
		})
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("listening on %s (every 127.x.y.z address is loopback on Linux): %v", addr, err)
	}
	rs.Server = httptest.NewUnstartedServer(mux)
	rs.Listener.Close()
	rs.Listener = ln
	rs.Start()
	t.Cleanup(rs.Close)
	return rs
}

// requests are the recorded requests for path.
func (rs *recordingSite) requests(path string) []seenRequest {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	var out []seenRequest
	for _, s := range rs.seen {
		if s.path == path {
			out = append(out, s)
		}
	}
	return out
}

func (rs *recordingSite) reset() {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.seen = nil
}

func (rs *recordingSite) all() []seenRequest {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return append([]seenRequest(nil), rs.seen...)
}

// testPNG is large enough to count as a page's image rather than a
// tracking pixel.
var testPNG = func() []byte {
	var b bytes.Buffer
	img := image.NewGray(image.Rect(0, 0, 64, 48))
	if err := png.Encode(&b, img); err != nil {
		panic(err)
	}
	return b.Bytes()
}()

func servePNG(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("content-type", "image/png")
	w.Write(testPNG)
}

func testPage(title, head, body string) http.HandlerFunc {
	return e2e.HTML(`<!doctype html><html lang="en"><head><title>` + template.HTMLEscapeString(title) + `</title>` + head +
		`</head><body>` + body + `</body></html>`)
}

// forward is the query that forwards the given header pairs.
func forward(pairs ...string) string {
	var q []string
	for i := 0; i+1 < len(pairs); i += 2 {
		q = append(q, "headers."+pairs[i]+"="+url.QueryEscape(pairs[i+1]))
	}
	return strings.Join(q, "&")
}

// ---------------------------------------------------------------------------
// headers.<name>: forwarded to the target, and keyed in the cache.

func TestForwardedHeaders(t *testing.T) {
	t.Parallel()
	app := e2e.Shared(t)
	other := newRecordingSite(t, "127.0.0.2:0", map[string]http.HandlerFunc{
		"/other.png": servePNG, "/og.png": servePNG,
		"/landing": testPage("Landed on another site", "", ""),
		"/other.js": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("content-type", "text/javascript")
			io.WriteString(w, "window.otherLoaded = true;")
		},
	})
	site := newRecordingSite(t, "127.0.0.1:0", map[string]http.HandlerFunc{
		"/whoami": func(w http.ResponseWriter, r *http.Request) {
			title := "no cookie"
			if c := r.Header.Get("Cookie"); c != "" {
				title = "cookie " + c
			}
			testPage(title, "", "<p>Who are you?</p>")(w, r)
		},
		"/with-images": testPage("Images from two sites",
			`<meta property="og:image" content="`+other.URL+`/og.png"><link rel="icon" href="/icon.png">`,
			`<img src="/same.png" width=64 height=48><img src="`+other.URL+`/other.png" width=64 height=48>`+
				`<script src="/same.js"></script><script src="`+other.URL+`/other.js"></script>`),
		"/same.png": servePNG,
		"/same.js": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("content-type", "text/javascript")
			io.WriteString(w, "window.sameLoaded = true;")
		},
		"/icon.png": servePNG,
		"/bounce": func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.URL+"/landing", http.StatusFound)
		},
		"/echo": testPage("Echo", "", "<p>Headers noted.</p>"),
		"/hop":  testPage("Hop", "", ""),
		"/login": func(w http.ResponseWriter, r *http.Request) {
			q := r.URL.Query()
			if q.Get("user") != "alice" || q.Get("pass") != "p&ss w0rd" {
				testPage("login failed for "+q.Get("user")+" with "+q.Get("pass"), "", "")(w, r)
				return
			}
			http.SetCookie(w, &http.Cookie{Name: "session", Value: "alice", Path: "/"})
			http.Redirect(w, r, "/account", http.StatusFound)
		},
		"/account": func(w http.ResponseWriter, r *http.Request) {
			who := "nobody"
			if c, err := r.Cookie("session"); err == nil {
				who = c.Value
			}
			testPage("welcome "+who, "", "")(w, r)
		},
	})

	// prerender=auto tries a plain HTTP fetch first; prerender=true always
	// uses the browser, which also loads the page's images and scripts.
	modes := []struct{ name, query string }{
		{"with prerender=auto, the default", ""},
		{"with prerender=true", "prerender=true"},
	}
	for _, mode := range modes {
		with := func(q string) string {
			switch {
			case mode.query == "":
				return q
			case q == "":
				return mode.query
			}
			return q + "&" + mode.query
		}
		browser := mode.query != ""
		t.Run(mode.name, func(t *testing.T) {
			site.reset()
			other.reset()

			t.Run("each caller sees only the page rendered with their own cookie", func(t *testing.T) {
				callers := []struct {
					name, query, want string
				}{
					{"alice", forward("cookie", "sid=alice"), "cookie sid=alice"},
					{"bob", forward("cookie", "sid=bob"), "cookie sid=bob"},
					{"a caller without a cookie", "", "no cookie"},
				}
				target := site.URL + "/whoami"
				for round, status := range []string{"MISS", "HIT"} {
					for _, c := range callers {
						a := app.Get(target, with(c.query))
						if a.HTTP != 200 || a.Field("title") != c.want {
							t.Errorf("round %d, %s: got %d title %v, want %q: %s", round+1, c.name, a.HTTP, a.Field("title"), c.want, a.Raw)
						}
						if got := a.Header.Get("x-cache-status"); got != status {
							t.Errorf("round %d, %s: x-cache-status %q, want %s", round+1, c.name, got, status)
						}
					}
				}
				// Fresh renders right after cookie renders, in whatever pages
				// and contexts the pool hands out, carry nobody's cookie.
				for i := range 4 {
					if a := app.Get(target, with("force=true")); a.Field("title") != "no cookie" {
						t.Errorf("forced render %d without a cookie shows %v", i+1, a.Field("title"))
					}
				}
				if n := len(site.requests("/whoami")); n != 7 {
					t.Errorf("the page was fetched %d times, want 3 renders then 4 forced ones", n)
				}
			})

			t.Run("forwarded headers reach the target's own site but no other", func(t *testing.T) {
				secret := []string{"cookie", "sid=alice", "authorization", "Bearer t0k3n", "x-team", "blue"}
				a := app.Get(site.URL+"/with-images", with(forward(secret...)))
				if a.HTTP != 200 {
					t.Fatalf("got %d %s", a.HTTP, a.Raw)
				}
				want := map[string]string{"Cookie": "sid=alice", "Authorization": "Bearer t0k3n", "X-Team": "blue"}
				own := []string{"/with-images", "/icon.png"} // the page, and its icon probed as the logo
				others := []string{"/og.png"}                // the og:image, probed
				if browser {
					// Scripts: a metadata render fails pictures unasked.
					own = append(own, "/same.js")
					others = append(others, "/other.js")
				}
				for _, path := range own {
					reqs := site.requests(path)
					if len(reqs) == 0 {
						t.Errorf("the target's %s was never fetched", path)
					}
					for _, r := range reqs {
						var missing []string
						for name, v := range want {
							if got := r.header.Get(name); got != v {
								missing = append(missing, fmt.Sprintf("%s %q (want %q)", name, got, v))
							}
						}
						if len(missing) == 0 {
							continue
						}
						hint := ""
						if r.header.Get("Sec-Fetch-Dest") == "empty" && path == "/icon.png" {
							hint = "; this is the logo probe (stream.go loadResource, Network.loadNetworkResource), which the " +
								"Fetch interception of forward.go does not see, so an image behind the login is dropped"
						}
						slices.Sort(missing)
						t.Errorf("the target's %s (Sec-Fetch-Dest %q) arrived with %s%s",
							path, r.header.Get("Sec-Fetch-Dest"), strings.Join(missing, ", "), hint)
					}
				}
				for _, path := range others {
					if len(other.requests(path)) == 0 {
						t.Errorf("the other site's %s was never fetched, so this test shows less than it claims", path)
					}
				}
				for _, r := range other.all() {
					for name := range want {
						if v := r.header.Get(name); v != "" {
							t.Errorf("the other site (127.0.0.2) received %s: %q on %s; forwarded headers must reach only the target's own site",
								name, v, r.path)
						}
					}
				}
			})

			t.Run("forwarded headers do not follow a redirect to another site", func(t *testing.T) {
				a := app.Get(site.URL+"/bounce", with(forward("cookie", "sid=alice", "authorization", "Bearer t0k3n")))
				if a.HTTP != 200 || a.Field("title") != "Landed on another site" {
					t.Fatalf("got %d, title %v: %s", a.HTTP, a.Field("title"), a.Raw)
				}
				if got := site.requests("/bounce"); len(got) != 1 || got[0].header.Get("Cookie") != "sid=alice" {
					t.Errorf("the target itself did not get the cookie: %v", got)
				}
				landed := other.requests("/landing")
				if len(landed) == 0 {
					t.Fatal("the redirect was never followed")
				}
				for _, r := range landed {
					for _, name := range []string{"Cookie", "Authorization"} {
						if v := r.header.Get(name); v != "" {
							t.Errorf("the site redirected to received %s: %q; a redirect to another site must not carry the caller's credentials", name, v)
						}
					}
				}
			})

			t.Run("authorization, user-agent, accept-language and custom headers reach the target", func(t *testing.T) {
				sent := map[string]string{
					"Authorization": "Basic YWxpY2U6c2VjcmV0", "User-Agent": "GlimpseTest/1.0 (compatible)",
					"Accept-Language": "fr-CH, fr;q=0.9", "X-Custom-Thing": "42",
				}
				var pairs []string
				for k, v := range sent {
					pairs = append(pairs, strings.ToLower(k), v)
				}
				if a := app.Get(site.URL+"/echo", with(forward(pairs...))); a.HTTP != 200 {
					t.Fatalf("got %d %s", a.HTTP, a.Raw)
				}
				reqs := site.requests("/echo")
				if len(reqs) != 1 {
					t.Fatalf("the page was fetched %d times", len(reqs))
				}
				for k, v := range sent {
					if got := reqs[0].header.Get(k); got != v {
						t.Errorf("%s arrived as %q, want %q", k, got, v)
					}
				}
			})

			t.Run("a login flow in the target's own query string keeps working", func(t *testing.T) {
				target := site.URL + "/login?user=alice&pass=" + url.QueryEscape("p&ss w0rd")
				a := app.Get(target, with(""))
				if a.HTTP != 200 || a.Field("title") != "welcome alice" {
					t.Fatalf("got %d, title %v (x-fetch-mode %s), want the account page after the login redirect, which sets "+
						"the session cookie; a browser keeps it for the next hop, and so must the plain fetch (fetch.go: "+
						"a cookie jar per request for its redirect hops): %s", a.HTTP, a.Field("title"), a.Header.Get("x-fetch-mode"), a.Raw)
				}
				if got := a.Field("url"); got != site.URL+"/account" {
					t.Errorf("url = %v, want the page after the redirect", got)
				}
				if a := app.Get(site.URL+"/account", with("")); a.Field("title") != "welcome nobody" {
					t.Errorf("a later request without the login sees %v: the session cookie outlived its request", a.Field("title"))
				}
			})
		})
	}

	t.Run("hop-by-hop and host headers are refused before the target is contacted", func(t *testing.T) {
		site.reset()
		for _, name := range []string{"host", "Host", "connection", "keep-alive", "transfer-encoding", "te", "trailer",
			"upgrade", "proxy-authorization", "proxy-connection", "content-length"} {
			t.Run(name, func(t *testing.T) {
				a := app.Get(site.URL+"/hop", forward(name, "x"))
				if a.HTTP != 400 || a.Code != apierr.CodeInvalidQuery {
					t.Fatalf("got %d %s, want 400 EINVALQUERY", a.HTTP, a.Raw)
				}
				if !strings.Contains(a.Message, "headers."+name) {
					t.Errorf("the message does not name `headers.%s`: %s", name, a.Message)
				}
				if cc := a.Header.Get("cache-control"); cc != "no-store" {
					t.Errorf("cache-control %q, want no-store", cc)
				}
			})
		}
		if n := len(site.requests("/hop")); n != 0 {
			t.Errorf("the target was contacted %d times for refused requests", n)
		}
	})
}

// ---------------------------------------------------------------------------
// The headers of every answer, and compression.

func TestResponseHeaders(t *testing.T) {
	const region = "eu-test"
	app := e2e.StartApp(t, func(c *orchestrator.Config) { c.Region = region })
	pad := strings.Repeat("0123456789", 150)
	ps := e2e.NewPageServer(t, map[string]http.HandlerFunc{
		"/plain": e2e.HTML(e2e.ArticlePage),
		"/with-image": testPage("With an image", `<meta property="og:image" content="/img.png">`,
			`<img src="/img.png" width=64 height=48>`),
		"/img.png": servePNG,
		"/never": func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-time.After(30 * time.Second):
			}
		},
		"/big": e2e.HTML(e2e.ArticlePage),
	})
	api := func(target, extra string) string {
		u := app.URL() + "/?url=" + url.QueryEscape(target)
		if extra != "" {
			u += "&" + extra
		}
		return u
	}
	ids := map[string]string{}
	call := func(t *testing.T, method, u string, h http.Header, status int, kind string) wireAnswer {
		t.Helper()
		a, err := wireDo(method, u, h)
		if err != nil {
			t.Fatal(err)
		}
		if a.Status != status {
			t.Fatalf("%s %s: got %d, want %d: %s", method, u, a.Status, status, a.Body)
		}
		checkAnswerHeaders(t, region, kind, a.Header)
		id := a.Header.Get("x-request-id")
		if prev, dup := ids[id]; dup && id != "" {
			t.Errorf("x-request-id %s was already given to %s", id, prev)
		}
		ids[id] = t.Name()
		return a
	}

	t.Run("every kind of answer carries the contract's headers", func(t *testing.T) {
		var etag, made, fetchTime string
		t.Run("a first render", func(t *testing.T) {
			before := time.Now().UnixMilli()
			a := call(t, "GET", api(ps.URL+"/plain", ""), nil, 200, "cached")
			if a.Header.Get("x-cache-status") != "MISS" {
				t.Errorf("x-cache-status %q", a.Header.Get("x-cache-status"))
			}
			etag, made, fetchTime = a.Header.Get("etag"), a.Header.Get("x-timestamp"), a.Header.Get("x-fetch-time")
			if ms, err := strconv.ParseInt(made, 10, 64); err != nil || ms < before || ms > time.Now().UnixMilli() {
				t.Errorf("x-timestamp %q is not when the answer was made (between %d and now)", made, before)
			}
		})
		t.Run("a first render in the browser", func(t *testing.T) {
			a := call(t, "GET", api(ps.URL+"/plain", "prerender=true"), nil, 200, "cached")
			if a.Header.Get("x-cache-status") != "MISS" || a.Header.Get("x-fetch-mode") != "prerender" {
				t.Errorf("x-cache-status %q, x-fetch-mode %q; want MISS and prerender",
					a.Header.Get("x-cache-status"), a.Header.Get("x-fetch-mode"))
			}
		})
		t.Run("a cache hit", func(t *testing.T) {
			a := call(t, "GET", api(ps.URL+"/plain", ""), nil, 200, "cached")
			if a.Header.Get("x-cache-status") != "HIT" {
				t.Errorf("x-cache-status %q", a.Header.Get("x-cache-status"))
			}
			// The microlink CLI tells when a hit expires from these two.
			if a.Header.Get("x-timestamp") != made || a.Header.Get("x-fetch-time") != fetchTime {
				t.Errorf("the hit has x-timestamp %q and x-fetch-time %q, want the answer's own %q and %q",
					a.Header.Get("x-timestamp"), a.Header.Get("x-fetch-time"), made, fetchTime)
			}
		})
		t.Run("HEAD on a cached answer", func(t *testing.T) {
			a := call(t, "HEAD", api(ps.URL+"/plain", ""), nil, 200, "cached")
			if len(a.Body) != 0 {
				t.Errorf("HEAD has a body")
			}
		})
		t.Run("a 304 for a matching If-None-Match", func(t *testing.T) {
			call(t, "GET", api(ps.URL+"/plain", ""), http.Header{"If-None-Match": {etag}}, 304, "cached")
		})
		t.Run("a forced render", func(t *testing.T) {
			call(t, "GET", api(ps.URL+"/plain", "force=true"), nil, 200, "bypass")
		})
		t.Run("meta=false, which needs no render", func(t *testing.T) {
			a := call(t, "GET", api(ps.URL+"/plain", "meta=false"), nil, 200, "cached")
			if a.Header.Get("x-fetch-mode") != "skipped" {
				t.Errorf("x-fetch-mode %q, want skipped", a.Header.Get("x-fetch-mode"))
			}
		})
		for _, status := range []string{"MISS", "HIT"} {
			t.Run("an embedded PDF, "+status, func(t *testing.T) {
				a := call(t, "GET", api(ps.URL+"/plain", "pdf=true&embed=pdf.url"), nil, 200, "cached")
				if a.Header.Get("content-type") != "application/pdf" || !bytes.HasPrefix(a.Body, []byte("%PDF-")) {
					t.Errorf("content-type %q, body starts %q", a.Header.Get("content-type"), a.Body[:min(8, len(a.Body))])
				}
				if got := a.Header.Get("x-cache-status"); got != status {
					t.Errorf("x-cache-status %q, want %s", got, status)
				}
			})
		}
		t.Run("an embedded image, passed through the egress guard", func(t *testing.T) {
			if a, err := wireGet(api(ps.URL+"/with-image", ""), nil); err != nil || a.Status != 200 || !bytes.Contains(a.Body, []byte(`"image":{`)) {
				t.Fatalf("the page's og:image %s/img.png is missing from its answer (%v, x-fetch-mode %q): %s",
					ps.URL, err, a.Header.Get("x-fetch-mode"), a.Body)
			}
			a := call(t, "GET", api(ps.URL+"/with-image", "embed=image.url"), nil, 200, "cached")
			if loc := a.Header.Get("location"); loc != "" {
				t.Errorf("location %q: the caller must never be sent to an address the page declared", loc)
			}
			if ct := a.Header.Get("content-type"); ct != "image/png" || !bytes.HasPrefix(a.Body, []byte("\x89PNG")) {
				t.Errorf("content-type %q and %d bytes, want the page's png", ct, len(a.Body))
			}
		})
		errorCases := []struct {
			name, url string
			method    string
			h         http.Header
			status    int
			code      string
			kind      string
		}{
			{"EINVALQUERY for a ttl under a minute", api(ps.URL+"/plain", "ttl=59s"), "GET", nil, 400, apierr.CodeInvalidQuery, "error"},
			{"EINVALQUERY for a ttl over 31 days", api(ps.URL+"/plain", "ttl=32d"), "GET", nil, 400, apierr.CodeInvalidQuery, "error"},
			{"EINVALQUERY for an embed the page cannot fill", api(ps.URL+"/plain", "embed=image.url"), "GET", nil, 400, apierr.CodeInvalidQuery, "error"},
			{"EINVALURL for a URL without a protocol", app.URL() + "/?url=no", "GET", nil, 400, apierr.CodeInvalidURL, "error"},
			{"EINVALURL without a url", app.URL() + "/", "GET", nil, 400, apierr.CodeInvalidURL, "error"},
			{"EFORBIDDENURL for a private address", api("http://10.1.2.3/", ""), "GET", nil, 400, apierr.CodeForbiddenURL, "error"},
			{"ETIMEOUT for a page that never answers", api(ps.URL+"/never", "timeout=1s"), "GET", nil, 504, apierr.CodeTimeout, "error"},
			{"an error to HEAD", app.URL() + "/?url=no", "HEAD", nil, 400, "", "error"},
			{"EAUTH for an unknown key", api(ps.URL+"/plain", ""), "GET", http.Header{"X-Api-Key": {"k-nobody-knows"}}, 401, apierr.CodeAuth, "bare"},
			{"ENOTFOUND for another path", app.URL() + "/nothing-here", "GET", nil, 404, apierr.CodeNotFound, "bare"},
			{"EMETHOD for a POST", app.URL() + "/?url=no", "POST", nil, 405, apierr.CodeMethod, "bare"},
		}
		for _, c := range errorCases {
			t.Run(c.name, func(t *testing.T) {
				if c.code == apierr.CodeMethod {
					// Reported on its own: the generic check would only say 404.
					a, err := wireDo(c.method, c.url, c.h)
					if err != nil {
						t.Fatal(err)
					}
					if a.Status != http.StatusMethodNotAllowed {
						t.Fatalf("POST / got %d %s; want 405 EMETHOD. The catch-all RouteNotFound(\"/*\") in server.go answers "+
							"before Echo's 405, and tells the caller there is nothing at `/`; register the other methods on \"/\" "+
							"(e.Match or e.Any) with a handler that returns EMETHOD", a.Status, a.Body)
					}
				}
				a := call(t, c.method, c.url, c.h, c.status, c.kind)
				if c.code != "" && !bytes.Contains(a.Body, []byte(`"code":"`+c.code+`"`)) {
					t.Errorf("body %s, want code %s", a.Body, c.code)
				}
			})
		}
		t.Run("the health endpoint", func(t *testing.T) {
			call(t, "GET", app.URL()+"/healthz", nil, 200, "endpoint")
		})
	})

	// A target with a long query makes data.url, and so the answer, long
	// enough to be worth compressing.
	big := ps.URL + "/big?pad=" + pad
	plain := call(t, "GET", api(big, ""), nil, 200, "cached")
	if len(plain.Body) < 1500 || plain.Header.Get("content-encoding") != "" {
		t.Fatalf("the uncompressed answer is %d bytes with content-encoding %q", len(plain.Body), plain.Header.Get("content-encoding"))
	}
	decoders := map[string]func(io.Reader) (io.Reader, error){
		"gzip": func(r io.Reader) (io.Reader, error) { return gzip.NewReader(r) },
		"br":   func(r io.Reader) (io.Reader, error) { return brotli.NewReader(r), nil },
	}
	compression := []struct {
		name, accept string
		want         []string // acceptable encodings; "" is none
	}{
		{"gzip when the client accepts gzip", "gzip", []string{"gzip"}},
		{"br when the client accepts br", "br", []string{"br"}},
		{"br or gzip when the client accepts both", "gzip, deflate, br", []string{"br", "gzip"}},
		{"plain JSON when the client accepts nothing but identity", "identity", []string{""}},
	}
	for _, c := range compression {
		t.Run(c.name, func(t *testing.T) {
			a := call(t, "GET", api(big, ""), http.Header{"Accept-Encoding": {c.accept}}, 200, "cached")
			enc := a.Header.Get("content-encoding")
			ok := false
			for _, w := range c.want {
				ok = ok || enc == w
			}
			if !ok {
				t.Fatalf("content-encoding %q for accept-encoding %q, want one of %q", enc, c.accept, c.want)
			}
			body := a.Body
			if enc != "" {
				r, err := decoders[enc](bytes.NewReader(a.Body))
				if err == nil {
					body, err = io.ReadAll(r)
				}
				if err != nil {
					t.Fatalf("the %s body does not decode: %v", enc, err)
				}
				if len(a.Body) >= len(plain.Body) {
					t.Errorf("%s made %d bytes of %d", enc, len(a.Body), len(plain.Body))
				}
				if !strings.Contains(strings.ToLower(strings.Join(a.Header.Values("vary"), ",")), "accept-encoding") {
					t.Errorf("a compressed answer without vary: accept-encoding (vary %q)", a.Header.Values("vary"))
				}
			}
			if !bytes.Equal(body, plain.Body) {
				t.Errorf("the decoded answer differs from the plain one:\n%s\n%s", body, plain.Body)
			}
		})
	}
	t.Run("an embedded PDF is sent as it is, even to a client that accepts gzip", func(t *testing.T) {
		a := call(t, "GET", api(ps.URL+"/plain", "pdf=true&embed=pdf.url"), http.Header{"Accept-Encoding": {"gzip, br"}}, 200, "cached")
		if enc := a.Header.Get("content-encoding"); enc != "" || !bytes.HasPrefix(a.Body, []byte("%PDF-")) {
			t.Errorf("content-encoding %q on a PDF", enc)
		}
	})
}
