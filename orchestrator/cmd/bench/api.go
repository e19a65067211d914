package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/glimpse/glimpse/orchestrator/cmd/bench/pages"
	"github.com/glimpse/glimpse/orchestrator/cmd/bench/rawcdp"
)

// api calls a running glimpse over HTTP with keep-alive connections.
type api struct {
	base   string // http://127.0.0.1:port
	client *http.Client
}

func newAPI(base string, conns int) *api {
	tr := &http.Transport{
		MaxIdleConns:        conns * 2,
		MaxIdleConnsPerHost: conns * 2,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true, // measure the bytes glimpse sends, not a gzip round trip
	}
	return &api{base: base, client: &http.Client{Transport: tr, Timeout: 40 * time.Second}}
}

// answer is one HTTP answer of the API, its envelope decoded lazily.
type answer struct {
	status int
	header http.Header
	body   []byte
}

type envelope struct {
	Status  string                     `json:"status"`
	Code    string                     `json:"code"`
	Message string                     `json:"message"`
	Data    map[string]json.RawMessage `json:"data"`
}

func (a answer) envelope() (envelope, error) {
	var e envelope
	if err := json.Unmarshal(a.body, &e); err != nil {
		return e, fmt.Errorf("the answer (HTTP %d) is not a JSON envelope: %v: %.200q", a.status, err, a.body)
	}
	return e, nil
}

// do sends one request; the clock of the caller covers it up to the last
// byte of the body.
func (c *api) do(ctx context.Context, method, rawQuery string) (answer, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.base+"/?"+rawQuery, nil)
	if err != nil {
		return answer{}, err
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return answer{}, fmt.Errorf("reading the answer: %w", err)
	}
	return answer{status: resp.StatusCode, header: resp.Header, body: body}, nil
}

// A kind is one sort of API request: how to ask, and how to tell a right
// answer from a wrong one.
type kind struct {
	name   string
	method string
	query  func(target string) string
	check  func(a answer, p pages.Page) error
	// visit, when set, is the baseline's visit for this kind, through the
	// unfiltered proxy (web-like rows); nil means the kind's usual one.
	visit func(b *rawcdp.Browser, ctx context.Context, url string, ready func()) (rawcdp.Result, error)
}

func targetQuery(target string) string { return "url=" + url.QueryEscape(target) }

// success checks for HTTP 200 with status "success".
func success(a answer) (envelope, error) {
	e, err := a.envelope()
	if err != nil {
		return e, err
	}
	if a.status != http.StatusOK || e.Status != "success" {
		return e, fmt.Errorf("HTTP %d %s %s: %s", a.status, e.Status, e.Code, e.Message)
	}
	return e, nil
}

// checkMetadata wants a title: every synthetic page has one, the
// script-heavy page only after its late API call, which is the point.
func checkMarkdown(a answer, p pages.Page) error {
	if a.status != http.StatusOK || !strings.HasPrefix(a.header.Get("content-type"), "text/markdown") {
		return fmt.Errorf("the Markdown of %s answered %d %q: %.200s", p.Path, a.status, a.header.Get("content-type"), a.body)
	}
	if len(bytes.TrimSpace(a.body)) == 0 && !p.Corpus {
		return fmt.Errorf("the Markdown of %s is empty", p.Path)
	}
	return nil
}

func checkMetadata(a answer, p pages.Page) error {
	e, err := success(a)
	if err != nil {
		return err
	}
	if p.Corpus {
		return nil
	}
	var title *string
	_ = json.Unmarshal(e.Data["title"], &title)
	if title == nil || *title == "" {
		return fmt.Errorf("the answer for %s has no title, though the page sets one", p.Path)
	}
	return nil
}

func checkPDF(a answer, _ pages.Page) error {
	e, err := success(a)
	if err != nil {
		return err
	}
	var pdf struct {
		URL  string `json:"url"`
		Size int64  `json:"size"`
	}
	if err := json.Unmarshal(e.Data["pdf"], &pdf); err != nil || pdf.URL == "" || pdf.Size <= 0 {
		return fmt.Errorf("the answer has no usable pdf object: %.200s", e.Data["pdf"])
	}
	return nil
}

func wantHit(a answer) error {
	if got := a.header.Get("x-cache-status"); got != "HIT" {
		return fmt.Errorf("x-cache-status is %q, want HIT", got)
	}
	return nil
}

