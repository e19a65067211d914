package meta

import "testing"

func TestTitle(t *testing.T) {
	tests := []struct {
		name, html, want string
	}{
		{"og:title wins over twitter:title and the document title",
			`<title>Doc</title><meta name="twitter:title" content="Tw"><meta property="og:title" content="OG">`, "OG"},
		{"og:title given with name= instead of property= still counts",
			`<title>Doc</title><meta name="og:title" content="OG by name">`, "OG by name"},
		{"twitter:title is used when og:title is missing",
			`<title>Doc</title><meta name="twitter:title" content="Tw">`, "Tw"},
		{"an empty og:title is skipped", `<meta property="og:title" content="  "><title>Doc</title>`, "Doc"},
		{"og:title keeps the site name the publisher put in it",
			`<meta property="og:site_name" content="Example News"><meta property="og:title" content="Story | Example News">`,
			"Story | Example News"},
		{"the headline of the main JSON-LD item comes before the document title",
			`<title>Doc | Example</title><script type="application/ld+json">{"@type":"NewsArticle","headline":"From JSON-LD"}</script>`,
			"From JSON-LD"},
		{"a JSON-LD WebSite name is not a title",
			`<title>Doc</title><script type="application/ld+json">{"@type":"WebSite","name":"The Site"}</script>`, "Doc"},
		{"JSON-LD that is invalid JSON is repaired",
			`<script type="application/ld+json">{"@type": "Article", "headline": "Repaired",}</script>`, "Repaired"},
		{"Dublin Core and citation titles are read",
			`<meta name="citation_title" content="A Paper"><title>Doc</title>`, "A Paper"},
		{"the document title loses a trailing | Publisher",
			`<meta property="og:site_name" content="Example News"><title>Story | Example News</title>`, "Story"},
		{"the document title loses a trailing - Publisher written differently",
			`<meta property="og:site_name" content="TheVerge"><title>Story - The Verge</title>`, "Story"},
		{"the document title loses the site's domain name",
			`<title>Story — Example</title>`, "Story"},
		{"the document title loses section and site",
			`<meta property="og:site_name" content="Example News"><title>Story · Tech · Example News</title>`, "Story · Tech"},
		{"a suffix that is not the publisher stays",
			`<meta property="og:site_name" content="Example News"><title>Part 1 - Introduction</title>`, "Part 1 - Introduction"},
		{"a title that is only the publisher stays whole",
			`<meta property="og:site_name" content="Example News"><title>Example News</title>`, "Example News"},
		{"a <title> inside <svg> is not the page's title",
			`<body><svg><title>Close icon</title></svg><h1>Heading</h1></body>`, "Heading"},
		{"the head title wins over one in an inline SVG",
			`<head><title>Doc</title></head><body><svg><title>icon</title></svg></body>`, "Doc"},
		{"microdata headline is read",
			`<div itemscope itemtype="https://schema.org/Article"><span itemprop="headline">Micro</span></div>`, "Micro"},
		{"RDFa headline is read", `<h2 property="schema:headline">Rdfa Title</h2>`, "Rdfa Title"},
		{"Dublin Core with a colon is read", `<meta name="DC:title" content="Colon Dublin">`, "Colon Dublin"},
		{"the first <h1> is the last resort", `<h1> </h1><h1>Second heading</h1>`, "Second heading"},
		{"entities, double-encoded ones included, are decoded",
			`<meta property="og:title" content="Rock &amp;amp; Roll &#8211; Live">`, "Rock & Roll – Live"},
		{"whitespace is collapsed and invisible characters dropped",
			"<meta property=\"og:title\" content=\"  Zero\u200bwidth\n\n  and\u00a0soft\u00adhyphen \ufeff\">", "Zerowidth and softhyphen"},
		{"straight quotes become typographic ones",
			`<meta property="og:title" content="It's &quot;fine&quot;, the '90s said">`, "It’s “fine”, the ’90s said"},
		{"a title of punctuation only is no title", `<meta property="og:title" content="| — |"><title>Doc</title>`, "Doc"},
		{"a page without any title has none", `<p>text</p>`, ""},
		{"Markdown emphasis around a title's words is dropped",
			`<meta property="og:title" content="*A Treatise on Coffee* (1792)">`, "A Treatise on Coffee (1792)"},
		{"strong emphasis inside a title is dropped",
			`<meta property="og:title" content="Why **nobody** reads the manual">`, "Why nobody reads the manual"},
		{"a star that emphasises nothing stays",
			`<meta property="og:title" content="Rated 5 * 4 = 20 stars">`, "Rated 5 * 4 = 20 stars"},
		{"stars that do not pair stay",
			`<meta property="og:title" content="Mixed **stars* here">`, "Mixed **stars* here"},
		{"a footnote star after a word stays",
			`<meta property="og:title" content="Free shipping* on every order">`, "Free shipping* on every order"},
		{"a declared title that is only the site's name gives way to the document title",
			`<meta property="og:site_name" content="Corvid"><meta property="og:title" content="Corvid"><title>Wool Socks for Winter</title>`,
			"Wool Socks for Winter"},
		{"a second og:title that names the page wins over a first that names the site",
			`<meta property="og:site_name" content="Corvid"><meta property="og:title" content="Corvid">` +
				`<meta property="og:title" content="Which sock for which boot? | Corvid">`, "Which sock for which boot? | Corvid"},
		{"a page whose every declared title is the site's name is named by its heading",
			`<meta property="og:site_name" content="Corvid"><meta property="og:title" content="Corvid"><title>Corvid</title>` +
				`<h1>Custom Knitting Set</h1>`, "Custom Knitting Set"},
		{"the site's name stays the title when the page has nothing better",
			`<meta property="og:site_name" content="Corvid"><meta property="og:title" content="Corvid"><p>text</p>`, "Corvid"},
		{"a site's name with a tagline is a title the site chose, and stays",
			`<meta name="application-name" content="Corvid News - Latest Headlines">` +
				`<meta property="og:title" content="Corvid News - Latest Headlines"><title>Storm hits the coast</title>`,
			"Corvid News - Latest Headlines"},
		{"the name of a JSON-LD recording that is a file's name is no title",
			`<title>Lantern Definition</title><script type="application/ld+json">{"@type":"AudioObject","name":"lantern_010.mp3"}</script>`,
			"Lantern Definition"},
		{"JSON-LD products of a list, each under its own name, name none of them",
			`<title>Trail Shoes</title><script type="application/ld+json">[{"@type":"Product","name":"Ridge 5"},` +
				`{"@type":"Product","name":"Summit 2"},{"@type":"Product","name":"Pass 9"}]</script>`, "Trail Shoes"},
		{"a JSON-LD product declared twice under one name is the page's",
			`<title>Shop</title><script type="application/ld+json">[{"@type":"Product","name":"Ridge 5"},` +
				`{"@type":"Product","name":"Ridge 5","sku":"R5"}]</script>`, "Ridge 5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := value(extractHTML(t, tt.html).Title); got != tt.want {
				t.Errorf("title = %q, want %q", got, tt.want)
			}
		})
	}
}
