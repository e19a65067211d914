package pages

import (
	"fmt"
	"html"
	"math/rand/v2"
	"strings"
)

// syntheticPage is one page made up at start, deterministic between runs.
type syntheticPage struct {
	name   string
	render func() []byte
}

// synthetic are the shapes of page glimpse meets most: each stresses a
// different step (metadata sources, DOM size, subresources, late scripts).
var synthetic = []syntheticPage{
	{"article", articlePage},
	{"blog", blogPage},
	{"gallery", galleryPage},
	{"app", appPage},
}

var words = strings.Fields(`the of and to in a is that for it as was with be by on not he this are or his
from at which but have an they you were her she there been one all we their has would when if so no will
can more about said what up its into than them only other new some could time these two may then do first
any my now such like our over man me even most made after also did many before must through back years
where much your way well down should because each just those people how too little state good very make
world still own see men work long get here between both life being under never day same another know while
last might us great old year off come since against go came right used take three browser render page
metadata publisher newsroom archive latency cluster sidecar headless protocol document context storage`)

// prose is n paragraphs of sentences from a fixed seed.
func prose(rng *rand.Rand, paragraphs, sentences int) string {
	var b strings.Builder
	for range paragraphs {
		b.WriteString("<p>")
		for s := range sentences {
			n := 8 + rng.IntN(14)
			for w := range n {
				word := words[rng.IntN(len(words))]
				if w == 0 {
					word = strings.ToUpper(word[:1]) + word[1:]
				}
				b.WriteString(word)
				if w < n-1 {
					b.WriteByte(' ')
				}
			}
			b.WriteString(". ")
			if s%5 == 4 {
				fmt.Fprintf(&b, `<a href="/article?ref=%d">read more</a>. `, rng.IntN(1000))
			}
		}
		b.WriteString("</p>\n")
	}
	return b.String()
}

func chrome() (header, footer string) {
	header = `<header><nav><a href="/">Home</a><a href="/article">News</a><a href="/blog">Blog</a><a href="/gallery">Photos</a><a href="/app">App</a></nav></header>`
	footer = `<footer><p>© 2026 The Loopback Ledger · <a href="/about">About</a> · <a href="/privacy">Privacy</a></p></footer>`
	return
}

// articlePage is a news article whose metadata is everywhere at once:
// Open Graph, Twitter cards, JSON-LD NewsArticle, a canonical link and an
// icon, with a hero image, a stylesheet and an analytics script.
func articlePage() []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	header, footer := chrome()
	title := "City council approves the riverside transit plan after a late-night vote"
	desc := "The plan adds two tram lines and a footbridge by 2029; opponents say the budget leaves out maintenance."
	ld := `{"@context":"https://schema.org","@type":"NewsArticle","headline":"` + title + `",
"description":"` + desc + `","image":["/img/hero.jpg"],"datePublished":"2026-04-18T21:40:00Z","dateModified":"2026-04-19T07:05:00Z",
"author":[{"@type":"Person","name":"Maren Olsen","url":"/authors/maren-olsen"}],
"publisher":{"@type":"Organization","name":"The Loopback Ledger","logo":{"@type":"ImageObject","url":"/favicon.png"}},
"mainEntityOfPage":{"@type":"WebPage","@id":"/article"}}`
	return []byte(`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<title>` + html.EscapeString(title) + ` | The Loopback Ledger</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="description" content="` + html.EscapeString(desc) + `">
<meta name="author" content="Maren Olsen">
<meta property="og:type" content="article">
<meta property="og:title" content="` + html.EscapeString(title) + `">
<meta property="og:description" content="` + html.EscapeString(desc) + `">
<meta property="og:image" content="/img/hero.jpg">
<meta property="og:site_name" content="The Loopback Ledger">
<meta property="article:published_time" content="2026-04-18T21:40:00Z">
<meta name="twitter:card" content="summary_large_image">
<meta name="twitter:title" content="` + html.EscapeString(title) + `">
<link rel="canonical" href="/article">
<link rel="icon" type="image/png" href="/favicon.png">
<link rel="stylesheet" href="/static/site.css">
<script type="application/ld+json">` + ld + `</script>
<script src="/static/site.js" defer></script>
</head><body>` + header + `
<main><article>
<h1>` + html.EscapeString(title) + `</h1>
<p class="byline">By <a rel="author" href="/authors/maren-olsen">Maren Olsen</a> · <time datetime="2026-04-18T21:40:00Z">18 April 2026</time></p>
<figure><img src="/img/hero.jpg" width="1200" height="630" alt="The riverside at dusk"><figcaption>The riverside at dusk.</figcaption></figure>
` + prose(rng, 14, 6) + `
</article>
<aside><h2>Related</h2><ul>` + strings.Repeat(`<li><a href="/article?related=1">Transit in numbers</a></li>`, 6) + `</ul></aside>
</main>` + footer + `</body></html>`)
}

