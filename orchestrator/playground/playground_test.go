package playground

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestThePolicyAllowsOnlyThisOriginAndTheFiles(t *testing.T) {
	cases := []struct {
		name, base string
		has        []string
		hasNot     []string
	}{
		{"files on another origin are allowed as images and frames", "http://localhost:3000/files/",
			[]string{"img-src 'self' data: blob: http://localhost:3000;", "frame-src 'self' http://localhost:3000;"}, nil},
		{"a CDN base keeps only its origin", "https://cdn.example.com/glimpse/files/",
			[]string{"img-src 'self' data: blob: https://cdn.example.com;"}, []string{"/glimpse"}},
		{"no base allows only the page's own origin", "",
			[]string{"img-src 'self' data: blob:;", "frame-src 'self';"}, nil},
		{"a base that is not http(s) adds nothing", "javascript:alert(1)",
			[]string{"img-src 'self' data: blob:;"}, []string{"javascript"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			csp := CSP(c.base)
			for _, want := range append(c.has, "default-src 'none'", "script-src 'self';", "style-src 'self';", "connect-src 'self';", "frame-ancestors 'none'") {
				if !strings.Contains(csp, want) {
					t.Errorf("%q lacks %q", csp, want)
				}
			}
			for _, bad := range append(c.hasNot, "unsafe-inline", "unsafe-eval", "*") {
				if strings.Contains(csp, bad) {
					t.Errorf("%q has %q", csp, bad)
				}
			}
		})
	}
}

func TestThePageAndItsFiles(t *testing.T) {
	h := New(Config{FilesOrigin: "http://localhost:3000/files/x"})
	cases := []struct {
		path, contentType string
		status            int
		csp               bool
	}{
		{"/", "text/html; charset=utf-8", 200, true},
		{"/playground/app.js", "text/javascript; charset=utf-8", 200, false},
		{"/playground/app.css", "text/css; charset=utf-8", 200, false},
		{"/playground/index.html", "", 404, false},
		{"/playground/nothing.js", "", 404, false},
	}
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, c.path, nil))
			if rec.Code != c.status {
				t.Fatalf("status %d, want %d", rec.Code, c.status)
			}
			if c.status != 200 {
				return
			}
			if got := rec.Header().Get("content-type"); got != c.contentType {
				t.Errorf("content-type %q, want %q", got, c.contentType)
			}
			if got := rec.Header().Get("content-security-policy") != ""; got != c.csp {
				t.Errorf("CSP set: %v, want %v", got, c.csp)
			}
			if rec.Header().Get("x-content-type-options") != "nosniff" {
				t.Error("no nosniff")
			}
		})
	}
	for _, path := range h.Paths() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		if rec.Code != 200 {
			t.Errorf("%s, one of Paths, answers %d", path, rec.Code)
		}
	}
}

// The policy forbids inline code: the page must have none, or the
// browser would refuse it.
func TestThePageHasNoInlineCodeOrOtherOrigins(t *testing.T) {
	rec := httptest.NewRecorder()
	New(Config{}).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	page, _ := io.ReadAll(rec.Body)
	for _, bad := range []string{"<script>", "style=", "onclick", "onload", "onsubmit", "javascript:", "<style"} {
		if strings.Contains(strings.ToLower(string(page)), bad) {
			t.Errorf("the page contains %q", bad)
		}
	}
	for _, attr := range []string{`src="`, `href="`} {
		rest := string(page)
		for {
			_, after, ok := strings.Cut(rest, attr)
			if !ok {
				break
			}
			value, _, _ := strings.Cut(after, `"`)
			if !strings.HasPrefix(value, "/") && !strings.HasPrefix(value, "data:") {
				t.Errorf("the page loads %q, which is not its own", value)
			}
			rest = after
		}
	}
}
