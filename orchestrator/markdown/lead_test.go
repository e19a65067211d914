package markdown

import (
	"fmt"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// leadPage is a page that sets its title and the paragraphs of lead in a
// box of their own, above the byline, a call to act and a table of
// contents, and the body of the piece below them.
func leadPage(head, lead string) string {
	body := `<h2 id="what">What is an online course?</h2>` +
		`<p>` + strings.Repeat("An online course is a virtual learning experience organized into lessons that a learner takes at their own pace. ", 6) + `</p>` +
		`<h2 id="kinds">Kinds of online courses</h2>` +
		`<p>` + strings.Repeat("Courses can be led by an instructor or taken alone, short and focused or long and thorough, free or paid. ", 6) + `</p>`
	return `<!doctype html><html><head><title>What is an online course?</title>` + head + `</head><body>` + pageHeader +
		`<div class="page"><div class="hero"><div class="title"><h1>What is an online course?</h1></div><div class="intro">` + lead + `</div></div>` +
		`<div class="meta"><span>Posted on</span> <span>Nov 21, 2025</span> <span>Written by</span> <span>Eliz</span> ` +
		`<a class="button" href="/pricing">Start free trial</a></div>` +
		`<div class="toc"><span>Table of contents</span><ul><li><a href="#what">What is an online course?</a></li><li><a href="#kinds">Kinds of online courses</a></li></ul></div>` +
		`<div class="content"><div class="prose">` + body + `</div></div></div>` + pageFooter + `</body></html>`
}

const (
	leadOne = `Online learning has become a standard way for organizations, educators and trainers to share what they know with people anywhere.`
	leadTwo = `But what exactly is an online course, and how does it differ from other kinds of digital learning such as short modules?`
)

func TestTheLeadBesideTheTitleOpensThePiece(t *testing.T) {
	for _, tc := range []struct {
		name, head, lead string
		want, unwanted   []string
	}{
		{"the paragraphs beside the title, above the byline and the contents",
			"", `<p>` + leadOne + `</p><p>` + leadTwo + `</p>`,
			[]string{leadOne + "\n\n" + leadTwo + "\n\n## What is an online course?"}, nil},
		{"a lead written twice, for two widths of screen, comes once",
			"", `<p>` + leadOne + `</p><p>` + leadOne + `</p>`,
			[]string{leadOne + "\n\n## What is an online course?"}, []string{leadOne + "\n\n" + leadOne}},
		{"the page's own summary of itself is a dek, not a lead",
			`<meta name="description" content="` + leadOne + `">`, `<p>` + leadOne + `</p>`,
			nil, []string{leadOne}},
		{"a summary the page declares in its JSON-LD is one too",
			`<script type="application/ld+json">{"@type":"Article","description":"` + leadOne + `"}</script>`, `<p>` + leadOne + `</p>`,
			nil, []string{leadOne}},
		{"a byline with the writer's note is no lead",
			"", `<p><span>By</span> <a href="/authors/eliz">Eliz Marsh</a>, a product marketer who has written about learning at work for many years.</p>`,
			nil, []string{"product marketer"}},
		{"an affiliate note is no lead",
			"", `<p><strong>Disclosure:</strong> Learning Notes is reader-supported. When you buy through links on our site, we may earn an affiliate commission.</p>`,
			nil, []string{"reader-supported"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := article(t, leadPage(tc.head, tc.lead))
			checkHolds(t, md, append(tc.want, "## Kinds of online courses"), tc.unwanted)
		})
	}
}

// tenParagraphs is n paragraphs of lead, each its own.
func tenParagraphs(n int) string {
	var sb strings.Builder
	for i := range n {
		fmt.Fprintf(&sb, `<p>Online learning, part %d, is a short paragraph of the lead, long enough to be prose.</p>`, i)
	}
	return sb.String()
}

func TestALeadIsAFewParagraphs(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lead  string
		added int
	}{
		{"three paragraphs", strings.Repeat(`<p>`+leadOne+`</p>`, 1) + `<p>` + leadTwo + `</p><p>` + leadTwo + ` Again.</p>`, 3},
		{"ten paragraphs", tenParagraphs(10), 10},
		{"eleven paragraphs are a section the extractor judged apart", tenParagraphs(11), 0},
		{"paragraphs longer together than a lead",
			`<p>` + strings.Repeat(leadOne+" ", 11) + `</p><p>` + strings.Repeat(leadTwo+" ", 11) + `</p><p>` + strings.Repeat(leadOne+" ", 10) + `</p>`, 0},
		{"a label before the lead is passed over", `<p>Updated</p><p>` + leadOne + `</p>`, 1},
		{"the page's title heads its lead", `<h1>What is an online course?</h1><p>` + leadOne + `</p>`, 1},
		{"paragraphs under a heading the block left out are that heading's section",
			`<h2>From our partners</h2><p>` + leadOne + `</p>`, 0},
		{"a heading after the lead, over the contents, leaves the lead one",
			`<p>` + leadOne + `</p><h3>Table of contents</h3><ul><li><a href="#k">Kinds of courses</a></li></ul>`, 1},
		{"an affiliate note is passed over", `<p><strong>Disclosure:</strong> Learning Notes is reader-supported. When you buy ` +
			`through links on our site, we may earn an affiliate commission.</p><p>` + leadOne + `</p>`, 1},
		{"a byline with the writer's note is passed over", `<p><span>By</span> <a href="/authors/eliz">Eliz Marsh</a>, a product ` +
			`marketer who has written about learning at work, and about the tools people learn with, for many years.</p><p>` + leadOne + `</p>`, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			region := parseBody(t, `<html><body><main><div class="intro">`+tc.lead+`</div><div class="body"><h2>Kinds of courses</h2>`+
				`<p>Courses can be led by an instructor or taken alone, short and focused or long and thorough.</p></div></main></body></html>`)
			art := parseBody(t, `<html><body><div><h2>Kinds of courses</h2>`+
				`<p>Courses can be led by an instructor or taken alone, short and focused or long and thorough.</p></div></body></html>`)
			count := func() int {
				t := flatText(art)
				return strings.Count(t, "Online learning") + strings.Count(t, "But what") + strings.Count(t, "Updated") +
					strings.Count(t, "reader-supported") + strings.Count(t, "product marketer")
			}
			before := count()
			restoreLead(art, region, newChosenText(art), nil)
			after := count()
			if after-before != tc.added {
				t.Errorf("%d paragraphs of lead put back, want %d: %s", after-before, tc.added, flatText(art))
			}
		})
	}
}