var (
	// kindMetadata always renders in the browser (prerender=true) and
	// fetches no asset (ping=false): the same work as the baseline's.
	kindMetadata = kind{name: "metadata", method: http.MethodGet, check: checkMetadata,
		query: func(t string) string { return targetQuery(t) + "&force=true&ping=false&prerender=true" }}
	// kindMetadataNoPixels is kindMetadata measured against a baseline
	// that loads no picture, media or font: the same work as glimpse's
	// lean render without its early read, so the row shows what glimpse
	// gains beyond not painting.
	kindMetadataNoPixels = kind{name: "metadata vs a baseline without pixels", method: http.MethodGet, check: checkMetadata,
		query: kindMetadata.query}
	// kindDefaults is what a caller gets without options: a plain fetch
	// when the page allows it (prerender=auto), image and logo probed.
	kindDefaults = kind{name: "metadata, defaults", method: http.MethodGet, check: checkMetadata,
		query: func(t string) string { return targetQuery(t) + "&force=true" }}
	// kindDefaultsNoPing is kindDefaults without the image and logo
	// probes: the probes' cost is the difference.
	kindDefaultsNoPing = kind{name: "metadata, defaults, ping=false", method: http.MethodGet, check: checkMetadata,
		query: func(t string) string { return targetQuery(t) + "&force=true&ping=false" }}
	// kindMarkdown is a page's main content as Markdown, the answer
	// itself, with the defaults otherwise.
	kindMarkdown = kind{name: "Markdown, defaults", method: http.MethodGet, check: checkMarkdown,
		query: func(t string) string {
			return targetQuery(t) + "&data.content.attr=markdown&meta=false&embed=content&force=true"
		}}
	kindPDF = kind{name: "PDF", method: http.MethodGet, check: checkPDF,
		query: func(t string) string { return targetQuery(t) + "&meta=false&pdf=true&force=true" }}

	// The soak's cached kinds ask for targets primed beforehand.
	kindCached = kind{name: "cache hit", method: http.MethodGet,
		query: func(t string) string { return targetQuery(t) + "&ping=false" },
		check: func(a answer, p pages.Page) error {
			if err := checkMetadata(a, p); err != nil {
				return err
			}
			return wantHit(a)
		}}
	kindHead = kind{name: "HEAD cache hit", method: http.MethodHead,
		query: func(t string) string { return targetQuery(t) + "&ping=false" },
		check: func(a answer, _ pages.Page) error {
			if a.status != http.StatusOK || len(a.body) != 0 {
				return fmt.Errorf("HEAD answered HTTP %d with %d bytes of body", a.status, len(a.body))
			}
			return wantHit(a)
		}}
	kindEmbedPDF = kind{name: "embed=pdf.url", method: http.MethodGet,
		query: func(t string) string { return targetQuery(t) + "&meta=false&pdf=true&embed=pdf.url" },
		check: func(a answer, _ pages.Page) error {
			if a.status != http.StatusOK || !bytes.HasPrefix(a.body, []byte("%PDF")) {
				return fmt.Errorf("embed=pdf.url answered HTTP %d, %s, %d bytes that are not a PDF", a.status, a.header.Get("content-type"), len(a.body))
			}
			return nil
		}}
	kindNothing = kind{name: "meta=false", method: http.MethodGet,
		query: func(t string) string { return targetQuery(t) + "&meta=false" },
		check: func(a answer, _ pages.Page) error {
			if _, err := success(a); err != nil {
				return err
			}
			if m := a.header.Get("x-fetch-mode"); m != "skipped" {
				return fmt.Errorf("x-fetch-mode is %q, want skipped", m)
			}
			return nil
		}}
	kindBadQuery = kind{name: "bad query", method: http.MethodGet,
		query: func(t string) string { return targetQuery(t) + "&pdf.scale=9" },
		check: func(a answer, _ pages.Page) error {
			e, err := a.envelope()
			if err != nil {
				return err
			}
			if a.status != http.StatusBadRequest || e.Code != "EINVALQUERY" {
				return fmt.Errorf("pdf.scale=9 answered HTTP %d %s, want 400 EINVALQUERY", a.status, e.Code)
			}
			if !strings.Contains(e.Message, "pdf.scale") {
				return fmt.Errorf("the EINVALQUERY message does not name pdf.scale: %q", e.Message)
			}
			return nil
		}}
)
