package markdown

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

func TestAFurnitureWordThatSaysAStateOrAStyleNamesNoFurniture(t *testing.T) {
	for _, tc := range []struct {
		tag, class, id string
		want           bool
	}{
		{class: "kt-accordion-wrap kt-pane-header-alignment-left kt-accordion-block", want: true},
		{tag: "table", class: "wikitable sortable sticky-header", want: true},
		{class: "sticky-header", want: false}, // a box: the page's header, made to stay in view
		{class: "has-banner page", want: true},
		{class: "section-departments with-subnav no-sidebar", want: true},
		{class: "layout is-menuOpen", want: false}, // "is-menu" says what the element is
		{class: "sticky-sidebar", want: false},
		{class: "fixed-header", want: false},
		{class: "layout hasRightSidebar", want: true},
		{class: "layout isMenuOpen", want: false},
		{class: "layout withSidebar", want: true},
		{class: "issues-sidebar", want: false},
		{class: "notes-header", want: false},
		{class: "history-menu", want: false},
		{class: "latest latest--related-posts-false", want: true},
		// The element is furniture, or a part of it.
		{class: "site-header masthead", want: false},
		{class: "header-left", want: false},
		{class: "footer-top", want: false},
		{class: "related-posts", want: false},
		{class: "sidebar sticky", want: false},
		{class: "comments has-avatars", want: false},
		{class: "menu-drawer__menu has-submenu", want: false},
		{class: "box", id: "sidebar-has-ads", want: false},
		{class: "has-banner", id: "no-footer", want: false}, // the class comes back whole; the id cannot be hidden
		// No furniture word, or one the extractor already keeps.
		{class: "entry has-sidebar-content", want: false},
		{class: "post-body", want: false},
	} {
		n := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
		if tc.tag != "" {
			n.Data, n.DataAtom = tc.tag, atom.Lookup([]byte(tc.tag))
		}
		if tc.class != "" {
			setAttr(n, "class", tc.class)
		}
		if tc.id != "" {
			setAttr(n, "id", tc.id)
		}
		if got := len(misreadNames(n)) > 0; got != tc.want {
			t.Errorf("misreadNames(<%s class=%q id=%q>) = %q, want some: %v", n.Data, tc.class, tc.id, misreadNames(n), tc.want)
		}
	}
}

func TestContentWhoseClassSaysAStateOrAStyleStays(t *testing.T) {
	intro := `<p>` + strings.Repeat("We tested eleven accounting tools over three months with the books of a small bakery. ", 6) + `</p>`
	outro := `<p>` + strings.Repeat("Whichever tool you choose, export your books once a month and keep the file somewhere safe. ", 6) + `</p>`
	page := func(body string) string {
		return `<!doctype html><html><head><title>The best accounting tools - Example</title></head><body>` + pageHeader +
			`<div class="wrap"><article><h1>The best accounting tools</h1>` + intro + body + outro + `</article></div>` + pageFooter + `</body></html>`
	}
	method := `<div class="kt-accordion-wrap kt-accordion-has-4-panes kt-pane-header-alignment-left"><div class="kt-accordion-pane">` +
		`<button class="kt-accordion-header" type="button">How we tested</button><div class="kt-accordion-panel"><p>` +
		strings.Repeat("Each tool kept the bakery's invoices, bills and bank feed for a month, and we timed every task. ", 5) +
		`</p><ul><li>Invoicing (20%): how quickly an invoice is made, sent and chased.</li>` +
		`<li>Banking (18%): how well the bank feed matches what was paid.</li></ul></div></div></div>`
	table := `<table class="wikitable sortable sticky-header"><tr><th>Tool</th><th>Price</th><th>Score</th></tr>` +
		`<tr><td>Ledgerly</td><td>$12 a month</td><td>4.7</td></tr><tr><td>Bookwise</td><td>$20 a month</td><td>4.3</td></tr>` +
		`<tr><td>Tallyman</td><td>free</td><td>3.9</td></tr></table>`
	related := `<div class="related-posts"><h2>Related posts</h2><ul>` +
		`<li><a href="/payroll">The best payroll tools for a team of five</a></li>` +
		`<li><a href="/tax">How to file a quarterly tax return without tears</a></li>` +
		`<li><a href="/invoices">Seven invoice templates that get paid</a></li></ul></div>`
	for _, tc := range []struct {
		name     string
		page     string
		want     []string
		unwanted []string
	}{
		{
			name: "an accordion styled by its headers' alignment",
			page: page(method),
			want: []string{"We tested eleven", "timed every task", "Invoicing (20%)", "export your books"},
		},
		{
			name: "a table whose header row stays in view",
			page: page(table),
			want: []string{"| Ledgerly | $12 a month | 4.7 |", "export your books"},
		},
		{
			name:     "a box of related posts still goes",
			page:     page(related),
			want:     []string{"We tested eleven", "export your books"},
			unwanted: []string{"quarterly tax return"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := article(t, tc.page)
			checkHolds(t, md, tc.want, tc.unwanted)
		})
	}
}