func TestALeadGoesBackOnlyBeforeTheLineItCameBefore(t *testing.T) {
	region := parseBody(t, `<html><body><main><div class="intro"><p>`+leadOne+`</p></div><div class="body"><h2>Kinds of courses</h2>`+
		`<p>Courses can be led by an instructor or taken alone, short and focused or long and thorough.</p></div></main></body></html>`)
	art := parseBody(t, `<html><body><div><p>A line the block opens with that the region does not hold at all, from elsewhere.</p>`+
		`<h2>Kinds of courses</h2><p>Courses can be led by an instructor or taken alone, short and focused or long and thorough.</p></div></body></html>`)
	restoreLead(art, region, newChosenText(art), nil)
	if strings.Contains(flatText(art), "Online learning") {
		t.Errorf("the lead went back before a line it did not come before: %s", flatText(art))
	}
}

func TestATitleAndIntroductionInABoxCalledAHeaderAreThePiece(t *testing.T) {
	intro := `<p>The <a href="/docs/fetch">Fetch API</a> provides an interface for making requests over the network and reading the responses.</p>` +
		`<p>Fetch is the modern replacement for <code>XMLHttpRequest</code>: unlike it, which uses callbacks, Fetch is promise-based.</p>` +
		`<pre><code>const response = await fetch(url);</code></pre>` +
		`<p>In the rest of this page we look in more detail at the different stages of this process.</p>`
	section := func(id, title string) string {
		return `<section><h2 id="` + id + `"><a href="#` + id + `">` + title + `</a></h2><p>` +
			strings.Repeat("To make a request, call fetch with the resource and an object of options, and await the response it gives. ", 5) + `</p></section>`
	}
	md := article(t, `<!doctype html><html><head><title>Using the Fetch API</title></head><body>`+pageHeader+
		`<main><div class="layout__header reference-layout__header"><h1>Using the Fetch API</h1><section class="content-section">`+intro+`</section></div>`+
		`<aside class="toc"><h2>In this article</h2><ul><li><a href="#req">Making a request</a></li></ul></aside>`+
		`<div class="layout__body">`+section("req", "Making a request")+section("res", "Handling the response")+section("cancel", "Canceling a request")+
		`</div></main>`+pageFooter+`</body></html>`)
	checkHolds(t, md, []string{"provides an interface for making requests", "`XMLHttpRequest`", "const response = await fetch(url);",
		"the different stages of this process.\n\n## [Making a request]"}, []string{"Example Site"})
}

func TestTheSitesHeaderIsNoPiecesHeader(t *testing.T) {
	for _, tc := range []struct {
		name, html string
		piece      bool
	}{
		{"a site's header with its name as the title and a tagline",
			`<header class="site-header"><h1><a href="/">Leaf and Loam</a></h1><p>Houseplants, tested.</p><nav><a href="/a">About</a></nav></header>`, false},
		{"a site's header with a paragraph about the site and no title",
			`<div class="site-header"><a href="/">Leaf and Loam</a><p>Leaf and Loam writes about houseplants in small flats, tested over twenty years of growing them.</p></div>`, false},
		{"a header box with the title and no paragraph of prose",
			`<div class="page-header"><h1>Using the Fetch API</h1><ul><li><a href="/a">Guides</a></li></ul></div>`, false},
		{"a header box with the title and its introduction",
			`<div class="page-header"><h1>Using the Fetch API</h1><p>Fetch provides an interface for making requests over the network and reading what comes back.</p></div>`, true},
		{"a header box as long as a page",
			`<div class="page-header"><h1>Using the Fetch API</h1>` + strings.Repeat(`<p>Fetch provides an interface for making requests over the network and reading what comes back.</p>`, 40) + `</div>`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := parseBody(t, `<!doctype html><html><body>`+tc.html+`</body></html>`)
			box := findFirst(root, func(n *html.Node) bool { return strings.Contains(attr(n, "class"), "header") })
			if got := headsPiece(box); got != tc.piece {
				t.Errorf("headsPiece = %v, want %v", got, tc.piece)
			}
			if got := chrome(box) == notChrome; got != tc.piece {
				t.Errorf("chrome = %v; is the piece: %v, want %v", chrome(box), got, tc.piece)
			}
		})
	}
}
