package meta

import (
	"bytes"
	"log/slog"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
)

// testNow is the clock of the rule tests.
var testNow = time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC)

// testPage is the final URL of the pages in rule tests.
const testPage = "https://news.example.com/2024/03/story.html"

func parseHTML(t testing.TB, html string) *goquery.Document {
	t.Helper()
	doc, err := ParseDocument(strings.NewReader(html))
	if err != nil {
		t.Fatalf("the test page does not parse: %v", err)
	}
	return doc
}

func mustURL(t testing.TB, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatalf("bad test URL %q: %v", raw, err)
	}
	return u
}

// extractHTML runs every rule over html served at testPage.
func extractHTML(t testing.TB, html string) Result {
	t.Helper()
	return extract(parseHTML(t, html), mustURL(t, testPage), testNow)
}

// value is a field's text, "" for nil.
func value(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func urls(cs []Candidate) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.URL)
	}
	return out
}

func TestExtractEmptyPageGivesNullsTheFinalURLAndTheFaviconGuess(t *testing.T) {
	r := extractHTML(t, ``)
	for name, f := range map[string]*string{"title": r.Title, "description": r.Description, "lang": r.Lang,
		"author": r.Author, "date": r.Date} {
		if f != nil {
			t.Errorf("%s = %q on an empty page, want nil", name, *f)
		}
	}
	if got := value(r.Publisher); got != "news.example.com" {
		t.Errorf("publisher = %q, want the domain news.example.com", got)
	}
	if got := value(r.URL); got != testPage {
		t.Errorf("url = %q, want the final URL %q", got, testPage)
	}
	if len(r.Image) != 0 {
		t.Errorf("image candidates = %v, want none", urls(r.Image))
	}
	if got := urls(r.Logo); len(got) != 1 || got[0] != "https://news.example.com/favicon.ico" {
		t.Errorf("logo candidates = %v, want only the /favicon.ico guess", got)
	}
}

func TestExtractWithoutDocumentStillAnswers(t *testing.T) {
	u := mustURL(t, testPage)
	r := Extract(nil, u)
	if value(r.URL) != testPage || len(r.Logo) != 1 || r.Logo[0].Source != sourceFavicon {
		t.Errorf("Extract(nil doc) = url %q logo %v, want the final URL and the favicon guess", value(r.URL), urls(r.Logo))
	}
	if r := Extract(parseHTML(t, "<p>x"), nil); r.URL != nil || r.Logo != nil {
		t.Errorf("Extract without a URL = %+v, want an empty result", r)
	}
	if r := Extract(&goquery.Document{}, u); value(r.URL) != testPage {
		t.Errorf("Extract(zero document) url = %q, want %q", value(r.URL), testPage)
	}
}

func TestExtractLogoAlwaysEndsWithTheOriginFavicon(t *testing.T) {
	r := extractHTML(t, `<link rel="icon" href="/a.png" sizes="32x32"><meta property="og:logo" content="/logo.png">`)
	last := r.Logo[len(r.Logo)-1]
	if last.URL != "https://news.example.com/favicon.ico" || last.Source != sourceFavicon || last.Type != "ico" {
		t.Errorf("last logo candidate = %+v, want the origin's favicon.ico", last)
	}
}

