package markdown

import (
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

func TestArticleLeavesOutItsTableOfContents(t *testing.T) {
	para := func(s string) string { return `<p>` + strings.Repeat(s+" ", 5) + `</p>` }
	sections := `<h2>Choosing the clay</h2>` + para("Stoneware holds its shape in a hot kiln.") +
		`<h2>Wedging by hand</h2>` + para("Wedging drives the air out of the clay.") +
		`<h2>1. Firing the kiln</h2>` + para("A slow firing keeps the pots from cracking.")
	for _, tc := range []struct {
		name           string
		page           string
		want, unwanted []string
	}{
		{
			name: "a list of links into the page goes with its label",
			page: `<main><h1>Making a pot</h1>` + para("Every pot starts as a lump of clay.") +
				`<p>Table of Contents</p><ul><li><a href="` + testPageURL + `#clay">Choosing the clay</a></li><li><a href="` + testPageURL + `#wedge">Wedging by hand</a>` +
				`<ul><li><a href="#wedge-tools">Tools</a></li></ul></li><li><a href="` + testPageURL + `#fire">Firing the kiln</a></li></ul>` + sections + `</main>`,
			want:     []string{"## Choosing the clay", "## 1. Firing the kiln", "Wedging drives the air out"},
			unwanted: []string{"Table of Contents", "#wedge-tools", "](#", "- [Choosing"},
		},
		{
			name: "an unlinked list naming the headings below goes, numbering aside",
			page: `<main><h1>Making a pot</h1>` + para("Every pot starts as a lump of clay.") +
				`<h3>Contents</h3><ol><li>Choosing the clay</li><li>Wedging by hand</li><li>Firing the kiln.</li></ol>` + sections + `</main>`,
			want:     []string{"## Choosing the clay", "## Wedging by hand"},
			unwanted: []string{"Contents", "1. Choosing the clay"},
		},
		{
			name: "a table of contents' label standing alone goes, a heading called Contents over prose stays",
			page: `<main><h1>Making a pot</h1><h2>On this page</h2>` + para("Every pot starts as a lump of clay.") + sections +
				`<h2>Contents</h2>` + para("The kit holds two kilos of clay, a wire and a sponge.") + `</main>`,
			want:     []string{"## Contents", "The kit holds two kilos"},
			unwanted: []string{"On this page"},
		},
		{
			name: "a recap of the headings above it is the content's own",
			page: `<main><h1>Making a pot</h1>` + para("Every pot starts as a lump of clay.") + sections +
				`<h2>The steps at a glance</h2><ol><li>Choosing the clay</li><li>Wedging by hand</li><li>Firing the kiln</li></ol></main>`,
			want: []string{"## The steps at a glance", "1. Choosing the clay", "3. Firing the kiln"},
		},
		{
			name: "a list whose entries say more than a link into the page stays",
			page: `<main><h1>Middleware order</h1>` + para("The order of the middleware matters.") +
				`<ol><li><a href="#security">SecurityMiddleware</a> goes near the top of the list, before the redirect.</li>` +
				`<li><a href="#cache">UpdateCacheMiddleware</a> comes before those that change the Vary header.</li>` +
				`<li><a href="#gzip">GZipMiddleware</a> comes before any middleware that changes the body.</li></ol>` + sections + `</main>`,
			want: []string{"goes near the top of the list", "comes before any middleware"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := article(t, `<!doctype html><html><head><title>Pottery - Example</title></head><body>`+pageHeader+tc.page+pageFooter+`</body></html>`)
			checkHolds(t, md, tc.want, tc.unwanted)
		})
	}
}

// TestACardListTitledWithHeadingsIsNoTableOfContents covers a list whose
// entries are headings themselves: they name no heading after the list.
func TestACardListTitledWithHeadingsIsNoTableOfContents(t *testing.T) {
	doc := parse(t, `<html><body><main><h1>Latest news</h1><ul><li><h5><a href="/a">Open source in 2026</a></h5></li>`+
		`<li><h5><a href="/b">Green IT, ten years on</a></h5></li><li><h5><a href="/c">Boundaries in architecture</a></h5></li></ul></main></body></html>`)
	main := findFirst(doc.Nodes[0], func(n *html.Node) bool { return n.DataAtom == atom.Main })
	dropTableOfContents(main, pageURL(t))
	if findFirst(main, func(n *html.Node) bool { return n.DataAtom == atom.Ul }) == nil {
		t.Fatal("the list of cards was taken for a table of contents")
	}
}
