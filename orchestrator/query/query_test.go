package query

import (
	"fmt"
	"math"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/glimpse/glimpse/orchestrator/apierr"
)

const exampleTarget = "url=https%3A%2F%2Fexample.com%2F"

// requestCase is one query. Unless raw is set, the query is appended to a
// valid url parameter. check inspects an accepted request; code, param and
// msg (fragments of the message) describe a refusal.
type requestCase struct {
	name  string
	query string
	raw   bool
	lim   Limits
	check func(t *testing.T, r *Request)
	code  string
	param string
	msg   []string
}

func inchesNear(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-9 {
		t.Errorf("%s is %gin, want %gin", what, got, want)
	}
}

func wantFields(fields ...string) func(t *testing.T, r *Request) {
	return func(t *testing.T, r *Request) {
		t.Helper()
		if r.MetaOff || !reflect.DeepEqual(r.Fields, fields) {
			t.Errorf("fields %v (off %v), want %v", r.Fields, r.MetaOff, fields)
		}
	}
}

func wantMetaOff(t *testing.T, r *Request) {
	t.Helper()
	if !r.MetaOff || r.Fields != nil {
		t.Errorf("metadata is on with fields %v, want it off", r.Fields)
	}
}

func wantPDF(f func(t *testing.T, o *PDFOptions)) func(t *testing.T, r *Request) {
	return func(t *testing.T, r *Request) {
		t.Helper()
		if r.PDF == nil {
			t.Fatal("no PDF was asked for")
		}
		f(t, r.PDF)
	}
}

func wantNoPDF(t *testing.T, r *Request) {
	t.Helper()
	if r.PDF != nil {
		t.Errorf("a PDF was asked for: %+v", r.PDF)
	}
}

func wantMargins(top, right, bottom, left float64) func(t *testing.T, r *Request) {
	return wantPDF(func(t *testing.T, o *PDFOptions) {
		inchesNear(t, "top margin", o.Margin.Top, top)
		inchesNear(t, "right margin", o.Margin.Right, right)
		inchesNear(t, "bottom margin", o.Margin.Bottom, bottom)
		inchesNear(t, "left margin", o.Margin.Left, left)
	})
}

func wantPageRanges(s string) func(t *testing.T, r *Request) {
	return wantPDF(func(t *testing.T, o *PDFOptions) {
		if o.PageRanges != s {
			t.Errorf("page ranges %q, want %q", o.PageRanges, s)
		}
	})
}

func wantTimeout(d time.Duration) func(t *testing.T, r *Request) {
	return func(t *testing.T, r *Request) {
		if r.Timeout != d {
			t.Errorf("timeout %v, want %v", r.Timeout, d)
		}
	}
}

func wantStale(on bool, window time.Duration) func(t *testing.T, r *Request) {
	return func(t *testing.T, r *Request) {
		if r.Stale != on || r.StaleTTL != window {
			t.Errorf("stale %t within %v, want %t within %v", r.Stale, r.StaleTTL, on, window)
		}
	}
}

func wantTTL(d time.Duration) func(t *testing.T, r *Request) {
	return func(t *testing.T, r *Request) {
		if r.TTL != d {
			t.Errorf("ttl %v, want %v", r.TTL, d)
		}
	}
}

func wantTarget(s string) func(t *testing.T, r *Request) {
	return func(t *testing.T, r *Request) {
		if got := r.Target.String(); got != s {
			t.Errorf("target %q, want %q", got, s)
		}
	}
}

func wantHeaders(h http.Header) func(t *testing.T, r *Request) {
	return func(t *testing.T, r *Request) {
		if !reflect.DeepEqual(r.Headers, h) {
			t.Errorf("headers %v, want %v", r.Headers, h)
		}
	}
}

func manyHeaders(n, valueLen int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "&headers.x-h%d=%s", i, strings.Repeat("v", valueLen))
	}
	return b.String()[1:]
}