func TestExtractSurvivesBadMarkup(t *testing.T) {
	logs := captureLog(t)
	pages := map[string]string{
		"unclosed tags and stray bytes": "<html><head><title>T<meta property=og:title content='x\x00\xff'><body><p><p><div>",
		"JSON-LD that is not JSON":      `<script type="application/ld+json">{"@type": "Article", "headline": </script>`,
		"JSON-LD of the wrong shapes": `<script type="application/ld+json">[1, "x", null, {"@graph": 5}, {"@type": 7, "author": [[[]]],
			"publisher": {"@id": 3}, "image": {"url": {"url": 1}}, "datePublished": {"@value": []}, "headline": {"a": 1}}]</script>`,
		"attributes without values":   `<meta property="og:image"><link rel="icon"><link rel="canonical" href><time datetime></time>`,
		"URLs that do not parse":      `<meta property="og:image" content="http://[::1"><link rel="icon" href="%%%"><meta property="og:url" content="::">`,
		"deeply nested JSON-LD":       `<script type="application/ld+json">` + strings.Repeat(`{"author":`, 500) + `"x"` + strings.Repeat(`}`, 500) + `</script>`,
		"a title only inside an SVG":  `<svg><title>icon</title></svg>`,
		"huge attribute values":       `<meta name="description" content="` + strings.Repeat("word ", 100000) + `">`,
		"self-referencing @id graphs": `<script type="application/ld+json">{"@graph":[{"@id":"#a","@type":"Article","author":{"@id":"#a"},"publisher":{"@id":"#a"}}]}</script>`,
	}
	for name, html := range pages {
		t.Run(name, func(t *testing.T) {
			r := extractHTML(t, html)
			if r.URL == nil || len(r.Logo) == 0 {
				t.Errorf("result %+v lacks the url or the favicon guess", r)
			}
			if logs.Len() > 0 {
				t.Errorf("a rule panicked: %s", logs.String())
				logs.Reset()
			}
		})
	}
}

// captureLog sends the default logger to a buffer for the rest of the test.
func captureLog(t testing.TB) *bytes.Buffer {
	var buf bytes.Buffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, nil)))
	t.Cleanup(func() { slog.SetDefault(prev) })
	return &buf
}

func TestGuardTurnsAPanicIntoAnEmptyFieldAndALogLine(t *testing.T) {
	logs := captureLog(t)
	u := mustURL(t, testPage)
	var field *string
	ok := guard("title", u, func() {
		var m map[string]int
		m["boom"]++ // a rule bug: write to a nil map
		field = strPtr("never")
	})
	if ok || field != nil {
		t.Errorf("guard = %v with field %v, want false and the field left nil", ok, field)
	}
	if !strings.Contains(logs.String(), "field=title") || !strings.Contains(logs.String(), "the field is left empty") {
		t.Errorf("log = %q, want a line naming the field that failed", logs.String())
	}
	if !guard("title", u, func() {}) {
		t.Error("guard reported a failure for a rule that returned normally")
	}
}

func FuzzExtract(f *testing.F) {
	for _, seed := range []string{
		``, `<title>x</title>`, `<meta property="og:image" content="//cdn.example.com/a.png">`,
		`<script type="application/ld+json">{"@type":"NewsArticle","author":[{"name":"A"},"B"],"datePublished":"2020-01-02"}</script>`,
		`<link rel="apple-touch-icon" sizes="180x180" href="/t.png"><time datetime="2019-12-31T23:59:59+01:00">`,
		`<div class="byline">By <a href="/author/x">Jane Doe</a> | May 3, 2016</div>`,
		`<h1>T</h1><div class="_x">By<span>Jane Doe</span> 2019年3月5日</div><nav><a href="/author/y">Menu Writer</a></nav>`,
		strings.Repeat("<div>", 600) + "<h1>deep</h1>",
	} {
		f.Add(seed)
	}
	u, _ := url.Parse(testPage)
	logs := captureLog(f)
	f.Fuzz(func(t *testing.T, html string) {
		logs.Reset()
		doc, err := ParseDocument(strings.NewReader(html))
		if err != nil {
			t.Fatalf("ParseDocument failed on a page read from memory: %v", err)
		}
		r := extract(doc, u, testNow)
		if logs.Len() > 0 {
			t.Fatalf("a rule panicked on this page: %s", logs.String())
		}
		if len(r.Logo) == 0 || r.Logo[len(r.Logo)-1].URL != "https://news.example.com/favicon.ico" {
			t.Fatalf("logo candidates %v do not end with the favicon guess", urls(r.Logo))
		}
		for _, c := range append(r.Image, r.Logo...) {
			if !strings.HasPrefix(c.URL, "http://") && !strings.HasPrefix(c.URL, "https://") {
				t.Fatalf("candidate %q is not an absolute http(s) URL", c.URL)
			}
		}
		if r.Date != nil {
			if _, err := time.Parse("2006-01-02T15:04:05.000Z", *r.Date); err != nil {
				t.Fatalf("date %q is not ISO 8601 UTC with milliseconds", *r.Date)
			}
		}
	})
}
