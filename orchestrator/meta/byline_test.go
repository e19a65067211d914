package meta

import "testing"

// TestPrintedBylines covers bylines as pages print them: a name run into
// the job title, label or date beside it, an organisation signing for its
// staff, and the article's own footer and aside.
func TestPrintedBylines(t *testing.T) {
	tests := []authorCase{
		{"a title after the name is cut",
			`<h1>A guide</h1><div class="author-box">By Liz Kenny Former Management Consultant</div>`, "Liz Kenny"},
		{"a department and a role after the name are cut",
			`<h1>A story</h1><div class="byline">By Harry Rabinowitz Tech Reporter</div>`, "Harry Rabinowitz"},
		{"a title after a comma is cut",
			`<h1>A story</h1><div class="byline">By Jane Doe, Staff Writer</div>`, "Jane Doe"},
		{"a label after the name is cut",
			`<h1>A story</h1><div class="author">By Craig Mason Last updated</div>`, "Craig Mason"},
		{"a three-word name keeps its words",
			`<h1>A story</h1><div class="byline">By Mary Ann Smith Senior Editor</div>`, "Mary Ann Smith"},
		{"a name the markup gives is not cut, even when it reads like a title",
			`<meta name="author" content="Top Growth Marketing">`, "Top Growth Marketing"},
		{"quotes around a name are not part of it",
			`<meta name="author" content="“David Kim”">`, "David Kim"},
		{"a date printed before the name is not part of it",
			`<h1>What people love</h1><div class="publish-date-author">Dec. 19, 2025 · Nora Matsak on behalf of <a href="https://team.example.org/">the team</a></div>`,
			"Nora Matsak"},
		{"a page that names no person is signed by the organisation its byline prints",
			`<meta property="og:site_name" content="Podium"><h1>Text marketing tips</h1><div class="author"><p class="authorName">Podium Staff</p></div>`,
			"Podium Staff"},
		{"a person named in markup wins over a printed organisation",
			`<meta property="og:site_name" content="Podium"><meta name="author" content="Jane Doe"><h1>Tips</h1><div class="author"><p class="authorName">Podium Staff</p></div>`,
			"Jane Doe"},
		{"the article's own footer holds its byline",
			`<article><h1>A story</h1><p>Text.</p><footer><div class="author">By <a href="/author/jane">Jane Doe</a></div></footer></article>` +
				`<footer><div class="author">Site by <a href="/author/webmaster">Web Master</a></div></footer>`,
			"Jane Doe"},
		{"the article's own aside holds its byline",
			`<article><h1>A story</h1><aside class="stickySide"><div class="author"><a href="/author/hg/" rel="author">Halina Gortz</a></div></aside><p>Text.</p></article>`,
			"Halina Gortz"},
		{"a byline in a column beside the article, inside the main element, is the article's",
			`<main><div class="grid"><section><h1>A story</h1><p>Text of the story.</p></section>
			<aside class="side-col"><p class="article-author">Written By <span>Ann Holl, MD*</span></p></aside></div></main>`,
			"Ann Holl, MD"},
		{"a product's brand is its author",
			`<script type="application/ld+json">{"@type":"Product","name":"Trail shoe","brand":{"@type":"Brand","name":"Acme Outdoor"}}</script><h1>Trail shoe</h1>`,
			"Acme Outdoor"},
		{"a product's brand gives way to a person the page names",
			`<meta name="author" content="Jane Doe"><script type="application/ld+json">{"@type":"Product","name":"Trail shoe","brand":"Acme Outdoor"}</script>`,
			"Jane Doe"},
		{"the site's footer is still furniture",
			`<h1>A story</h1><p>Text.</p><footer><div class="author">By <a href="/author/webmaster">Web Master</a></div></footer>`, ""},
	}
	checkAuthors(t, tests)
}
