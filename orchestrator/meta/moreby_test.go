package meta

import (
	"strings"
	"testing"
)

// TestAllArticlesByLinksNameTheWriter covers the links to a writer's other
// posts, read when nothing else names the writer.
func TestAllArticlesByLinksNameTheWriter(t *testing.T) {
	body := `<p>` + longText(800) + `</p>`
	tests := []authorCase{
		{"a button labelled all articles by a name names the writer",
			`<article><h1>Payroll in five countries</h1>` + body + `<div><p>Elliot Raba</p><button aria-label="All articles by Elliot Raba"><span>All articles by Elliot Raba</span></button></div></article>`,
			"Elliot Raba"},
		{"a link saying more posts from a name names the writer",
			`<article><h1>Payroll in five countries</h1>` + body + `<p><a href="/blog?w=1">View all posts by Nadia Ferreira »</a></p></article>`,
			"Nadia Ferreira"},
		{"links to the posts of several people name no one",
			`<main><h1>The blog</h1>` + body + `<a href="/a">More posts by Nadia Ferreira</a><a href="/b">More posts by Elliot Raba</a></main>`,
			""},
		{"a link to a topic's articles names no one",
			`<article><h1>Payroll in five countries</h1>` + body + `<a href="/t">All articles from our payroll experts team</a></article>`,
			""},
	}
	checkAuthors(t, tests)
}

// TestALabelOverANameNamesTheWriter covers a name headed by a label in the
// element before it, with nothing in the markup naming a byline.
func TestALabelOverANameNamesTheWriter(t *testing.T) {
	body := `<p>` + longText(800) + `</p>`
	tests := []authorCase{
		{"a heading saying article by over a name",
			`<article><h1>Compilers for fun</h1>` + body + `</article><section><h2>Article by</h2><div>Matias Heikkilä</div></section>`,
			"Matias Heikkilä"},
		{"a heading that says written by and the name, in a box after the article",
			`<article><h1>Saving for a house</h1>` + body + `</article><section><h3>Written by Cassidy Horton</h3><p>Cassidy is a finance writer.</p></section>`,
			"Cassidy Horton"},
		{"a contributors label and the name in one line",
			`<article><h1>Houseplants for dim rooms</h1>` + body + `<div class="tags"><div><strong>Contributors:</strong> Janet Loughrey</div></div></article>`,
			"Janet Loughrey"},
		{"a comment's posted-by line names no author",
			`<article><h1>Saving for a house</h1>` + body + `</article><section><p>Posted by Jim Reader</p><p>Great tips, thanks.</p></section>`,
			""},
		{"about the author over a biography that opens with the name",
			`<article><h1>Cloud trends</h1>` + body + `<p>About the Author:</p><p>Juliette Carreiro is a content creator with five years of experience in tech.</p></article>`,
			"Juliette Carreiro"},
		{"a written-by label over a name and a title set apart with a dash",
			`<article><h1>Quizzes that teach</h1>` + body + `<div><span>Written by</span><span>Eliz Varga - Product marketer</span></div></article>`,
			"Eliz Varga"},
		{"a label over a sentence names no one",
			`<article><h1>Cloud trends</h1>` + body + `<h3>Author</h3><p>Send us your questions and we will answer them next week.</p></article>`,
			""},
	}
	checkAuthors(t, tests)
}

// TestBoundedTextReadsABlockNoFurtherThanItsStart covers the bounded read
// the label rules make of each element: white space counts once, and a
// large block stops the read past the limit.
func TestBoundedTextReadsABlockNoFurtherThanItsStart(t *testing.T) {
	doc := parseHTML(t, `<div id="name">`+strings.Repeat("\n   ", 500)+`<span>Jane</span>`+strings.Repeat(" \n", 300)+`<span>Roe</span></div>`+
		`<div id="big">`+strings.Repeat("<div>A long sentence of the article. ", 5000)+strings.Repeat("</div>", 5000)+`</div>`)
	name, whole := boundedText(doc.Find("#name").Nodes[0], 40)
	if got := strings.Join(strings.Fields(name), " "); got != "Jane Roe" || !whole {
		t.Errorf("the name read %q, whole %v; want \"Jane Roe\", whole", got, whole)
	}
	big, whole := boundedText(doc.Find("#big").Nodes[0], 200)
	if whole || len(big) > 240 {
		t.Errorf("the block read %d bytes, whole %v; want at most about 200, not whole", len(big), whole)
	}
	doc = parseHTML(t, `<div id="box"><p>Written by</p><p><a href="/author/x/">Sir Nuno</a></p><ul><li>One</li><li>Two</li></ul>Jo<b>e</b></div>`)
	if got, _ := boundedText(doc.Find("#box").Nodes[0], 200); strings.Join(strings.Fields(got), " ") != "Written by Sir Nuno One Two Joe" {
		t.Errorf("the blocks read %q; want each block apart and inline markup joined", got)
	}
}