func TestAHeadingThatOpensASectionIsNoPageHeader(t *testing.T) {
	prose := `<p>` + strings.Repeat("The edge runs the application where its users are, and the cloud keeps a copy. ", 4) + `</p>`
	for _, tc := range []struct {
		name, after string
		want        bool
	}{
		{"a paragraph", prose, true},
		{"a list", `<ul><li>The cloud is optional.</li><li>The edge is mandatory.</li></ul>`, true},
		{"code", `<pre><code>sqlite3 app.db .dump</code></pre>`, true},
		{"a box of prose, an accordion's answer", `<div class="collapse"><div class="body">` + strings.Repeat("The edge runs the application where its users are. ", 2) + `</div></div>`, true},
		{"a box of cards", `<div class="cards"><a href="/a">One</a><a href="/b">Two</a></div>`, false},
		{"a box of cards with headings of their own and a line each", `<div class="cards"><div><h3>One</h3><p>The first of the cards, with a line.</p></div></div>`, false},
		{"a short line", `<p>By Ana</p>`, false},
		{"nothing", ``, false},
	} {
		root := parse(t, `<!doctype html><html><body><div><h2 class="header-anchor-post">The cloud is not the computer</h2>`+tc.after+`</div></body></html>`).Nodes[0]
		h2 := findFirst(root, func(n *html.Node) bool { return n.Type == html.ElementNode && n.Data == "h2" })
		if got := len(misreadNames(h2)) > 0; got != tc.want {
			t.Errorf("a heading whose class says header, before %s: misread %v, want %v", tc.name, got, tc.want)
		}
	}
	div := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
	setAttr(div, "class", "header-anchor-post")
	if len(misreadNames(div)) > 0 {
		t.Errorf("a box whose class says header is the extractor's to judge")
	}

	// A newsletter's post: every heading has the platform's class.
	var body strings.Builder
	for _, title := range []string{"The cloud is not the computer", "Software must survive reality", "Determinism over magic"} {
		body.WriteString(`<h2 class="header-anchor-post">` + title + `</h2>` + prose)
	}
	md := article(t, `<!doctype html><html><head><title>Edge first - A newsletter</title></head><body><article>`+
		`<h1>Edge first</h1>`+body.String()+`</article></body></html>`)
	checkHolds(t, md, []string{"## The cloud is not the computer", "## Software must survive reality", "## Determinism over magic"}, nil)
}