// blogPage is a long post: a big document, code blocks, inline images and
// a long comment thread, with its metadata in plain meta tags only.
func blogPage() []byte {
	rng := rand.New(rand.NewPCG(3, 4))
	header, footer := chrome()
	var body strings.Builder
	for s := range 24 {
		fmt.Fprintf(&body, "<h2 id=\"s%d\">Part %d: %s %s</h2>\n", s, s+1, words[rng.IntN(len(words))], words[rng.IntN(len(words))])
		body.WriteString(prose(rng, 6, 7))
		if s%3 == 0 {
			fmt.Fprintf(&body, "<pre><code>%s</code></pre>\n", html.EscapeString(strings.Repeat("for (let i = 0; i < n; i++) { total += weights[i] * values[i]; }\n", 12)))
		}
		if s%4 == 1 {
			fmt.Fprintf(&body, "<img src=\"/img/photo/%d.png\" alt=\"figure %d\" loading=\"eager\">\n", 100+s, s)
		}
	}
	var comments strings.Builder
	for c := range 80 {
		fmt.Fprintf(&comments, "<li class=\"comment\"><b>reader%d</b>%s</li>\n", c, prose(rng, 1, 2))
	}
	return []byte(`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<title>What I learned running headless browsers for five years</title>
<meta name="description" content="A long, opinionated tour of memory, time-outs, fonts and all the other ways a browser farm surprises you.">
<meta name="author" content="Tomás Ferreira">
<meta property="article:published_time" content="2026-01-09T10:00:00Z">
<link rel="icon" href="/favicon.png">
<link rel="stylesheet" href="/static/site.css">
</head><body>` + header + `<main><article><h1>What I learned running headless browsers for five years</h1>
` + body.String() + `</article><section><h2>Comments</h2><ol>` + comments.String() + `</ol></section></main>` + footer + `</body></html>`)
}

// galleryPage has 120 images, each at its own URL, which the load event
// waits for.
func galleryPage() []byte {
	header, footer := chrome()
	var grid strings.Builder
	for i := range 120 {
		fmt.Fprintf(&grid, "<a href=\"/photos/%d\"><img src=\"/img/photo/%d.png\" alt=\"photo %d\"></a>\n", i, i, i)
	}
	return []byte(`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<title>Spring on the waterfront — 120 photographs</title>
<meta name="description" content="Readers' photographs of the waterfront this spring, in one gallery.">
<meta property="og:title" content="Spring on the waterfront">
<meta property="og:image" content="/img/photo/0.png">
<meta property="og:site_name" content="The Loopback Ledger">
<link rel="icon" href="/favicon.png">
<link rel="stylesheet" href="/static/site.css">
</head><body>` + header + `<main><h1>Spring on the waterfront</h1><div class="grid">
` + grid.String() + `</div></main>` + footer + `</body></html>`)
}

// appPage is a client-rendered application: an empty shell, two large
// script bundles, and a title and metadata that arrive from an API call
// after the load event.
func appPage() []byte {
	return []byte(`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="/favicon.png">
<link rel="stylesheet" href="/static/site.css">
<script src="/static/vendor.js"></script>
</head><body><div id="root"><p>Loading…</p></div>
<script src="/static/app.js"></script>
</body></html>`)
}