var requestCases = []requestCase{
	// Defaults.
	{name: "a url alone gets every default", query: "", check: func(t *testing.T, r *Request) {
		want := &Request{Fields: AllFields, MediaType: "screen", Timeout: 28 * time.Second, TTL: 24 * time.Hour, Ping: true, Prerender: "auto", Controls: Controls{WaitUntil: "auto"}}
		want.Target = r.Target
		if !reflect.DeepEqual(r, want) {
			t.Errorf("got %+v\nwant %+v", r, want)
		}
		if r.Target.String() != "https://example.com/" {
			t.Errorf("target %q", r.Target)
		}
	}},

	// url.
	{name: "a missing url is EINVALURL", query: "pdf", raw: true, code: apierr.CodeInvalidURL, param: "url", msg: []string{"`url` parameter is missing"}},
	{name: "an empty url is EINVALURL", query: "url=", raw: true, code: apierr.CodeInvalidURL, param: "url", msg: []string{"missing"}},
	{name: "a blank url is EINVALURL", query: "url=%20%20", raw: true, code: apierr.CodeInvalidURL, param: "url", msg: []string{"missing"}},
	{name: "a url is checked before other parameters", query: "url=no&pdf.scale=9", raw: true, code: apierr.CodeInvalidURL, param: "url",
		msg: []string{"The URL `no` is not valid: it needs a protocol (http or https) and a hostname."}},
	{name: "a url as long as the limit is accepted", query: "url=https://example.com/" + strings.Repeat("a", 80), raw: true,
		lim: Limits{MaxURLLength: 100}, check: wantTarget("https://example.com/" + strings.Repeat("a", 80))},
	{name: "a url longer than the limit is EINVALURL", query: "url=https://example.com/" + strings.Repeat("a", 81), raw: true,
		lim: Limits{MaxURLLength: 100}, code: apierr.CodeInvalidURL, param: "url", msg: []string{"101 bytes", "up to 100 bytes"}},
	{name: "a url of 10,000 characters is over the default limit", query: "url=" + long10k, raw: true,
		code: apierr.CodeInvalidURL, param: "url", msg: []string{"8192 bytes"}},
	{name: "the target's encoded query is decoded once", query: "url=https%3A%2F%2Fa.com%2F%3Fx%3D1%26y%3D2", raw: true,
		check: wantTarget("https://a.com/?x=1&y=2")},
	{name: "an escape inside the target's query survives", query: "url=https%3A%2F%2Fa.com%2F%3Fq%3D%252B%2526", raw: true,
		check: wantTarget("https://a.com/?q=%2B%26")},
	{name: "an unencoded target loses its second parameter to ours", query: "url=https://a.com/?x=1&y=2", raw: true,
		check: wantTarget("https://a.com/?x=1")},
	{name: "a plus in an unencoded target is a space", query: "url=https://a.com/?q=a+b", raw: true,
		check: wantTarget("https://a.com/?q=a%20b")},
	{name: "an unencoded fragment is kept", query: "url=https://a.com/%23/page", raw: true, check: wantTarget("https://a.com/#/page")},
	{name: "the same url twice counts once", query: exampleTarget + "&" + exampleTarget, raw: true, check: wantTarget("https://example.com/")},
	{name: "two different urls are refused", query: exampleTarget + "&url=https%3A%2F%2Fexample.org%2F", raw: true,
		code: apierr.CodeInvalidQuery, param: "url", msg: []string{"given twice", "`https://example.com/`", "`https://example.org/`"}},
	{name: "a NUL in the url is EINVALURL", query: "url=https%3A%2F%2Fa.com%2F%00", raw: true, code: apierr.CodeInvalidURL, param: "url", msg: []string{"NUL"}},
	{name: "broken UTF-8 in the url is EINVALURL", query: "url=https%3A%2F%2Fa.com%2F%FF", raw: true, code: apierr.CodeInvalidURL, param: "url", msg: []string{"not UTF-8"}},

	// meta.
	{name: "meta=true keeps every field", query: "meta=true", check: wantFields(AllFields...)},
	{name: "a bare meta keeps every field", query: "meta", check: wantFields(AllFields...)},
	{name: "an empty meta keeps every field", query: "meta=", check: wantFields(AllFields...)},
	{name: "meta=false switches metadata off", query: "meta=false", check: wantMetaOff},
	{name: "meta.<field>=true keeps only those fields", query: "meta.title=true&meta.image=true", check: wantFields("title", "image")},
	{name: "chosen fields come in the envelope's order", query: "meta.logo=true&meta.url=true&meta.title=true", check: wantFields("title", "url", "logo")},
	{name: "meta.<field>=false drops those fields", query: "meta.image=false&meta.logo=false",
		check: wantFields("title", "description", "lang", "author", "publisher", "date", "datePublished", "dateModified", "url")},
	{name: "meta.datePublished=false drops glimpse's own publication date", query: "meta.datePublished=false",
		check: wantFields("title", "description", "lang", "author", "publisher", "image", "date", "dateModified", "url", "logo")},
	{name: "meta.dateModified=true keeps only the modification date", query: "meta.dateModified=true", check: wantFields("dateModified")},
	{name: "a snake_case date field is the camelCase one", query: "meta.date_published=true&meta.date_modified=true",
		check: wantFields("datePublished", "dateModified")},
	{name: "with true and false fields only the true ones matter", query: "meta.title=true&meta.image=false", check: wantFields("title")},
	{name: "meta=true with chosen fields keeps the chosen ones", query: "meta=true&meta.author=true", check: wantFields("author")},
	{name: "dropping every field switches metadata off", query: "meta.title=false&meta.description=false&meta.lang=false&meta.author=false" +
		"&meta.publisher=false&meta.image=false&meta.date=false&meta.datePublished=false&meta.dateModified=false&meta.url=false&meta.logo=false",
		check: wantMetaOff},
	{name: "meta=false with a chosen field is a contradiction", query: "meta=false&meta.title=true", code: apierr.CodeInvalidQuery, param: "meta",
		msg: []string{"`meta=false`", "`meta.title`"}},
	{name: "meta=false with a dropped field is a contradiction too", query: "meta.title=false&meta=false", code: apierr.CodeInvalidQuery, param: "meta"},
	{name: "an unknown field is refused with the list of fields", query: "meta.screenshot=true", code: apierr.CodeInvalidQuery, param: "meta.screenshot",
		msg: []string{"`meta.screenshot` is not a metadata field", "title, description, lang, author, publisher, image, date, datePublished, dateModified, url, logo"}},
	{name: "a field switch must be true or false", query: "meta.title=yes", code: apierr.CodeInvalidQuery, param: "meta.title",
		msg: []string{"`meta.title` must be `true`, `false` or empty (meaning true), got `yes`."}},
	{name: "bare field switches choose their fields, as in Microlink's CLI examples", query: "meta.title&meta.description=&meta.image",
		check: wantFields("title", "description", "image")},
	{name: "meta must be a boolean", query: "meta=1", code: apierr.CodeInvalidQuery, param: "meta",
		msg: []string{"`meta` must be `true`, `false` or empty (meaning true), got `1`."}},
	{name: "booleans are lower case", query: "meta=TRUE", code: apierr.CodeInvalidQuery, param: "meta"},

	// pdf on and off.
	{name: "a bare pdf asks for a PDF with every default", query: "pdf", check: func(t *testing.T, r *Request) {
		if r.MediaType != "print" {
			t.Errorf("media type %q, want print", r.MediaType)
		}
		wantPDF(func(t *testing.T, o *PDFOptions) {
			m := 0.35 / 2.54
			want := PDFOptions{Format: "A4", Width: 8.2677, Height: 11.6929, Margin: Margins{m, m, m, m}, Scale: 0.6, PrintBackground: true}
			if *o != want {
				t.Errorf("got %+v, want %+v", *o, want)
			}
		})(t, r)
	}},
	{name: "an empty pdf asks for a PDF", query: "pdf=", check: wantPDF(func(*testing.T, *PDFOptions) {})},
	{name: "pdf=true asks for a PDF", query: "pdf=true", check: wantPDF(func(*testing.T, *PDFOptions) {})},
	{name: "pdf=false asks for none", query: "pdf=false", check: wantNoPDF},
	{name: "a pdf option alone asks for a PDF", query: "pdf.scale=1", check: wantPDF(func(t *testing.T, o *PDFOptions) {
		if o.Scale != 1 {
			t.Errorf("scale %g", o.Scale)
		}
	})},
	{name: "pdf=false with a pdf option is a contradiction", query: "pdf=false&pdf.scale=1", code: apierr.CodeInvalidQuery, param: "pdf",
		msg: []string{"`pdf=false`", "`pdf.scale`"}},
	{name: "pdf must be a boolean", query: "pdf=yes", code: apierr.CodeInvalidQuery, param: "pdf", msg: []string{"`true`, `false` or empty"}},
	{name: "an unknown pdf option is refused with the list of options", query: "pdf.sacle=1", code: apierr.CodeInvalidQuery, param: "pdf.sacle",
		msg: []string{"not a PDF option", "`pdf.scale`", "`pdf.pageRanges`"}},
	{name: "an unknown margin side is refused", query: "pdf.margin.middle=1cm", code: apierr.CodeInvalidQuery, param: "pdf.margin.middle"},

	// pdf.format, width and height.
	{name: "a format in lower case", query: "pdf.format=letter", check: wantPDF(func(t *testing.T, o *PDFOptions) {
		if o.Format != "Letter" || o.Width != 8.5 || o.Height != 11 {
			t.Errorf("got %s %gx%g", o.Format, o.Width, o.Height)
		}
	})},
	{name: "a format in upper case", query: "pdf.format=LEDGER", check: wantPDF(func(t *testing.T, o *PDFOptions) {
		if o.Format != "Ledger" || o.Width != 17 || o.Height != 11 {
			t.Errorf("got %s %gx%g", o.Format, o.Width, o.Height)
		}
	})},
	{name: "an unknown format is refused with the list", query: "pdf.format=B5", code: apierr.CodeInvalidQuery, param: "pdf.format",
		msg: []string{"`pdf.format` must be one of Letter, Legal, Tabloid, Ledger, A0, A1, A2, A3, A4, A5 or A6 (in any case), got `B5`."}},
	{name: "width and height in millimetres replace the format", query: "pdf.width=210mm&pdf.height=297mm", check: wantPDF(func(t *testing.T, o *PDFOptions) {
		if o.Format != "" {
			t.Errorf("format %q, want none", o.Format)
		}
		inchesNear(t, "width", o.Width, 210/25.4)
		inchesNear(t, "height", o.Height, 297/25.4)
	})},
	{name: "a width alone keeps the format's height", query: "pdf.format=Letter&pdf.width=5in", check: wantPDF(func(t *testing.T, o *PDFOptions) {
		if o.Format != "" || o.Width != 5 || o.Height != 11 {
			t.Errorf("got %q %gx%g", o.Format, o.Width, o.Height)
		}
	})},
	{name: "a zero width is refused", query: "pdf.width=0", code: apierr.CodeInvalidQuery, param: "pdf.width", msg: []string{"from 0.1in to 200in"}},
	{name: "a width over 200 inches is refused", query: "pdf.width=201in", code: apierr.CodeInvalidQuery, param: "pdf.width"},
	{name: "a height that is not a length is refused", query: "pdf.height=tall", code: apierr.CodeInvalidQuery, param: "pdf.height", msg: []string{"got `tall`"}},

	// pdf.margin.
	{name: "one margin sets every side", query: "pdf.margin=1cm", check: wantMargins(1/2.54, 1/2.54, 1/2.54, 1/2.54)},
	{name: "a side overrides the margin", query: "pdf.margin=10mm&pdf.margin.top=1in", check: wantMargins(1, 10/25.4, 10/25.4, 10/25.4)},
	{name: "a side overrides the margin whatever the order", query: "pdf.margin.top=1in&pdf.margin=10mm", check: wantMargins(1, 10/25.4, 10/25.4, 10/25.4)},
	{name: "each side alone", query: "pdf.margin.top=1in&pdf.margin.right=2in&pdf.margin.bottom=0.5in&pdf.margin.left=0", check: wantMargins(1, 2, 0.5, 0)},
	{name: "a bare number is pixels", query: "pdf.margin=96", check: wantMargins(1, 1, 1, 1)},
	{name: "pixels with their unit", query: "pdf.margin=48px", check: wantMargins(0.5, 0.5, 0.5, 0.5)},
	{name: "a unit in capitals after a space", query: "pdf.margin=2.54%20CM", check: wantMargins(1, 1, 1, 1)},
	{name: "a negative margin is refused", query: "pdf.margin=-1cm", code: apierr.CodeInvalidQuery, param: "pdf.margin",
		msg: []string{"`pdf.margin` must not be negative, got `-1cm`."}},
	{name: "an unknown unit is refused", query: "pdf.margin=1em", code: apierr.CodeInvalidQuery, param: "pdf.margin",
		msg: []string{"`1cm`", "`10mm`", "`0.5in`", "`40px`", "got `1em`"}},
	{name: "an exponent is not a length", query: "pdf.margin.top=1e2px", code: apierr.CodeInvalidQuery, param: "pdf.margin.top"},
	{name: "margins wider than the page are refused", query: "pdf.margin=5in", code: apierr.CodeInvalidQuery, param: "pdf.margin",
		msg: []string{"The left and right margins (5in and 5in) leave no room on a page 8.27in wide; make `pdf.margin` smaller"}},
	{name: "side margins that fit only a landscape page are refused in portrait", query: "pdf.margin.left=5in&pdf.margin.right=5in",
		code: apierr.CodeInvalidQuery, param: "pdf.margin.left", msg: []string{"make `pdf.margin.left` or `pdf.margin.right` smaller"}},
	{name: "top and bottom margins too tall for a landscape page", query: "pdf.landscape=true&pdf.margin=1in&pdf.margin.top=7.5in",
		code: apierr.CodeInvalidQuery, param: "pdf.margin.top", msg: []string{"page 8.27in tall", "make `pdf.margin.top` or `pdf.margin` smaller"}},
	{name: "side margins that fit a landscape page are accepted", query: "pdf.margin.left=5in&pdf.margin.right=5in&pdf.landscape=true",
		check: wantMargins(0.35/2.54, 5, 0.35/2.54, 5)},

	// pdf.scale.
	{name: "the smallest scale", query: "pdf.scale=0.1", check: wantPDF(func(t *testing.T, o *PDFOptions) { inchesNear(t, "scale", o.Scale, 0.1) })},
	{name: "the largest scale", query: "pdf.scale=2", check: wantPDF(func(t *testing.T, o *PDFOptions) { inchesNear(t, "scale", o.Scale, 2) })},
	{name: "a scale that is not a number", query: "pdf.scale=abc", code: apierr.CodeInvalidQuery, param: "pdf.scale",
		msg: []string{"`pdf.scale` must be a number from 0.1 to 2, got `abc`."}},
	{name: "a scale below 0.1", query: "pdf.scale=0.05", code: apierr.CodeInvalidQuery, param: "pdf.scale"},
	{name: "a scale above 2", query: "pdf.scale=2.5", code: apierr.CodeInvalidQuery, param: "pdf.scale"},
	{name: "NaN is not a scale", query: "pdf.scale=NaN", code: apierr.CodeInvalidQuery, param: "pdf.scale"},
	{name: "infinity is not a scale", query: "pdf.scale=Inf", code: apierr.CodeInvalidQuery, param: "pdf.scale"},
	{name: "hex is not a scale", query: "pdf.scale=0x1", code: apierr.CodeInvalidQuery, param: "pdf.scale"},

	// pdf switches.
	{name: "landscape", query: "pdf.landscape=true", check: wantPDF(func(t *testing.T, o *PDFOptions) {
		if !o.Landscape {
			t.Error("not landscape")
		}
	})},
	{name: "landscape must be a boolean", query: "pdf.landscape=1", code: apierr.CodeInvalidQuery, param: "pdf.landscape",
		msg: []string{"`pdf.landscape` must be `true`, `false` or empty (meaning true), got `1`."}},
	{name: "print background off", query: "pdf.printBackground=false", check: wantPDF(func(t *testing.T, o *PDFOptions) {
		if o.PrintBackground {
			t.Error("background still printed")
		}
	})},
	{name: "print background off in snake case", query: "pdf.print_background=false", check: wantPDF(func(t *testing.T, o *PDFOptions) {
		if o.PrintBackground {
			t.Error("background still printed")
		}
	})},
	{name: "a snake-case name is quoted as the caller wrote it", query: "pdf.print_background=no", code: apierr.CodeInvalidQuery,
		param: "pdf.print_background", msg: []string{"`pdf.print_background` must be"}},

	// pdf.pageRanges.
	{name: "page ranges lose their spaces", query: "pdf.pageRanges=1-5,%208,%2011-13", check: wantPageRanges("1-5,8,11-13")},
	{name: "page ranges in snake case", query: "pdf.page_ranges=3", check: wantPageRanges("3")},
	{name: "open-ended page ranges", query: "pdf.pageRanges=%202-%20,-4", check: wantPageRanges("2-,-4")},
	{name: "empty page ranges print everything", query: "pdf.pageRanges=", check: wantPageRanges("")},
	{name: "a range that runs backwards", query: "pdf.pageRanges=5-3", code: apierr.CodeInvalidQuery, param: "pdf.pageRanges",
		msg: []string{"`1-5, 8, 11-13`", "`5-3` starts after it ends"}},
	{name: "page zero", query: "pdf.pageRanges=0", code: apierr.CodeInvalidQuery, param: "pdf.pageRanges", msg: []string{"counting from 1"}},
	{name: "an empty item", query: "pdf.pageRanges=1,,2", code: apierr.CodeInvalidQuery, param: "pdf.pageRanges", msg: []string{"empty item"}},
	{name: "a word", query: "pdf.pageRanges=all", code: apierr.CodeInvalidQuery, param: "pdf.pageRanges", msg: []string{"`all`"}},
	{name: "a dash alone", query: "pdf.pageRanges=-", code: apierr.CodeInvalidQuery, param: "pdf.pageRanges", msg: []string{"without pages"}},
	{name: "a range of three numbers", query: "pdf.pageRanges=1-2-3", code: apierr.CodeInvalidQuery, param: "pdf.pageRanges"},
	{name: "a page beyond what Chromium counts", query: "pdf.pageRanges=99999999999", code: apierr.CodeInvalidQuery, param: "pdf.pageRanges"},
	{name: "camel and snake spellings with different values", query: "pdf.pageRanges=1&pdf.page_ranges=2", code: apierr.CodeInvalidQuery,
		param: "pdf.page_ranges", msg: []string{"given twice", "`1`", "`2`"}},
	{name: "camel and snake spellings with the same value", query: "pdf.pageRanges=1&pdf.page_ranges=1", check: wantPageRanges("1")},

	// mediaType.
	{name: "print media without a PDF", query: "mediaType=print", check: func(t *testing.T, r *Request) {
		if r.MediaType != "print" || r.PDF != nil {
			t.Errorf("media %q pdf %v", r.MediaType, r.PDF)
		}
	}},
	{name: "screen media with a PDF, in snake case", query: "pdf&media_type=screen", check: func(t *testing.T, r *Request) {
		if r.MediaType != "screen" {
			t.Errorf("media %q", r.MediaType)
		}
	}},
	{name: "media in capitals", query: "mediaType=PRINT", check: func(t *testing.T, r *Request) {
		if r.MediaType != "print" {
			t.Errorf("media %q", r.MediaType)
		}
	}},
	{name: "unknown media", query: "mediaType=tv", code: apierr.CodeInvalidQuery, param: "mediaType",
		msg: []string{"`mediaType` must be `screen` or `print`, got `tv`."}},
	{name: "two spellings of media with different values", query: "mediaType=print&media_type=screen", code: apierr.CodeInvalidQuery, param: "media_type"},

	// embed.
	{name: "embed the PDF", query: "pdf&embed=pdf.url", check: func(t *testing.T, r *Request) {
		if r.Embed != "pdf.url" {
			t.Errorf("embed %q", r.Embed)
		}
	}},
	{name: "embed the image", query: "embed=image.url", check: func(t *testing.T, r *Request) {
		if r.Embed != "image.url" {
			t.Errorf("embed %q", r.Embed)
		}
	}},
	{name: "embed the PDF without asking for one", query: "embed=pdf.url", code: apierr.CodeInvalidQuery, param: "embed",
		msg: []string{"add `pdf=true`"}},
	{name: "embed the image with metadata off", query: "meta=false&embed=image.url", code: apierr.CodeInvalidQuery, param: "embed",
		msg: []string{"remove `meta=false`"}},
	{name: "embed the logo when only the title is kept", query: "meta.title=true&embed=logo.url", code: apierr.CodeInvalidQuery, param: "embed",
		msg: []string{"add `meta.logo=true`"}},
	{name: "embed the image after dropping it", query: "meta.image=false&embed=image.url", code: apierr.CodeInvalidQuery, param: "embed",
		msg: []string{"remove `meta.image=false`"}},
	{name: "embed a field that is not an asset", query: "embed=title", code: apierr.CodeInvalidQuery, param: "embed",
		msg: []string{"`embed` must be one of `pdf.url`, `image.url`, `logo.url`, `screenshot.url`, or the name of a `data` rule of the query, got `title`."}},
	{name: "embed a data rule", query: "data.content.attr=markdown&embed=content", check: func(t *testing.T, r *Request) {
		if r.Embed != "content" {
			t.Errorf("embed %q, want the rule's name", r.Embed)
		}
	}},
	{name: "embed a screenshot", query: "embed=screenshot.url", code: apierr.CodeInvalidQuery, param: "embed", msg: []string{"needs a screenshot to embed: add `screenshot=true`"}},
	{name: "an empty embed", query: "embed=", code: apierr.CodeInvalidQuery, param: "embed"},

	// headers.
	{name: "headers get canonical names", query: "headers.cookie=a%3Db&headers.authorization=Bearer%20x&headers.x-custom=1",
		check: wantHeaders(http.Header{"Cookie": {"a=b"}, "Authorization": {"Bearer x"}, "X-Custom": {"1"}})},
	{name: "a header given twice alike counts once", query: "headers.cookie=a&headers.Cookie=a", check: wantHeaders(http.Header{"Cookie": {"a"}})},
	{name: "a header given twice differently is refused", query: "headers.cookie=a&headers.Cookie=b", code: apierr.CodeInvalidQuery,
		param: "headers.Cookie", msg: []string{"given twice"}},
	{name: "spaces around a header value are trimmed", query: "headers.x-a=%20v%09", check: wantHeaders(http.Header{"X-A": {"v"}})},
	{name: "an empty header value is sent", query: "headers.x-a=", check: wantHeaders(http.Header{"X-A": {""}})},
	{name: "a header name with a space", query: "headers.bad%20name=1", code: apierr.CodeInvalidQuery, param: "headers.bad name",
		msg: []string{"not name a valid header"}},
	{name: "a header without a name", query: "headers.=1", code: apierr.CodeInvalidQuery, param: "headers.", msg: []string{"needs a header name"}},
	{name: "headers without a dot", query: "headers=cookie", code: apierr.CodeInvalidQuery, param: "headers", msg: []string{"one parameter per header"}},
	{name: "a header value with a line break", query: "headers.x-a=a%0D%0AInjected:%201", code: apierr.CodeInvalidQuery, param: "headers.x-a",
		msg: []string{"control characters"}},
	{name: "a header value with NUL", query: "headers.x-a=a%00", code: apierr.CodeInvalidQuery, param: "headers.x-a", msg: []string{"NUL"}},
	{name: "a header value that is not UTF-8", query: "headers.x-a=%FF", code: apierr.CodeInvalidQuery, param: "headers.x-a", msg: []string{"not UTF-8"}},
	{name: "32 headers are accepted", query: manyHeaders(32, 10), check: func(t *testing.T, r *Request) {
		if len(r.Headers) != 32 {
			t.Errorf("%d headers", len(r.Headers))
		}
	}},
	{name: "33 headers are refused", query: manyHeaders(33, 10), code: apierr.CodeInvalidQuery, param: "headers", msg: []string{"33", "at most 32"}},
	{name: "headers over 8 KiB are refused", query: manyHeaders(2, 4200), code: apierr.CodeInvalidQuery, param: "headers", msg: []string{"8 KiB"}},

	// timeout.
	{name: "a timeout in milliseconds", query: "timeout=5000", check: wantTimeout(5 * time.Second)},
	{name: "a timeout in seconds", query: "timeout=10s", check: wantTimeout(10 * time.Second)},
	{name: "a timeout in fractional seconds", query: "timeout=1.5s", check: wantTimeout(1500 * time.Millisecond)},
	{name: "a timeout with a spelled-out unit", query: "timeout=20%20seconds", check: wantTimeout(20 * time.Second)},
	{name: "a timeout of one minute is the maximum", query: "timeout=1m", check: wantTimeout(time.Minute)},
	{name: "the shortest timeout", query: "timeout=1000ms", check: wantTimeout(time.Second)},
	{name: "a timeout under a second", query: "timeout=500ms", code: apierr.CodeInvalidQuery, param: "timeout", msg: []string{"from 1s to 60s"}},
	{name: "a timeout over the maximum names the maximum", query: "timeout=90s", code: apierr.CodeInvalidQuery, param: "timeout",
		msg: []string{"`timeout` must be from 1s to 60s, in milliseconds (`5000`) or with a unit (`10s`, `1.5s`, `500ms`), got `90s`."}},
	{name: "a larger maximum from the server", query: "timeout=90s", lim: Limits{MaxTimeout: 2 * time.Minute}, check: wantTimeout(90 * time.Second)},
	{name: "the server's default timeout", query: "", lim: Limits{DefaultTimeout: 10 * time.Second}, check: wantTimeout(10 * time.Second)},
	{name: "a default above the maximum is capped", query: "", lim: Limits{DefaultTimeout: time.Hour, MaxTimeout: 30 * time.Second},
		check: wantTimeout(30 * time.Second)},
	{name: "a timeout that is not a duration", query: "timeout=soon", code: apierr.CodeInvalidQuery, param: "timeout"},
	{name: "a negative timeout", query: "timeout=-5", code: apierr.CodeInvalidQuery, param: "timeout"},
	{name: "a timeout with an unknown unit", query: "timeout=5y", code: apierr.CodeInvalidQuery, param: "timeout"},
	{name: "a timeout too large for any clock", query: "timeout=99999999999999999999w", code: apierr.CodeInvalidQuery, param: "timeout"},

	// ttl.
	{name: "a ttl in hours", query: "ttl=1h", check: wantTTL(time.Hour)},
	{name: "a ttl in days", query: "ttl=7d", check: wantTTL(7 * 24 * time.Hour)},
	{name: "a ttl in milliseconds", query: "ttl=3600000", check: wantTTL(time.Hour)},
	{name: "the shortest ttl", query: "ttl=60000", check: wantTTL(time.Minute)},
	{name: "the longest ttl", query: "ttl=31d", check: wantTTL(31 * 24 * time.Hour)},
	{name: "a ttl in weeks", query: "ttl=2w", check: wantTTL(14 * 24 * time.Hour)},
	{name: "the ttl alias min is the shortest", query: "ttl=min", check: wantTTL(time.Minute)},
	{name: "the ttl alias max is the longest", query: "ttl=MAX", check: wantTTL(31 * 24 * time.Hour)},
	{name: "a ttl under a minute", query: "ttl=59s", code: apierr.CodeInvalidQuery, param: "ttl",
		msg: []string{"`ttl` must be from 1 minute to 31 days", "got `59s`"}},
	{name: "a ttl over 31 days", query: "ttl=32d", code: apierr.CodeInvalidQuery, param: "ttl"},
	{name: "a ttl that is not a duration", query: "ttl=forever", code: apierr.CodeInvalidQuery, param: "ttl"},

	// staleTtl, as Microlink's: a refresh window before expiry, at most the ttl.
	{name: "no staleTtl serves nothing stale", query: "ttl=1h", check: wantStale(false, 0)},
	{name: "staleTtl=0 serves an expired answer once while it refreshes", query: "staleTtl=0", check: wantStale(true, 0)},
	{name: "a bare staleTtl is 0", query: "staleTtl", check: wantStale(true, 0)},
	{name: "staleTtl=true is 0", query: "staleTtl=true", check: wantStale(true, 0)},
	{name: "staleTtl=false is off", query: "staleTtl=false", check: wantStale(false, 0)},
	{name: "a refresh window within the ttl", query: "ttl=1d&staleTtl=1h", check: wantStale(true, time.Hour)},
	{name: "a refresh window as long as the ttl", query: "ttl=max&staleTtl=31d", check: wantStale(true, 31*24*time.Hour)},
	{name: "a refresh window longer than the ttl", query: "ttl=1m&staleTtl=1h", code: apierr.CodeInvalidQuery, param: "staleTtl",
		msg: []string{"from 0 to the answer's `ttl` (1m0s)", "got `1h`"}},
	{name: "a staleTtl that is not a duration", query: "staleTtl=soon", code: apierr.CodeInvalidQuery, param: "staleTtl"},

	// force and ping.
	{name: "a bare force", query: "force", check: func(t *testing.T, r *Request) {
		if !r.Force {
			t.Error("not forced")
		}
	}},
	{name: "force=false", query: "force=false", check: func(t *testing.T, r *Request) {
		if r.Force {
			t.Error("forced")
		}
	}},
	{name: "force must be a boolean", query: "force=1", code: apierr.CodeInvalidQuery, param: "force", msg: []string{"`force` must be `true`, `false` or empty"}},
	{name: "ping=false", query: "ping=false", check: func(t *testing.T, r *Request) {
		if r.Ping {
			t.Error("still pinging")
		}
	}},
	{name: "a bare ping", query: "ping", check: func(t *testing.T, r *Request) {
		if !r.Ping {
			t.Error("not pinging")
		}
	}},
	{name: "ping must be a boolean", query: "ping=no", code: apierr.CodeInvalidQuery, param: "ping"},

	// The query string itself.
	{name: "unknown parameters are ignored", query: "screenshot=true&waitUntil=load&video&foo=%FF%00", check: wantNoPDF},
	{name: "parameter names are percent-decoded", query: "pdf%2Escale=1", check: wantPDF(func(t *testing.T, o *PDFOptions) {
		if o.Scale != 1 {
			t.Errorf("scale %g", o.Scale)
		}
	})},
	{name: "a semicolon does not separate parameters", query: "pdf;force", check: func(t *testing.T, r *Request) {
		if r.PDF != nil || r.Force {
			t.Error("a semicolon split the parameter")
		}
	}},
	{name: "empty pairs are skipped", query: "&&pdf&&", check: wantPDF(func(*testing.T, *PDFOptions) {})},
	{name: "a plus in a value is a space", query: "mediaType=print+", check: func(t *testing.T, r *Request) {
		if r.MediaType != "print" {
			t.Errorf("media %q", r.MediaType)
		}
	}},
	{name: "a broken escape is kept as typed and shown", query: "timeout=%zz", code: apierr.CodeInvalidQuery, param: "timeout", msg: []string{"got `%zz`"}},
	{name: "NUL in a known parameter", query: "mediaType=print%00", code: apierr.CodeInvalidQuery, param: "mediaType", msg: []string{"NUL"}},
	{name: "broken UTF-8 in a known parameter", query: "embed=%C3", code: apierr.CodeInvalidQuery, param: "embed", msg: []string{"not UTF-8"}},
	{name: "the same value twice counts once", query: "pdf.scale=1&pdf.scale=1", check: wantPDF(func(*testing.T, *PDFOptions) {})},
	{name: "a parameter repeated with another value", query: "pdf.scale=1&pdf.scale=2", code: apierr.CodeInvalidQuery, param: "pdf.scale",
		msg: []string{"`pdf.scale` is given twice with different values (`1` and `2`); give it once."}},
}

