package rendering_test

import (
	"bytes"
	"cmp"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/glimpse/glimpse/internal/testtool"
	"github.com/glimpse/glimpse/orchestrator"
	"github.com/glimpse/glimpse/orchestrator/internal/e2e"
)

// The two browsers glimpse runs on: Debian's headless shell, the default,
// and its full browser in headless mode.
const (
	headlessShell = "/usr/lib/chromium/chromium-headless-shell"
	fullBrowser   = "/usr/lib/chromium/chromium"
)

// markdownCorpus is the Markdown development corpus, when it is beside the
// repository (or named by GLIMPSE_EVAL_MARKDOWN_DIR).
func markdownCorpus() string {
	if d := os.Getenv("GLIMPSE_EVAL_MARKDOWN_DIR"); d != "" {
		return d
	}
	d := filepath.Join("..", "..", "..", "..", "shared", "eval", "markdown", "cases")
	if _, err := os.Stat(d); err != nil {
		return ""
	}
	return d
}

// The browser is a choice of cost, never of answers: on every real page of
// the metadata sets and of the Markdown corpus, glimpse on the headless
// shell answers exactly what it answers on the full browser, metadata field
// by field and Markdown byte for byte.
func TestTheHeadlessShellAnswersLikeTheFullBrowser(t *testing.T) {
	for _, p := range []string{headlessShell, fullBrowser} {
		if _, err := os.Stat(p); err != nil {
			testtool.Missingf(t, "%s is not installed (apt-get install chromium chromium-headless-shell): %v", p, err)
		}
	}
	sets := evalSets(t)
	if md := markdownCorpus(); md != "" {
		sets["markdown"] = md
	}
	type page struct{ set, name string }
	var pages []page
	for set, dir := range sets {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if _, err := os.Stat(filepath.Join(dir, e.Name(), "page.html")); err == nil {
				pages = append(pages, page{set, e.Name()})
			}
		}
	}
	// Every page takes two renders: by default a fixed eighth of the
	// pages, spread over the sets, keeps the suite quick;
	// GLIMPSE_EVAL_BROWSERS=1 compares them all.
	slices.SortFunc(pages, func(a, b page) int { return cmp.Or(cmp.Compare(a.set, b.set), cmp.Compare(a.name, b.name)) })
	if os.Getenv("GLIMPSE_EVAL_BROWSERS") == "" {
		var some []page
		for i, p := range pages {
			if i%8 == 0 {
				some = append(some, p)
			}
		}
		pages = some
	}
	// The pages' own requests stay on the page server, as in the bench.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		parts := bytesSplitPath(r.URL.Path)
		if len(parts) != 2 || sets[parts[0]] == "" {
			http.NotFound(w, r)
			return
		}
		body, err := os.ReadFile(filepath.Join(sets[parts[0]], filepath.Base(parts[1]), "page.html"))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Security-Policy", "default-src 'self' 'unsafe-inline' 'unsafe-eval' data: blob:")
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)

	shell := e2e.StartApp(t, func(c *orchestrator.Config) { c.ChromePath = headlessShell })
	full := e2e.StartApp(t, func(c *orchestrator.Config) { c.ChromePath = fullBrowser })
	type result struct {
		p           page
		shell, full e2e.Answer
	}
	results := make([]result, len(pages))
	var wg sync.WaitGroup
	jobs := make(chan int)
	for range 4 {
		wg.Go(func() {
			for i := range jobs {
				target := srv.URL + "/" + pages[i].set + "/" + url.PathEscape(pages[i].name) + "/"
				q := "prerender=true&ping=false&force=true"
				if pages[i].set == "markdown" {
					q += "&data.content.attr=markdown&meta=false"
				}
				results[i] = result{p: pages[i], shell: shell.Get(target, q), full: full.Get(target, q)}
			}
		})
	}
	for i := range pages {
		jobs <- i
	}
	close(jobs)
	wg.Wait()

	differ := 0
	for _, r := range results {
		if r.shell.HTTP != http.StatusOK || r.full.HTTP != http.StatusOK {
			t.Errorf("%s/%s: shell %d %s, full %d %s", r.p.set, r.p.name, r.shell.HTTP, r.shell.Code, r.full.HTTP, r.full.Code)
			continue
		}
		var s, f map[string]json.RawMessage
		_ = json.Unmarshal(r.shell.Data, &s)
		_ = json.Unmarshal(r.full.Data, &f)
		fields := []string{"title", "description", "lang", "author", "publisher", "image", "date", "datePublished", "dateModified", "url", "logo"}
		if r.p.set == "markdown" {
			fields = []string{"content"}
			if len(bytes.TrimSpace(f["content"])) == 0 {
				t.Errorf("%s/%s: no content on the full browser", r.p.set, r.p.name)
			}
		}
		for _, field := range fields {
			if !bytes.Equal(s[field], f[field]) {
				differ++
				t.Errorf("%s/%s %s: shell %.300s, full browser %.300s", r.p.set, r.p.name, field, s[field], f[field])
			}
		}
	}
	t.Logf("%d pages, %d fields that differ", len(pages), differ)
}
