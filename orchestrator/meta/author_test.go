package meta

import "testing"

func TestAuthor(t *testing.T) {
	tests := []struct {
		name, html, want string
	}{
		{"the JSON-LD author's name comes first",
			`<meta name="author" content="Meta Name"><script type="application/ld+json">{"@type":"NewsArticle","author":{"@type":"Person","name":"Jane Doe"}}</script>`,
			"Jane Doe"},
		{"a plain string author in JSON-LD is read",
			`<script type="application/ld+json">{"@type":"BlogPosting","author":"Jane Doe"}</script>`, "Jane Doe"},
		{"two JSON-LD authors are joined with and",
			`<script type="application/ld+json">{"@type":"Article","author":[{"name":"David Li"},{"name":"Doha Madani"}]}</script>`,
			"David Li and Doha Madani"},
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
		{"several citation_author tags are joined",
			`<meta name="citation_author" content="Curie, Marie"><meta name="citation_author" content="Curie, Pierre">`,
			"Curie, Marie and Curie, Pierre"},
		{"Dublin Core creator is read", `<meta name="DC.creator" content="Dub Core">`, "Dub Core"},
		{"a handle after the name goes", `<meta name="author" content="Jane Doe (@janedoe)">`, "Jane Doe"},
		{"a bare handle loses its @", `<meta name="twitter:creator" content="@janedoe">`, "janedoe"},
		{"an e-mail address after the name goes", `<meta name="author" content="Jane Doe jane@example.com">`, "Jane Doe"},
		{"microdata author item gives its name",
			`<div itemscope itemtype="https://schema.org/Article"><div itemprop="author" itemscope itemtype="https://schema.org/Person"><span itemprop="name">Micro Data</span><span>Staff writer</span></div></div>`,
			"Micro Data"},
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
		{"twitter:creator is the last resort", `<meta name="twitter:creator" content="@BT_India">`, "BT_India"},
		{"a page without an author has none", `<p>text</p>`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := value(extractHTML(t, tt.html).Author); got != tt.want {
				t.Errorf("author = %q, want %q", got, tt.want)
			}
		})
	}
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