func TestParseRequestAppliesTheRulesOfEveryParameter(t *testing.T) {
	checkRequestCases(t, requestCases)
}

func TestEveryPaperFormatHasPuppeteersSize(t *testing.T) {
	sizes := map[string][2]float64{
		"Letter": {8.5, 11}, "Legal": {8.5, 14}, "Tabloid": {11, 17}, "Ledger": {17, 11},
		"A0": {33.1102, 46.811}, "A1": {23.3858, 33.1102}, "A2": {16.5354, 23.3858}, "A3": {11.6929, 16.5354},
		"A4": {8.2677, 11.6929}, "A5": {5.8268, 8.2677}, "A6": {4.1339, 5.8268},
	}
	for name, size := range sizes {
		for _, spelling := range []string{name, strings.ToLower(name), strings.ToUpper(name)} {
			t.Run(spelling+" is "+fmt.Sprint(size[0])+" by "+fmt.Sprint(size[1])+" inches", func(t *testing.T) {
				req, err := Parse(exampleTarget+"&pdf.format="+spelling, Limits{})
				if err != nil {
					t.Fatal(err)
				}
				if o := req.PDF; o.Format != name || o.Width != size[0] || o.Height != size[1] {
					t.Errorf("got %s %gx%g", o.Format, o.Width, o.Height)
				}
			})
		}
	}
}

