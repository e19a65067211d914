package api

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"

	"github.com/glimpse/glimpse/sidecar/guard"
)

// stubPage stands for the playground: the routing around it is what is
// tested here; the page itself is tested in a browser.
type stubPage struct{}

func (stubPage) Paths() []string { return []string{"/page/app.js"} }

func (stubPage) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("content-type", "text/html; charset=utf-8")
	_, _ = io.WriteString(w, "page at "+r.URL.Path)
}

func TestBrowsersWithoutURLGetThePageAndAPICallersTheError(t *testing.T) {
	s := NewServer(Config{Region: "test"}, Deps{
		Policy:     guard.NewPolicy([]netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}),
		Logger:     slog.New(slog.DiscardHandler),
		Playground: stubPage{},
	})
	mounted := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "mounted "+r.Method) })
	s.Mount("/mcp", mounted, http.MethodPost, http.MethodDelete)
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(hs.Close)

	cases := []struct {
		name, method, path, accept string
		status                     int
		code, body                 string
	}{
		{"a browser opening the service gets the page", "GET", "/", "text/html,application/xhtml+xml,*/*;q=0.8", 200, "", "page at /"},
		{"a browser's HEAD gets the page's headers", "HEAD", "/", "text/html", 200, "", ""},
		{"HTML named with parameters still counts", "GET", "/", "application/json;q=0.5, text/html;q=0.9", 200, "", "page at /"},
		{"the page's files are served", "GET", "/page/app.js", "*/*", 200, "", "page at /page/app.js"},
		{"a file the page does not have is ENOTFOUND", "GET", "/page/other.js", "*/*", 404, "ENOTFOUND", ""},
		{"curl without url gets the JSON error", "GET", "/", "*/*", 400, "EINVALURL", ""},
		{"a JSON client without url gets the JSON error", "GET", "/", "application/json", 400, "EINVALURL", ""},
		{"no Accept at all gets the JSON error", "GET", "/", "", 400, "EINVALURL", ""},
		{"an XHTML-only accept is not a page", "GET", "/", "application/xhtml+xml", 400, "EINVALURL", ""},
		{"a browser with a url is an API call", "GET", "/?url=no", "text/html", 400, "EINVALURL", ""},
		{"a browser with an empty url is an API call", "GET", "/?url=", "text/html", 400, "EINVALURL", ""},
		{"a browser POST is still refused", "POST", "/", "text/html", 405, "EMETHOD", ""},
		{"a mounted handler gets its methods", "POST", "/mcp", "application/json", 200, "", "mounted POST"},
		{"a mounted handler gets each of them", "DELETE", "/mcp", "application/json", 200, "", "mounted DELETE"},
		{"another method is EMETHOD", "GET", "/mcp", "text/html", 405, "EMETHOD", ""},
		{"a made-up method is EMETHOD", "BREW", "/mcp", "", 405, "EMETHOD", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, err := http.NewRequest(c.method, hs.URL+c.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if c.accept != "" {
				req.Header.Set("Accept", c.accept)
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			body, _ := io.ReadAll(res.Body)
			if res.StatusCode != c.status {
				t.Fatalf("status %d, want %d: %s", res.StatusCode, c.status, body)
			}
			if c.code != "" {
				var env struct{ Code string }
				if err := json.Unmarshal(body, &env); err != nil || env.Code != c.code {
					t.Fatalf("want the %s envelope, got %s", c.code, body)
				}
			}
			if c.body != "" && string(body) != c.body {
				t.Fatalf("body %q, want %q", body, c.body)
			}
		})
	}
}
