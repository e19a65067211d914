package rendering_test

import (
	"cmp"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/glimpse/glimpse/orchestrator/internal/e2e"
)

// devPage is one page of a development set: the set's name and the page's
// folder in it.
type devPage struct{ set, name string }

// devPages lists the pages of sets (name → folder), sorted, so that a
// sample of them is the same on every run.
func devPages(t *testing.T, sets map[string]string) []devPage {
	t.Helper()
	var pages []devPage
	for set, dir := range sets {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if _, err := os.Stat(filepath.Join(dir, e.Name(), "page.html")); err == nil {
				pages = append(pages, devPage{set, e.Name()})
			}
		}
	}
	slices.SortFunc(pages, func(a, b devPage) int { return cmp.Or(cmp.Compare(a.set, b.set), cmp.Compare(a.name, b.name)) })
	return pages
}

// everyNth keeps every nth of pages, spread over the sets as they are
// sorted, unless the environment variable all is set.
func everyNth(pages []devPage, n int, all string) []devPage {
	if os.Getenv(all) != "" {
		return pages
	}
	var some []devPage
	for i, p := range pages {
		if i%n == 0 {
			some = append(some, p)
		}
	}
	return some
}

// serveDevPages serves each page of sets at /<set>/<name>/ and nothing
// else: the pages' own requests stay on this server, as in the bench, since
// a request to the open internet would fail here after a time that differs
// between two renders.
func serveDevPages(t *testing.T, sets map[string]string) *httptest.Server {
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
	return srv
}

// renderOnBoth asks a and b for every page served by srv, four pages at a
// time, with the query q gives for the page; the answers come back in the
// order of pages. Answers are compared, not times: each request gets the
// longest timeout there is, so that a machine busy with other tests slows
// a render rather than turning it into a 504.
func renderOnBoth(srv *httptest.Server, pages []devPage, a, b *e2e.App, q func(devPage) string) (fromA, fromB []e2e.Answer) {
	fromA, fromB = make([]e2e.Answer, len(pages)), make([]e2e.Answer, len(pages))
	var wg sync.WaitGroup
	jobs := make(chan int)
	for range 4 {
		wg.Go(func() {
			for i := range jobs {
				target := srv.URL + "/" + pages[i].set + "/" + url.PathEscape(pages[i].name) + "/"
				query := q(pages[i]) + "&timeout=60s"
				fromA[i], fromB[i] = a.Get(target, query), b.Get(target, query)
			}
		})
	}
	for i := range pages {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	return fromA, fromB
}