func TestGlimpsesOwnHeadersAreNotForwarded(t *testing.T) {
	for _, name := range []string{"X-Glimpse-Upstream", "x-glimpse-guard-ask", "X-Glimpse-Guard-Nonce", "x-glimpse-guard"} {
		t.Run("headers."+name+" is refused", func(t *testing.T) {
			_, err := Parse(exampleTarget+"&headers."+name+"=http%3A%2F%2Fproxy.example%3A3128", Limits{})
			e := apierr.From(err)
			if e == nil || e.Code != apierr.CodeInvalidQuery || e.Param != "headers."+name || !strings.Contains(e.Message, "glimpse's own") {
				t.Fatalf("got %v", err)
			}
		})
	}
	if _, err := Parse(exampleTarget+"&headers.x-glimpsed=1", Limits{}); err != nil {
		t.Errorf("a header that only starts like glimpse's was refused: %v", err)
	}
}

func TestHopByHopAndHostHeadersAreRefused(t *testing.T) {
	for _, name := range []string{"connection", "Keep-Alive", "te", "trailer", "transfer-encoding", "upgrade",
		"proxy-authorization", "Proxy-Connection", "host", "content-length"} {
		t.Run("headers."+name+" is refused", func(t *testing.T) {
			_, err := Parse(exampleTarget+"&headers."+name+"=x", Limits{})
			e := apierr.From(err)
			if e == nil || e.Code != apierr.CodeInvalidQuery || !strings.Contains(e.Message, "cannot be forwarded") {
				t.Fatalf("got %v", err)
			}
		})
	}
}
