package api

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// Every error's `more` links to documentation the operator controls: the
// page glimpse serves itself, on the address the caller used, or the page
// GLIMPSE_DOCS_URL names. Never a domain the project does not own.
func TestErrorsLinkToDocumentationTheCallerCanReach(t *testing.T) {
	more := func(t *testing.T, hs *httptest.Server, host string) string {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, hs.URL+"/?url=no", nil)
		if host != "" {
			req.Host = host
		}
		resp, err := hs.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var env struct{ Code, More string }
		if err := json.NewDecoder(resp.Body).Decode(&env); err != nil || env.Code != "EINVALURL" {
			t.Fatalf("not the EINVALURL envelope: %+v, %v", env, err)
		}
		return env.More
	}
	serve := func(t *testing.T, cfg Config) *httptest.Server {
		hs := httptest.NewServer(NewServer(cfg, Deps{Logger: slog.New(slog.DiscardHandler)}).Handler())
		t.Cleanup(hs.Close)
		return hs
	}

	t.Run("by default more is glimpse's own errors page, and that page has the code's section", func(t *testing.T) {
		hs := serve(t, Config{Region: "test"})
		link := more(t, hs, "")
		if link != hs.URL+"/docs/errors#einvalurl" {
			t.Fatalf("more is %q, want %s/docs/errors#einvalurl", link, hs.URL)
		}
		resp, err := hs.Client().Get(link)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		page, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("content-type"), "text/html") {
			t.Fatalf("the errors page answered %d %s", resp.StatusCode, resp.Header.Get("content-type"))
		}
		if !strings.Contains(string(page), `id="einvalurl"`) {
			t.Errorf("the errors page has no anchor einvalurl:\n%s", page)
		}
	})
	t.Run("the default follows the host the caller reached", func(t *testing.T) {
		hs := serve(t, Config{Region: "test"})
		if link := more(t, hs, "glimpse.internal.example:8080"); link != "http://glimpse.internal.example:8080/docs/errors#einvalurl" {
			t.Errorf("more is %q", link)
		}
	})
	t.Run("a forwarded https is believed only from a trusted proxy", func(t *testing.T) {
		hs := serve(t, Config{Region: "test"})
		req, _ := http.NewRequest(http.MethodGet, hs.URL+"/?url=no", nil)
		req.Header.Set("X-Forwarded-Proto", "https")
		resp, err := hs.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var env struct{ More string }
		_ = json.NewDecoder(resp.Body).Decode(&env)
		if !strings.HasPrefix(env.More, "http://") {
			t.Errorf("more is %q: an untrusted X-Forwarded-Proto was believed", env.More)
		}
	})
	t.Run("GLIMPSE_DOCS_URL names the page", func(t *testing.T) {
		hs := serve(t, Config{Region: "test", DocsURL: "https://git.example.com/glimpse/blob/main/docs/api.md"})
		if link := more(t, hs, ""); link != "https://git.example.com/glimpse/blob/main/docs/api.md#einvalurl" {
			t.Errorf("more is %q", link)
		}
	})
}
