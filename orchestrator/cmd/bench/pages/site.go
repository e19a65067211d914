package pages

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Page is one target the benchmark visits.
type Page struct {
	Name   string // "article", or the corpus case's name
	Path   string // path on the site, such as /article or /corpus/acast/
	Corpus bool   // a real page from the corpus, not a synthetic one
}

// Site is the loopback server of every page.
type Site struct {
	srv      *http.Server
	ln       net.Listener
	base     string
	pages    []Page
	webPages []Page
	done     chan error
}

// Start serves the synthetic pages and, when corpusDir names a folder of
// <case>/page.html, the corpus pages too, on a loopback port. A corpusDir
// that does not exist is not an error: the synthetic pages stand alone.
func Start(corpusDir string) (*Site, error) { return StartWith(corpusDir, nil) }

// StartWith is Start, and with web set it also serves every page under
// /web/ with web's third parties added (see Web.Inject).
func StartWith(corpusDir string, web *Web) (*Site, error) {
	assets, err := newAssets()
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	var pages []Page
	for _, sp := range synthetic {
		pages = append(pages, Page{Name: sp.name, Path: "/" + sp.name})
		body := sp.render()
		mux.HandleFunc("GET /"+sp.name, htmlHandler(body))
	}
	assets.mount(mux)

	corpus, err := loadCorpus(corpusDir)
	if err != nil {
		return nil, err
	}
	for _, c := range corpus {
		p := Page{Name: c.name, Path: "/corpus/" + c.name + "/", Corpus: true}
		pages = append(pages, p)
		mux.HandleFunc("GET "+p.Path, offline(htmlHandler(c.body)))
	}

	var webPages []Page
	if web != nil {
		bodies := map[string][]byte{}
		for _, sp := range synthetic {
			bodies["/"+sp.name] = sp.render()
		}
		for _, c := range corpus {
			bodies["/corpus/"+c.name+"/"] = c.body
		}
		for _, p := range pages {
			wp := Page{Name: "web " + p.Name, Path: "/web" + p.Path, Corpus: p.Corpus}
			webPages = append(webPages, wp)
			mux.HandleFunc("GET "+wp.Path, withPolicy(web.Policy(), htmlHandler(web.Inject(bodies[p.Path]))))
		}
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listening for the page server on loopback: %w", err)
	}
	s := &Site{
		srv: &http.Server{
			Handler:           mux,
			ReadHeaderTimeout: 10 * time.Second,
			ErrorLog:          slog.NewLogLogger(slog.Default().Handler(), slog.LevelWarn),
		},
		ln:       ln,
		base:     "http://" + ln.Addr().String(),
		pages:    pages,
		webPages: webPages,
		done:     make(chan error, 1),
	}
	go func() { s.done <- s.srv.Serve(ln) }()
	return s, nil
}

// Pages lists every page, synthetic ones first, then the corpus by name.
func (s *Site) Pages() []Page { return slices.Clone(s.pages) }

// WebPages lists the pages of the web-like model (StartWith), in the order
// of Pages; none without a model.
func (s *Site) WebPages() []Page { return slices.Clone(s.webPages) }

// Base is the site's address, http://127.0.0.1:port.
func (s *Site) Base() string { return s.base }

// URL is the address of p made unique by n: a query the pages ignore, so
// that glimpse renders each request instead of sharing one render between
// identical concurrent requests.
func (s *Site) URL(p Page, n int) string {
	return s.base + p.Path + "?r=" + strconv.Itoa(n)
}

// Close stops the server.
func (s *Site) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	if serr := <-s.done; !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	return err
}

func htmlHandler(body []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Type", "text/html; charset=utf-8")
		h.Set("Cache-Control", "max-age=60")
		h.Set("Content-Length", strconv.Itoa(len(body)))
		_, _ = w.Write(body)
	}
}

// corpusPolicy keeps a real page's requests on the page server. Its
// scripts, stylesheets and fonts from the open internet would only fail on
// a machine without it, and how long each failure takes (a DNS time-out of
// seconds, at random) would be most of what a row measures. Inline
// scripts and styles still run, and its pictures come from the page server
// (see withPictures).
const corpusPolicy = "default-src 'self' 'unsafe-inline' 'unsafe-eval' data: blob:"

func offline(h http.HandlerFunc) http.HandlerFunc { return withPolicy(corpusPolicy, h) }

func withPolicy(policy string, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", policy)
		h(w, r)
	}
}

type corpusPage struct {
	name string
	body []byte
}

// loadCorpus reads <dir>/<case>/page.html for every case, sorted by name.
func loadCorpus(dir string) ([]corpusPage, error) {
	if dir == "" {
		return nil, nil
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the page corpus in %s: %w", dir, err)
	}
	var out []corpusPage
	for _, e := range entries {
		if !e.IsDir() || strings.ContainsAny(e.Name(), "/?#% ") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name(), "page.html"))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("reading the corpus page %s: %w", e.Name(), err)
		}
		b, _ = withPictures(b)
		out = append(out, corpusPage{name: e.Name(), body: b})
	}
	slices.SortFunc(out, func(a, b corpusPage) int { return strings.Compare(a.name, b.name) })
	return out, nil
}
