package meta

import (
	"log/slog"
	"net/url"
	"runtime/debug"
	"time"

	"github.com/PuerkitoBio/goquery"
)

// Result is the metadata of one page. A nil field means the page has none.
type Result struct {
	Title, Description, Lang, Author, Publisher *string
	// Date is ISO 8601 in UTC with milliseconds: "2006-01-02T15:04:05.000Z".
	// It has Microlink's meaning: DateModified when the page gives one,
	// else DatePublished.
	Date *string
	// DatePublished is when the content was first published, DateModified
	// when it last changed; both in Date's form.
	DatePublished, DateModified *string
	// URL is the page's canonical URL, or its final URL when it names none.
	URL *string
	// Image and Logo are ordered best first, with absolute URLs. The caller
	// probes them in order and keeps the first that is a real image. Logo
	// always ends with <origin>/favicon.ico as the last resort.
	Image, Logo []Candidate
}

// Candidate is an image the page offers for a field.
type Candidate struct {
	URL string
	// Type comes from the URL's extension (or the markup's type attribute):
	// "jpg", "png", "gif", "webp", "svg", "ico", "avif", or "" when unknown.
	Type string
	// Width and Height are what the markup declares (og:image:width, sizes,
	// JSON-LD), 0 when it declares nothing.
	Width, Height int
	// Source names the rule that found the candidate (og:image,
	// link:apple-touch-icon, manifest, ...), for logs and for ranking logos
	// merged later (see MergeLogos). "favicon.ico" marks the last-resort
	// guess that the page did not declare.
	Source string
}

// Extract runs every rule over a parsed document whose final URL is pageURL.
// It never panics: a rule that fails on odd markup leaves its field empty
// and logs why.
func Extract(doc *goquery.Document, pageURL *url.URL) Result {
	return extract(doc, pageURL, time.Now())
}

func extract(doc *goquery.Document, pageURL *url.URL, now time.Time) (r Result) {
	if pageURL == nil {
		return Result{}
	}
	if doc == nil || doc.Selection == nil {
		r.URL = strPtr(pageURL.String())
		r.Logo = []Candidate{faviconFallback(pageURL)}
		return r
	}
	var p *page
	if !guard("document", pageURL, func() { p = newPage(doc, pageURL, now) }) {
		r.URL = strPtr(pageURL.String())
		r.Logo = []Candidate{faviconFallback(pageURL)}
		return r
	}
	// Publisher first: the title and author rules compare against it.
	pub, pubFromTitle := "", false
	guard("publisher", pageURL, func() {
		pub, pubFromTitle = p.publisherAndSource()
		r.Publisher = strPtr(pub)
	})
	titlePub := pub
	if pubFromTitle {
		titlePub = "" // a name read off the title cannot say what to cut from it
	}
	guard("title", pageURL, func() { r.Title = strPtr(p.title(titlePub)) })
	guard("description", pageURL, func() { r.Description = strPtr(p.description()) })
	guard("lang", pageURL, func() { r.Lang = strPtr(p.lang()) })
	guard("author", pageURL, func() { r.Author = strPtr(p.author(pub)) })
	guard("date", pageURL, func() {
		author := ""
		if r.Author != nil {
			author = *r.Author
		}
		pub, mod := p.dates(author)
		if pub == "" {
			// A page that states only when it changed has that one date:
			// its publication is no later, and no other is known.
			pub = mod
		}
		r.DatePublished, r.DateModified = strPtr(pub), strPtr(mod)
		r.Date = r.DateModified
		if r.Date == nil {
			r.Date = r.DatePublished
		}
	})
	guard("url", pageURL, func() { r.URL = strPtr(p.canonicalURL()) })
	guard("image", pageURL, func() { r.Image = p.images() })
	guard("logo", pageURL, func() { r.Logo = p.logos() })
	if r.URL == nil {
		r.URL = strPtr(pageURL.String())
	}
	if fav := faviconFallback(pageURL); len(r.Logo) == 0 || r.Logo[len(r.Logo)-1].URL != fav.URL {
		r.Logo = endWith(r.Logo, fav)
	}
	return r
}

// guard runs one rule and turns a panic into a logged, empty field, so that
// markup no rule foresaw never fails a request.
func guard(field string, pageURL *url.URL, rule func()) (ok bool) {
	defer func() {
		if v := recover(); v != nil {
			slog.Error("a metadata rule failed on this page; the field is left empty",
				"field", field, "url", pageURL.String(), "panic", v, "stack", string(debug.Stack()))
			ok = false
		}
	}()
	rule()
	return true
}
