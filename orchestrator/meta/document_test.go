package meta

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"

	"github.com/PuerkitoBio/goquery"

	"github.com/glimpse/glimpse/internal/testtool"
)

// hostileHead is the head of the hostile pages: what Extract must still find
// after the body has done its worst.
const hostileHead = `<!doctype html><html lang="en"><head><title>Deep Page</title>
<meta property="og:title" content="A hostile page">
<meta name="author" content="Jane Doe">
<script type="application/ld+json">{"@type":"Article","datePublished":"2020-02-03T04:05:06Z"}</script>
</head><body>`

func TestParseDocumentSurvivesHostileMarkup(t *testing.T) {
	logs := captureLog(t)
	nest := func(open, close string, n int) string {
		return strings.Repeat(open, n) + "words at the bottom" + strings.Repeat(close, n)
	}
	tests := []struct {
		name, body string
		text       string // text the parsed body must still hold; "" for none
	}{
		{"divs nested far deeper than the parser allows", nest("<div>", "</div>", 100_000), "words at the bottom"},
		{"nesting just past the parser's limit", nest("<span>", "</span>", 520), "words at the bottom"},
		{"a headline and byline at the bottom of deep nesting",
			nest("<div>", "</div>", 3000) + `<h1>Deep headline</h1><p class="byline">By Jane Doe</p>` + strings.Repeat("<p>More words.</p>", 2000),
			"Deep headline"},
		{"tables nested deep, which the parser deepens further with implied rows",
			nest("<table><tr><td>", "</td></tr></table>", 400), "words at the bottom"},
		{"deep unclosed divs written as self-closing tags", strings.Repeat("<div/>", 5000) + "words at the bottom", "words at the bottom"},
		{"deep formatting elements the parser reopens in every paragraph",
			strings.Repeat(`<b class="x">`, 600) + strings.Repeat("<p>words at the bottom", 3), "words at the bottom"},
		{"deep nesting with scripts inside that must stay scripts",
			nest("<div>", "</div>", 2000) + `<script>if (a<b) { document.write("<div>"); }</script>`, "words at the bottom"},
		{"bytes that are not UTF-8", "<p>caf\xe9 \xff\xfe na\xefve words at the bottom</p>", "words at the bottom"},
		{"JSON-LD that is not JSON",
			`<script type="application/ld+json">{"@type": "Article", "author": {"name": "X"</script>
			<script type="application/ld+json">undefined</script><script type="application/ld+json"><p>html</p></script>
			<p>words at the bottom</p>`, "words at the bottom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := ParseDocument(strings.NewReader(hostileHead + tt.body))
			if err != nil {
				t.Fatalf("ParseDocument failed: %v", err)
			}
			if body := doc.Find("body").Text(); !strings.Contains(body, tt.text) {
				t.Errorf("the body lost its text %q", tt.text)
			}
			if !utf8.ValidString(doc.Text()) {
				t.Error("the document's text is not valid UTF-8")
			}
			r := extract(doc, mustURL(t, testPage), testNow)
			if logs.Len() > 0 {
				t.Fatalf("a rule panicked: %s", logs.String())
			}
			if got := value(r.Title); got != "A hostile page" {
				t.Errorf("title = %q, want the head's og:title", got)
			}
			if got := value(r.Author); got != "Jane Doe" {
				t.Errorf("author = %q, want the head's author", got)
			}
			if got := value(r.Date); got != "2020-02-03T04:05:06.000Z" {
				t.Errorf("date = %q, want the head's JSON-LD date", got)
			}
		})
	}
}

func TestParseDocumentReadsAFiftyMegabytePage(t *testing.T) {
	testtool.WithoutRace(t)
	if testing.Short() {
		t.Skip("a 50 MB page takes seconds to parse; skipped with -short")
	}
	var b bytes.Buffer
	b.WriteString(hostileHead)
	para := "<p>" + strings.Repeat("Fifty megabytes of words and more words. ", 40) + "</p>\n"
	for b.Len() < 50<<20 {
		b.WriteString(para)
	}
	doc, err := ParseDocument(&b)
	if err != nil {
		t.Fatalf("ParseDocument failed on a 50 MB page: %v", err)
	}
	logs := captureLog(t)
	r := extract(doc, mustURL(t, testPage), testNow)
	if logs.Len() > 0 {
		t.Fatalf("a rule panicked: %s", logs.String())
	}
	if got := value(r.Title); got != "A hostile page" {
		t.Errorf("title = %q, want the head's og:title", got)
	}
}

func TestParseDocumentKeepsOrdinaryPagesAsTheParserReadsThem(t *testing.T) {
	page := `<html><head><title>T</title></head><body><ul><li>one<li>two</ul><p>a<p>b<table><td>c</table></body></html>`
	doc, err := ParseDocument(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	plain, err := goquery.NewDocumentFromReader(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := plain.Html()
	if got, _ := doc.Html(); got != want {
		t.Errorf("ParseDocument gave\n%s\nwant what the parser gives\n%s", got, want)
	}
}

func TestParseDocumentFailsOnlyWhenTheReaderDoes(t *testing.T) {
	broken := errors.New("connection reset")
	if _, err := ParseDocument(iotest.ErrReader(broken)); !errors.Is(err, broken) {
		t.Errorf("ParseDocument = %v, want the reader's error", err)
	}
	if doc, err := ParseDocument(strings.NewReader("")); err != nil || doc == nil {
		t.Errorf("ParseDocument of an empty page = %v, %v; want an empty document", doc, err)
	}
}

func TestFlattenKeepsTheElementsThatCannotNest(t *testing.T) {
	page := `<div><div><div><meta name="a" content="b"><img src="x.png"><script>if (a<b) x()</script>text</div></div></div>`
	got := string(flatten([]byte(page), 1))
	want := `<div><meta name="a" content="b"><img src="x.png"><script>if (a<b) x()</script>text</div>`
	if got != want {
		t.Errorf("flatten = %s\nwant %s", got, want)
	}
}
