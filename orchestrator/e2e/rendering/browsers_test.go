package rendering_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
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
	t.Parallel() // answers are compared, not times
	for _, p := range []string{headlessShell, fullBrowser} {
		if _, err := os.Stat(p); err != nil {
			testtool.Missingf(t, "%s is not installed (apt-get install chromium chromium-headless-shell): %v", p, err)
		}
	}
	sets := evalSets(t)
	if md := markdownCorpus(); md != "" {
		sets["markdown"] = md
	}
	pages := devPages(t, sets)
	// Every page takes two renders: by default a fixed sixteenth of the
	// pages keeps the suite quick; GLIMPSE_EVAL_BROWSERS=1 compares them
	// all.
	pages = everyNth(pages, 16, "GLIMPSE_EVAL_BROWSERS")
	srv := serveDevPages(t, sets)
	shell := e2e.StartApp(t, func(c *orchestrator.Config) { c.ChromePath = headlessShell })
	full := e2e.StartApp(t, func(c *orchestrator.Config) { c.ChromePath = fullBrowser })
	fromShell, fromFull := renderOnBoth(srv, pages, shell, full, func(p devPage) string {
		if p.set == "markdown" {
			return "prerender=true&ping=false&force=true&data.content.attr=markdown&meta=false"
		}
		return "prerender=true&ping=false&force=true"
	})

	differ := 0
	for i, p := range pages {
		r := struct {
			p           devPage
			shell, full e2e.Answer
		}{p, fromShell[i], fromFull[i]}
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
