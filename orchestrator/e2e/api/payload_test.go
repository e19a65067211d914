package api_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/glimpse/glimpse/orchestrator/internal/e2e"
)

// The payload carries what the target's server answered beside data, as
// Microlink's does: its status, its headers without credentials, and the
// redirects that led to the page.
func TestPayloadCarriesTheTargetsResponse(t *testing.T) {
	t.Parallel()
	app := e2e.Shared(t)
	page := `<!doctype html><html lang="en"><head><title>Answered</title><meta name="description" content="a page behind two redirects"></head><body><h1>Answered</h1><p>` +
		"Some text of the page, long enough to be a page." + `</p></body></html>`
	ps := e2e.NewPageServer(t, map[string]http.HandlerFunc{
		"/start": func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/hop?"+r.URL.RawQuery, http.StatusMovedPermanently)
		},
		"/hop": func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/page?"+r.URL.RawQuery, http.StatusFound)
		},
		"/page": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Add("Set-Cookie", "session=s3cr3t; Path=/")
			w.Header().Set("X-Auth-Token", "s3cr3t")
			w.Header().Set("X-Custom", "yes")
			w.Header().Add("Vary", "Accept")
			w.Header().Add("Vary", "Cookie")
			e2e.HTML(page)(w, r)
		},
		"/gone": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("content-type", "text/html; charset=utf-8")
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`<!doctype html><title>Not here</title><h1>Not here</h1>`))
		},
	})
	type payload struct {
		Status     string            `json:"status"`
		StatusCode int               `json:"statusCode"`
		Headers    map[string]string `json:"headers"`
		Redirects  []struct {
			URL        string `json:"url"`
			StatusCode int    `json:"statusCode"`
		} `json:"redirects"`
	}
	decode := func(t *testing.T, a e2e.Answer) payload {
		t.Helper()
		var p payload
		if err := json.Unmarshal(a.Raw, &p); err != nil {
			t.Fatalf("decoding %s: %v", a.Raw, err)
		}
		return p
	}
	for _, mode := range []struct{ name, query, want string }{
		{"a plain fetch", "prerender=auto", "fetch"},
		{"a browser", "prerender=true", "prerender"},
	} {
		t.Run("through "+mode.name, func(t *testing.T) {
			a := app.Get(ps.URL+"/start?m="+mode.want, mode.query+"&ping=false")
			if a.HTTP != http.StatusOK || a.Header.Get("x-fetch-mode") != mode.want {
				t.Fatalf("answer %d %s (x-fetch-mode %q): %s", a.HTTP, a.Code, a.Header.Get("x-fetch-mode"), a.Raw)
			}
			p := decode(t, a)
			if p.StatusCode != http.StatusOK {
				t.Errorf("statusCode = %d, want 200", p.StatusCode)
			}
			if p.Headers["x-custom"] != "yes" || p.Headers["content-type"] != "text/html; charset=utf-8" || p.Headers["vary"] != "Accept, Cookie" {
				t.Errorf("headers = %v", p.Headers)
			}
			for name := range p.Headers {
				if name == "set-cookie" || name == "x-auth-token" {
					t.Errorf("the payload repeats %s", name)
				}
			}
			want := []struct {
				path string
				code int
			}{{"/start?m=" + mode.want, 301}, {"/hop?m=" + mode.want, 302}}
			if len(p.Redirects) != len(want) {
				t.Fatalf("redirects = %+v, want %d", p.Redirects, len(want))
			}
			for i, w := range want {
				if p.Redirects[i].URL != ps.URL+w.path || p.Redirects[i].StatusCode != w.code {
					t.Errorf("redirect %d = %+v, want %s%s %d", i, p.Redirects[i], ps.URL, w.path, w.code)
				}
			}
			hit := app.Get(ps.URL+"/start?m="+mode.want, mode.query+"&ping=false")
			if hit.Header.Get("x-cache-status") != "HIT" || string(hit.Raw) != string(a.Raw) {
				t.Errorf("the cache hit (%s) answers %s, want the same payload", hit.Header.Get("x-cache-status"), hit.Raw)
			}
		})
	}
	t.Run("a page that answers 404 is a success that says so", func(t *testing.T) {
		a := app.Get(ps.URL+"/gone", "ping=false")
		if a.HTTP != http.StatusOK {
			t.Fatalf("answer %d %s: %s", a.HTTP, a.Code, a.Raw)
		}
		if p := decode(t, a); p.Status != "success" || p.StatusCode != http.StatusNotFound || len(p.Redirects) != 0 || p.Redirects == nil {
			t.Errorf("payload = %+v, want success with statusCode 404 and no redirects", p)
		}
	})
}