// TestAnAccordionsQuestionsStay reads a framework's accordion, whose
// questions are headings the framework classes as headers
// ("accordion-header"), each over a box that holds its answer.
func TestAnAccordionsQuestionsStay(t *testing.T) {
	item := func(n int, q, a string) string {
		id := fmt.Sprint("c", n)
		return `<div class="accordion-item"><h2 class="accordion-header" id="h` + id + `"><button class="accordion-button collapsed" type="button" data-bs-toggle="collapse" ` +
			`data-bs-target="#` + id + `" aria-expanded="false" aria-controls="` + id + `">` + q + `</button></h2><div id="` + id + `" class="accordion-collapse collapse" aria-labelledby="h` + id + `">` +
			`<div class="accordion-body">` + a + `</div></div></div>`
	}
	md := article(t, tabsPage(`<div class="accordion" id="faq">`+
		item(1, "How long does shipping take?", "Orders leave our warehouse within two working days and arrive three to five days later.")+
		item(2, "Can I return a worn item?", "Yes, within thirty days, as long as the tags are still attached and it has not been washed.")+`</div>`))
	checkHolds(t, md, []string{"## How long does shipping take?\n\nOrders leave", "## Can I return a worn item?\n\nYes, within thirty days"}, nil)
}

func TestTheExtractorKeepsASectionWhoseClassSaysAState(t *testing.T) {
	intro := `<p>` + strings.Repeat("We tested eleven accounting tools over three months with the books of a small bakery. ", 6) + `</p>`
	outro := `<p>` + strings.Repeat("Whichever tool you choose, export your books once a month and keep the file somewhere safe. ", 6) + `</p>`
	for _, class := range []string{"section with-header no-menu", "section no-sidebar", "section hasRightSidebar"} {
		page := `<!doctype html><html><head><title>The best accounting tools - Example</title></head><body>` +
			`<article><h1>The best accounting tools</h1>` + intro + outro + `<div class="` + class + `"><h2>How we tested</h2><p>` +
			strings.Repeat("Each tool kept the bakery's invoices, bills and bank feed for a month, and we timed every task. ", 5) +
			`</p></div></article></body></html>`
		base, _ := url.Parse("https://example.com/tools")
		root := parse(t, page).Nodes[0]
		art, ok := readable(root, base)
		if !ok || art == nil {
			t.Fatalf("class %q: the extractor found nothing", class)
		}
		if text := flatText(art); !strings.Contains(text, "timed every task") || !strings.Contains(text, "export your books") {
			t.Errorf("class %q: the extractor left the section out:\n%s", class, text)
		}
		if div := findFirst(root, func(n *html.Node) bool { return n.Type == html.ElementNode && n.Data == "div" }); attr(div, "class") != class || hasAttr(div, shownClassAttr) {
			t.Errorf("class %q: the page's class became %q", class, attr(div, "class"))
		}
		if h2 := findFirst(art, func(n *html.Node) bool { return n.Type == html.ElementNode && n.Data == "h2" }); h2 == nil || attr(h2.Parent, "class") != class {
			t.Errorf("class %q: the answer lost the section's class", class)
		}
	}
}

func TestTheClassesComeBack(t *testing.T) {
	const body = `<div class="has-banner wide" id="top"><p>Text.</p></div>` +
		`<table class="sticky-header"><tbody><tr><td>More text.</td></tr></tbody></table><div class="sidebar"><p>Links.</p></div>`
	// A page's own attribute of the name the step uses is no class to give
	// back: it goes, and the element's class stays its own. The root and
	// the body keep their classes.
	const own = `<div class="note" data-glimpse-class="sidebar"><p>A note.</p></div>`
	root := parse(t, `<!doctype html><html class="no-sidebar"><body class="has-banner">`+body+own+`</body></html>`).Nodes[0]
	hidden := hideStateNames(root)
	if len(hidden) != 2 || attr(hidden[0], "class") != "wide" || hasAttr(hidden[1], "class") {
		t.Fatalf("hideStateNames changed %d elements, the first's class to %q", len(hidden), attr(hidden[0], "class"))
	}
	restoreClasses(root)
	var got, want strings.Builder
	if err := html.Render(&got, root); err != nil {
		t.Fatal(err)
	}
	if err := html.Render(&want, parse(t, `<!doctype html><html class="no-sidebar"><body class="has-banner">`+body+`<div class="note"><p>A note.</p></div></body></html>`).Nodes[0]); err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() {
		t.Errorf("the page became\n%s\nwant\n%s", got.String(), want.String())
	}
	restoreClasses(nil) // the extractor may find nothing
}
