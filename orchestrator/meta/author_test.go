package meta

import (
	"strings"
	"testing"
)

func TestAuthor(t *testing.T) {
	tests := []authorCase{
		{"the JSON-LD author's name comes first",
			`<meta name="author" content="Meta Name"><script type="application/ld+json">{"@type":"NewsArticle","author":{"@type":"Person","name":"Jane Doe"}}</script>`,
			"Jane Doe"},
		{"a plain string author in JSON-LD is read",
			`<script type="application/ld+json">{"@type":"BlogPosting","author":"Jane Doe"}</script>`, "Jane Doe"},
		{"two JSON-LD authors are joined with and",
			`<script type="application/ld+json">{"@type":"Article","author":[{"name":"David Li"},{"name":"Doha Madani"}]}</script>`,
			"David Li and Doha Madani"},
		{"a profile link's label among the authors names its owner, not the network",
			`<script type="application/ld+json">{"@type":"Article","author":[{"@type":"Person","name":"By Rhea Castell"},{"@type":"Person","name":"Upstate Seed Library Network on Facebook"}]}</script>`,
			"Rhea Castell"},
		{"a person's profile label is the person",
			`<script type="application/ld+json">{"@type":"Article","author":{"@type":"Person","name":"Rhea Castell on Instagram"}}</script>`,
			"Rhea Castell"},
		{"a tag manager's data layer names the post's author when nothing else does",
			`<h1>Meet the team</h1><script>var dataLayer_content = {"pagePostType":"post","pagePostAuthor":"Zofia Kr\u00f3l"};</script>`,
			"Zofia Król"},
		{"a byline wins over the data layer",
			`<article><h1>Meet the team</h1><p class="byline">By Rhea Castell</p></article><script>var dataLayer_content = {"pagePostAuthor":"Zofia Kr\u00f3l"};</script>`,
			"Rhea Castell"},
		{"a data layer's placeholder names nobody",
			`<h1>Meet the team</h1><script>var dataLayer_content = {"pagePostAuthor":"admin"};</script>`,
			""},
		{"three JSON-LD authors are listed",
			`<script type="application/ld+json">{"@type":"Article","author":[{"name":"A One"},{"name":"B Two"},{"name":"C Three"}]}</script>`,
			"A One, B Two and C Three"},
		{"an author given by @id is found in the @graph",
			`<script type="application/ld+json">{"@graph":[{"@type":"Article","author":{"@id":"#jane"}},{"@type":"Person","@id":"#jane","name":"Jane Doe"}]}</script>`,
			"Jane Doe"},
		{"a Person with given and family names only",
			`<script type="application/ld+json">{"@type":"Article","author":{"@type":"Person","givenName":"Jane","familyName":"Doe"}}</script>`,
			"Jane Doe"},
		{"the article's author wins over the web page's",
			`<script type="application/ld+json">[{"@type":"WebPage","author":"Page Owner"},{"@type":"NewsArticle","author":"Story Writer"}]</script>`,
			"Story Writer"},
		{"a JSON-LD author that is the publisher again falls through to the meta tag",
			`<script type="application/ld+json">{"@type":"Article","author":{"@type":"Organization","name":"Example News"},"publisher":{"name":"Example News"}}</script>
			<meta name="author" content="Jane Doe">`, "Jane Doe"},
		{"the author meta tag loses its By", `<meta name="author" content="By Jane Doe">`, "Jane Doe"},
		{"article:author that is a profile URL is skipped",
			`<meta property="article:author" content="https://www.facebook.com/janedoe"><a rel="author" href="/people/jane">Jane Doe</a>`,
			"Jane Doe"},
		{"parsely-author is read", `<meta name="parsely-author" content="Parse Ly">`, "Parse Ly"},
		{"sailthru.author is read", `<meta name="sailthru.author" content="Sail Thru">`, "Sail Thru"},
		{"several citation_author tags are joined, each name in a byline's order",
			`<meta name="citation_author" content="Curie, Marie"><meta name="citation_author" content="Curie, Pierre">`,
			"Marie Curie and Pierre Curie"},
		{"a citation_author with initials and a family name's particle",
			`<meta name="citation_author" content="van der Berg, Anna J."><meta name="citation_author" content="Berger, Emery D.">`,
			"Anna J. van der Berg and Emery D. Berger"},
		{"a credential after the comma is no given name",
			`<meta name="citation_author" content="Jane Doe, MD">`, "Jane Doe, MD"},
		{"a suffix after the comma is no given name",
			`<meta name="citation_author" content="Martin Luther King, Jr.">`, "Martin Luther King, Jr."},
		{"a Dublin Core creator written family name first",
			`<meta name="DC.creator" content="Lovelace, Ada">`, "Ada Lovelace"},
		{"Dublin Core creator is read", `<meta name="DC.creator" content="Dub Core">`, "Dub Core"},
		{"a handle after the name goes", `<meta name="author" content="Jane Doe (@janedoe)">`, "Jane Doe"},
		{"a bare handle is no author", `<meta name="author" content="@janedoe">`, ""},
		{"an e-mail address after the name goes", `<meta name="author" content="Jane Doe jane@example.com">`, "Jane Doe"},
		{"microdata author item gives its name",
			`<div itemscope itemtype="https://schema.org/Article"><div itemprop="author" itemscope itemtype="https://schema.org/Person"><span itemprop="name">Micro Data</span><span>Staff writer</span></div></div>`,
			"Micro Data"},
		{"a microformats author card gives its name",
			`<div class="h-entry"><h1 class="p-name">Rust project goals</h1><div class="meta">via <a class="u-author h-card" href="/~scvalex">scvalex</a> <time>1 year ago</time></div>
			<div class="comments"><div class="h-cite"><a class="u-author h-card" href="/~jamesw">jamesw</a> wrote: great.</div></div></div>`,
			"scvalex"},
		{"a microformats author card reads its p-name",
			`<article class="h-entry"><h1>A post</h1><span class="p-author h-card"><img class="u-photo" src="/me.jpg" alt=""><span class="p-name">Ada Lovelace</span> <span class="p-note">writes about engines</span></span><p>Text.</p></article>`,
			"Ada Lovelace"},
		{"the author of the post a reply cites before it, in microformats, is not the reply's",
			`<article class="h-entry"><div class="u-in-reply-to h-cite">In reply to <span class="p-author h-card">Ben Reader</span>, who wrote that engines can weave.</div>
			<h1>A reply</h1><p>By <a class="p-author h-card" href="/">Ada Lovelace</a></p><p>Text.</p></article>`,
			"Ada Lovelace"},
		{"microdata authors of the cards of other posts, outside any item, are left out",
			`<article><h1>Main story</h1><span class="byline">by <span itemprop="author" itemscope><span itemprop="name">Ada Main</span></span></span><p>Text.</p></article>
			<aside><h2>More</h2><article><h4><a href="/a">Other story</a></h4><span itemprop="author" itemscope><span itemprop="name">Ben Card</span></span></article>
			<article><h4><a href="/b">Third story</a></h4><span itemprop="author" itemscope><span itemprop="name">Cy Card</span></span></article></aside>`,
			"Ada Main"},
		{"an author box's description is no name; the name printed before it is",
			`<article><h1>Best grinders</h1><p>Intro text of the guide.</p><div class="box"><img class="author-image" alt=""><div><p class="headline">Ada Lindqvist</p>
			<div class="dynamic-author-description">Licensed Q Arabica Grader, M.A. Journalism</div></div></div></article>`,
			"Ada Lindqvist"},
		{"a bio box holding the name in an element of its own names them",
			`<article><h1>Best grinders</h1><p>Intro text of the guide.</p><div class="author-bio"><h4>Jane Roe</h4><p>Jane tests coffee gear for a living and has for years.</p></div></article>`,
			"Jane Roe"},
		{"an author's bio with no name before it names no one",
			`<article><h1>Best grinders</h1><p>Intro text of the guide.</p><p class="author-bio">Certified Coffee Taster, Barista Trainer</p></article>`,
			""},
		{"microdata authors of the cards of other posts inside the page's own item are left out",
			`<body itemscope itemtype="https://schema.org/Article"><h1 itemprop="headline">Main story</h1><span class="byline">by <span itemprop="author" itemscope><span itemprop="name">Ada Main</span></span></span><p>Text.</p>
			<aside><h2>More</h2><article><h4><a href="/a">Other story</a></h4><span itemprop="author" itemscope><span itemprop="name">Ben Card</span></span></article>
			<article><h4><a href="/b">Third story</a></h4><span itemprop="author" itemscope><span itemprop="name">Cy Card</span></span></article></aside></body>`,
			"Ada Main"},
		{"a Dutch page's byline opens with Door",
			`<html lang="nl"><body><article><h1>Fietsen in de winter</h1><p class="meta">Door Jan de Vries</p><p>Tekst van het stuk.</p></article></body></html>`,
			"Jan de Vries"},
		{"on an English page Door is a word, not a byline",
			`<html lang="en"><body><article><h1>Resistance band workouts</h1><p>Intro to the workouts.</p><div class="product"><p class="title">Door Anchor for Resistance Bands</p><p>$19.97</p></div></article></body></html>`,
			""},
		{"on a page with no language Door still opens a byline",
			`<article><h1>Fietsen in de winter</h1><p class="meta">Door Jan de Vries</p><p>Tekst van het stuk.</p></article>`,
			"Jan de Vries"},
		{"a bullet before a label in the byline is no name",
			`<article><h1>Notes on prompts</h1><div class="byline-wrapper"><div>Dec 04, 2025</div><div>∙ Paid</div></div><p>Text of the post.</p></article>`,
			""},
		{"a link to the author's about page is no name",
			`<article><h1>Protein pancakes</h1><p>Recipe text.</p><div class="author-box"><p>I am a mother of four who loves macros.</p><a class="button" href="/about/">More About Me</a></div></article>`,
			""},
		{"the opening of a bio is no name",
			`<article><h1>Learn Node</h1><p>Course text.</p><div class="author">Wes Bos is a Full Stack</div></article>`,
			""},
		{"a documentation generator's link to its about page is no author",
			`<head><link rel="author" title="About these documents" href="../about.html"></head><body><h1>Logging HOWTO</h1><p>Text.</p></body>`,
			""},
		{"a link element titled with the author's name still names them",
			`<head><link rel="author" title="Jane Roe" href="/about/jane"></head><body><h1>Logging HOWTO</h1><p>Text.</p></body>`,
			"Jane Roe"},
		{"a role after a dash, written with a slash, is cut",
			`<article><h1>Roof repair costs</h1><div class="byline">Ezra Laniado - Author/Reviewer</div><p>Text.</p></article>`,
			"Ezra Laniado"},
		{"a banner's aside left open before the main element does not make the article furniture",
			`<body><aside class="banner"><p>Join us at the conference!</p><main><article><h1>Lessons from five startups</h1>
			<div class="post-meta"><span class="post-author">Tim Enwall</span></div><p>Text of the post.</p></article></main></body>`,
			"Tim Enwall"},
		{"an author's photo alone names them by its description",
			`<article><h1>Open access publishing</h1><p>Text of the post.</p><div class="post-author-wrapper"><div class="author-avatar"><img src="/a.png" alt="Danielle Padula"></div></div></article>`,
			"Danielle Padula"},
		{"an author's photo described as an avatar names them",
			`<article><h1>Open access publishing</h1><p>Text of the post.</p><div class="author-avatar"><img src="/a.png" alt="Matt Eland avatar"></div></article>`,
			"Matt Eland"},
		{"an author's photo described as such names no one",
			`<article><h1>Open access publishing</h1><p>Text of the post.</p><div class="author-avatar"><img src="/a.png" alt="Photo of author"></div></article>`,
			""},
		{"a writer who goes by one name, linked to an author page of that name",
			`<article><h1>Security camera guide</h1><div class="byline"><strong><a href="/blog/author/yucy/">Yucy</a></strong><span>3/4/2025</span></div><p>Text of the post.</p></article>`,
			"Yucy"},
		{"one word linked to an author page of another name is no name",
			`<article><h1>Security camera guide</h1><div class="byline"><a href="/blog/author/jane-roe/">Profile</a></div><p>Text of the post.</p></article>`,
			""},
		{"co-authors of one post outside any item are all named",
			`<article><h1>Main story</h1><span class="byline">by <span itemprop="author">Ada Main</span> and <span itemprop="author">Ben Second</span></span><p>Text.</p></article>`,
			"Ada Main and Ben Second"},
		{"microdata authors of other listed articles are left out",
			`<ul><li itemscope itemtype="https://schema.org/Article"><span itemprop="author">First Writer</span></li>
			<li itemscope itemtype="https://schema.org/Article"><span itemprop="author">Other Writer</span></li></ul>`,
			"First Writer"},
		{"RDFa author is read", `<span property="schema:author">Rdfa Person</span>`, "Rdfa Person"},
		{"a rel=author link is read", `<p>by <a rel="author" href="/author/kyt">Kyt Dotson</a></p>`, "Kyt Dotson"},
		{"a byline loses its date",
			`<div class="byline">By John Smith | May 3, 2016</div>`, "John Smith"},
		{"a byline link inside an author box on the same site is read",
			`<div class="author-box"><a href="/people/jane-doe">Jane Doe</a></div>`, "Jane Doe"},
		{"links to other sites in an author bio are not bylines",
			`<div class="about-author"><p>She wrote <a href="https://other.example.org/book">A Famous Book</a>.</p></div>`, ""},
		{"a byline in a quote is someone else's",
			`<blockquote><p class="quote-byline">—Dawson Whitfield of Logojoy</p></blockquote>`, ""},
		{"a byline of a comment is someone else's",
			`<div id="comments"><div class="comment"><span class="byline">Some Commenter</span></div></div>`, ""},
		{"a one-word byline in page text is not trusted", `<span class="author">Menu</span>`, ""},
		{"an author that is only the publisher is null",
			`<meta property="og:site_name" content="Segment"><meta name="twitter:creator" content="@segment">`, ""},
		{"an author that is the site's domain is null", `<meta name="author" content="news.example.com">`, ""},
		{"an author that is a URL is null", `<meta name="author" content="https://example.com/about">`, ""},
		{"a placeholder author is null", `<meta name="author" content="admin">`, ""},
		{"a paragraph is no author",
			`<meta name="author" content="This is a very long sentence that somebody put into the author field of the page for no reason at all">`, ""},
		{"twitter:creator is the last resort when it gives a name", `<meta name="twitter:creator" content="Jane Doe">`, "Jane Doe"},
		{"twitter:creator giving a handle is no author", `<meta name="twitter:creator" content="@BT_India">`, ""},
		{"a page without an author has none", `<p>text</p>`, ""},

		// An organisation in an author field waits for a person.
		{"a company in the author meta tag loses to the byline's person",
			`<meta name="author" content="Acme Media Inc."><h1>A story</h1><div class="byline">By <a href="/author/jane-doe">Jane Doe</a></div>`,
			"Jane Doe"},
		{"a Japanese company in the author meta tag loses to article:author",
			`<meta name="author" content="株式会社サンプル"><meta property="article:author" content="Taro Yamada">`, "Taro Yamada"},
		{"the copyright holder as author loses to the byline",
			`<meta name="author" content="Northwind Traders"><h1>A story</h1><p class="byline">By Jane Doe</p>
			<footer><p>© 2012–2024 Northwind Traders. All rights reserved.</p></footer>`, "Jane Doe"},
		{"a news agency as author loses to the byline",
			`<meta name="author" content="Reuters"><h1>A story</h1><div class="byline">By Jane Doe</div>`, "Jane Doe"},
		{"a JSON-LD Organization author loses to article:author",
			`<script type="application/ld+json">{"@type":"NewsArticle","author":{"@type":"Organization","name":"Example Group"}}</script>
			<meta property="article:author" content="Jane Doe">`, "Jane Doe"},
		{"a staff attribution loses to the named byline",
			`<script type="application/ld+json">{"@type":"Article","author":{"@type":"Person","name":"Example Staff"}}</script>
			<h1>A story</h1><div class="byline"><a href="/author/jane-doe">Jane Doe</a></div>`, "Jane Doe"},
		{"a company is still the author when no person is named",
			`<meta name="author" content="Acme Media Inc.">`, "Acme Media Inc."},

		// The publisher's own name, and handles.
		{"a declared author that is the publisher is kept on a personal site",
			`<meta property="og:site_name" content="Jane Doe"><meta name="author" content="Jane Doe"><meta name="twitter:creator" content="@janedoe">`,
			"Jane Doe"},
		{"an author that is the publisher is kept when only the title names the site",
			`<title>Notes on gardening | Jane Doe</title><div itemprop="author" itemscope><span itemprop="name">Jane Doe</span></div>`,
			"Jane Doe"},
		{"og:article:author is read", `<meta property="og:article:author" content="Jane Doe">`, "Jane Doe"},
		{"a user name with digits is no author, and the byline is read instead",
			`<script type="application/ld+json">{"@type":"Article","creator":"user7567"}</script><h1>A story</h1><div class="byline">By Jane Doe</div>`,
			"Jane Doe"},
		{"a user name with an underscore is no author", `<meta name="author" content="jane_doe">`, ""},

		// Bylines come from the article, not the page around it.
		{"writers in the navigation menu are not the article's",
			`<nav><a href="/author/menu-writer">Menu Writer</a></nav><article><h1>A story</h1><p class="byline">By <a href="/author/jane-doe">Jane Doe</a></p></article>`,
			"Jane Doe"},
		{"writers in a menu marked only by its class are not the article's",
			`<div class="site-nav-links"><ul><li><a href="/author/menu-writer">Menu Writer</a></li></ul></div><h1>A story</h1><div class="meta">By <a href="/author/jane-doe">Jane Doe</a></div>`,
			"Jane Doe"},
		{"rel=author links of related stories are not joined to the byline",
			`<h1>A story</h1><div class="meta"><a rel="author" href="/author/jane">Jane Doe</a></div>
			<section class="related-stories"><a rel="author" href="/author/john">John Roe</a></section>`, "Jane Doe"},
		{"an author box in the sidebar is not the article's",
			`<aside><div class="author">Side Writer</div></aside><main><h1>A story</h1><span class="author">Jane Doe</span></main>`, "Jane Doe"},
		{"a byline inside a page wrapper named for its sidebar is read",
			`<div class="page with-sidebar comments-open"><h1>A story</h1><p class="byline">By Jane Doe</p></div>`, "Jane Doe"},
		{"an author link in the footer is no byline",
			`<h1>A story</h1><p>Some text of the story.</p><footer><a href="/authors/foot-writer">Foot Writer</a></footer>`, ""},
		{"the byline next to the headline wins over one further down",
			`<div><h1>A story</h1><div class="byline">By Jane Doe</div></div><div><div class="byline">By John Roe</div></div>`, "Jane Doe"},
		{"a list of contributors far below the headline is no byline",
			`<div><div><div><div><div><h1>A story</h1></div></div></div></div><p>` + strings.Repeat("Words of the story. ", 40) +
				`</p><div class="guests"><a href="/contributors/guest-person">Guest Person</a></div></div>`, ""},

		// Reading a byline block.
		{"the name after By wins over the rest of the byline block",
			`<h1>A story</h1><div class="byline"><span>By Meg Wagner</span><span>NEW YORK DAILY NEWS | Dec 16</span></div>`, "Meg Wagner"},
		{"a job title beside the name is left out",
			`<h1>A story</h1><div class="author-card"><span>Jane Doe</span><span>Senior Reporter</span></div>`, "Jane Doe"},
		{"two linked authors in one byline are joined",
			`<h1>A story</h1><div class="byline">By <a href="/author/a">Ann Lee</a> and <a href="/author/b">Bo Kim</a></div>`, "Ann Lee and Bo Kim"},
		{"three linked authors in one byline are joined",
			`<h1>A story</h1><div class="byline">By <a href="/author/a">Ann Lee</a>, <a href="/author/b">Bo Kim</a> and <a href="/author/c">Cy Dee</a></div>`,
			"Ann Lee, Bo Kim and Cy Dee"},
		{"a heading introducing the author is no byline",
			`<h1>A course</h1><div class="author-intro"><h2>Meet Wes Bos</h2></div>`, ""},
		{"two authors after By are joined",
			`<h1>A story</h1><div class="byline">By <b>Ann Lee</b> and <b>Bo Kim</b></div>`, "Ann Lee and Bo Kim"},
		{"a name set word by word is read whole",
			`<h1>A story</h1><div class="author"><span>Meg</span> <span>Wagner</span></div>`, "Meg Wagner"},
		{"share buttons next to the byline are no name",
			`<h1>A story</h1><div class="author-tools">Share Tweet Email</div>`, ""},

		// Bylines found by their text.
		{"By and a name near the headline count when class names are hashed",
			`<div class="x1a"><h1 class="_h7">A story</h1><div class="_ceVT">By <span>Jane Doe</span></div></div>`, "Jane Doe"},
		{"a By standing alone in its element takes the name beside it",
			`<h1>A story</h1><div class="q9"><span>By</span><a href="/p/jane">Jane Doe</a></div>`, "Jane Doe"},
		{"a single word after a lone By is the name",
			`<h1>Chapter two</h1><div class="f1"><a href="/fiction/1/a-tale"><h2>A Tale Of Things</h2></a> <span>by</span> <h3><a href="/profile/338">Sleyca</a></h3></div>`,
			"Sleyca"},
		{"a writer class counts as a byline", `<h1>A story</h1><span class="post-writer">Jane Doe</span>`, "Jane Doe"},
		{"by inside a sentence is no byline",
			`<h1>A story</h1><p>A portrait by <a href="/x">Some Painter</a>, showing the sea at dawn</p>`, ""},
		{"a photo credit in a caption is no byline",
			`<h1>A story</h1><div class="photo-caption">The harbour at dawn. <span class="credit">By Photo Person</span></div>`, ""},

		// Mangled byline text.
		{"By glued to the name by markup is still taken off",
			`<h1>A story</h1><div class="byline">By<span>Travis Haney</span></div>`, "Travis Haney"},
		{"the author page link wins over the section named after in",
			`<h1>A story</h1><p class="byline"><a href="/author/michael-larabel">Michael Larabel</a> in <a href="/news/valve">Valve</a> on 12 May 2020</p>`,
			"Michael Larabel"},
		{"trailing in and on clauses are cut from a byline",
			`<h1>A story</h1><p class="author">Michael Larabel in Valve on Tuesday</p>`, "Michael Larabel"},
	}
	checkAuthors(t, tests)
}

func TestIsURLLike(t *testing.T) {
	for in, want := range map[string]bool{
		"https://example.com": true, "www.example.com": true, "example.com/jane": true, "example.com": true,
		"//cdn.example.com/x": true, "odno.kino": false, "Jane Doe": false, "J.R.R. Tolkien": false, "": false,
	} {
		if got := isURLLike(in); got != want {
			t.Errorf("isURLLike(%q) = %v, want %v", in, got, want)
		}
	}
}

// authorCase is a page and the author its answer names ("" for none).
type authorCase struct{ name, html, want string }

// checkAuthors runs each case as a subtest of t.
func checkAuthors(t *testing.T, cases []authorCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			if got := value(extractHTML(t, tt.html).Author); got != tt.want {
				t.Errorf("author = %q, want %q", got, tt.want)
			}
		})
	}
}
