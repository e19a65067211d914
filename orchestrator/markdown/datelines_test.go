package markdown

import (
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

func TestArticleLeavesItsDatelinesOut(t *testing.T) {
	story := `<p>` + strings.Repeat("The harbour master logs the tide twice a day, as her father did, in a ledger by the window. ", 4) + `</p>`
	for _, tc := range []struct {
		name, body     string
		want, unwanted []string
	}{
		{
			name: "a line of a label and a date, in English or another language, goes",
			body: `<p class="meta">Updated on January 30, 2026</p>` + story + `<div><span>Last updated:</span> <time datetime="2025-02-20">20 February 2025</time></div>` +
				`<p><em>Veröffentlicht am 3. März 2024</em></p><p>Posted Oct. 29, 2025 at 9:14 am</p>`,
			want:     []string{"harbour master logs the tide"},
			unwanted: []string{"Updated on", "January 30", "Last updated", "20 February", "Veröffentlicht", "Posted"},
		},
		{
			name:     "a line that says when a post first went up, or gives its month alone, goes",
			body:     `<p>Originally Posted November 12, 2024</p>` + story + `<div class="meta">Last Posted December, 2025</div><p>First posted on March 2, 2023</p>`,
			want:     []string{"harbour master logs the tide"},
			unwanted: []string{"Originally Posted", "Last Posted", "First posted"},
		},
		{
			name:     "a reading time standing alone goes, in English or another language",
			body:     `<div class="meta"><span>5 min read</span></div>` + story + `<p>Reading time: 7 minutes</p><p>Lesezeit: 4 Min.</p><p>3 min de lecture</p>`,
			want:     []string{"harbour master logs the tide"},
			unwanted: []string{"min read", "Reading time", "Lesezeit", "de lecture"},
		},
		{
			name:     "a time told relative to the page's serving goes",
			body:     `<p><span>3 days ago</span></p>` + story + `<div>Posted about an hour ago</div><p>Last active 2 weeks ago</p>`,
			want:     []string{"harbour master logs the tide"},
			unwanted: []string{"days ago", "hour ago", "weeks ago"},
		},
		{
			name:     "a linked edit date goes, a linked post date stays",
			body:     story + `<div class="sig"><a href="/posts/1/revisions">edited Feb 4, 2014 at 19:36</a></div><p><a href="/2025/10/29/">Posted October 29, 2025</a></p>`,
			want:     []string{"Posted October 29, 2025"},
			unwanted: []string{"edited Feb", "revisions"},
		},
		{
			name: "a sentence about minutes of reading stays",
			body: story + `<p>It takes 5 minutes to read the whole ledger aloud.</p><p>The gauge broke 3 days ago.</p>`,
			want: []string{"It takes 5 minutes to read the whole ledger aloud.", "The gauge broke 3 days ago."},
		},
		{
			name: "a date inside a sentence, a line that says more and a linked date stay",
			body: story + `<p>The ledger was first published on May 3, 2021 by the harbour trust.</p>` +
				`<p>Updated January 30, 2026: the gauge now reports every minute.</p><p><a href="/2025/10/29/">Posted October 29, 2025</a></p>`,
			want: []string{"first published on May 3, 2021", "the gauge now reports", "Posted October 29, 2025"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := article(t, `<!doctype html><html><head><title>The tide ledger</title></head><body><main><article><h1>The tide ledger</h1>`+
				tc.body+`</article></main></body></html>`)
			checkHolds(t, md, tc.want, tc.unwanted)
		})
	}
}

// TestAnArticlesLoneDateGoes drops the one line of a declared article
// that is a date alone, the template's dateline without a label; several
// such lines are a dated list and stay, as do a linked date, a date in a
// table and a date in a sentence.
func TestAnArticlesLoneDateGoes(t *testing.T) {
	story := `<p>` + strings.Repeat("The harbour master logs the tide twice a day, as her father did, in a ledger by the window. ", 4) + `</p>`
	page := func(body string) string {
		return `<!doctype html><html><head><title>The tide ledger</title>` +
			`<script type="application/ld+json">{"@type":"NewsArticle","headline":"The tide ledger"}</script></head>` +
			`<body><main><article><h1>The tide ledger</h1>` + body + `</article></main></body></html>`
	}
	for _, tc := range []struct {
		name, body     string
		want, unwanted []string
	}{
		{
			name:     "a date alone under the title goes",
			body:     `<div class="meta"><time datetime="2025-03-04">March 4, 2025</time></div>` + story,
			want:     []string{"harbour master logs the tide"},
			unwanted: []string{"March 4"},
		},
		{
			name:     "a date alone after the piece goes, day first",
			body:     story + `<p>4 March 2025</p>`,
			want:     []string{"harbour master logs the tide"},
			unwanted: []string{"4 March"},
		},
		{
			name: "a dated list stays",
			body: story + `<h2>The ledger's years</h2><p>March 4, 2021</p><p>The first entry, in pencil.</p>` +
				`<p>June 9, 2023</p><p>The gauge arrives and the entries double.</p>`,
			want: []string{"March 4, 2021", "June 9, 2023"},
		},
		{
			name: "a linked date, a table's date and a date in a sentence stay",
			body: `<p><a href="/2025/03/04/">March 4, 2025</a></p>` + story +
				`<table><tr><th>Entry</th><th>Day</th></tr><tr><td>First</td><td>May 3, 2021</td></tr></table>` +
				`<p>The ledger was given to the museum on June 9, 2024.</p>`,
			want: []string{"March 4, 2025", "May 3, 2021", "June 9, 2024"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkHolds(t, article(t, page(tc.body)), tc.want, tc.unwanted)
		})
	}

	// A page that declares no article may be an event's or a listing's,
	// whose one date is what it announces.
	md := article(t, `<!doctype html><html><head><title>Harbour open day</title></head><body><main><h1>Harbour open day</h1>`+
		`<p>March 4, 2025</p>`+story+`</main></body></html>`)
	checkHolds(t, md, []string{"March 4, 2025", "harbour master logs the tide"}, nil)
}

// TestSettleAtomsNamesRenamedElements covers the elements the extractor
// renames or makes by name alone: each gets the atom of its tag, which
// the rules after the extractor know elements by.
func TestSettleAtomsNamesRenamedElements(t *testing.T) {
	renamed := &html.Node{Type: html.ElementNode, Data: "p", DataAtom: atom.Div}
	made := &html.Node{Type: html.ElementNode, Data: "span"}
	root := &html.Node{Type: html.ElementNode, Data: "div"}
	root.AppendChild(renamed)
	renamed.AppendChild(made)
	settleAtoms(root)
	if root.DataAtom != atom.Div || renamed.DataAtom != atom.P || made.DataAtom != atom.Span {
		t.Errorf("atoms %v, %v, %v; want div, p, span", root.DataAtom, renamed.DataAtom, made.DataAtom)
	}
}
