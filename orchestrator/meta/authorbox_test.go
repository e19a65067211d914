package meta

import "testing"

// TestAuthorBoxAtTheEnd covers the box about the author that ends a post,
// far from the headline, read when nothing near the title names anyone.
func TestAuthorBoxAtTheEnd(t *testing.T) {
	// The headline sits a few wrappers deep, as on most pages, so that the
	// end of the article lies beyond the blocks nearest to it.
	body := `<p>` + longText(1500) + `</p>`
	tests := []authorCase{
		{"the author box after a long post names its author",
			`<article><header><div><div><h1>Search tips for clinics</h1></div></div></header>` + body + `<div class="blog_author-box"><img alt="" src="/a.jpg"><div class="name">Wren Adair</div><p>Wren writes about clinics.</p></div></article>`,
			"Wren Adair"},
		{"a labelled author block after a long post names its author",
			`<article><header><div><div><h1>Forming a company</h1></div></div></header>` + body + `<div class="post-meta"><p>Author:</p><div class="wp-block-post-author-name">Idris Kane</div></div></article>`,
			"Idris Kane"},
		{"a bare contributor link far down is a guest, not the author",
			`<article><header><div><div><h1>Episode 2: clinics</h1></div></div></header>` + body + `<p><a href="/contributors/ama-osei/">Ama Osei</a> – Founder, Clinic Co</p></article>`,
			""},
		{"a byline near the headline wins over the box",
			`<article><h1>Search tips</h1><div class="byline">By <a href="/author/lea-moss">Lea Moss</a></div>` + body + `<div class="author-box"><div>Wren Adair</div></div></article>`,
			"Lea Moss"},
		{"the site's footer is no author box",
			`<article><h1>Search tips</h1>` + body + `</article><footer><div class="author-box"><div>Wren Adair</div></div></footer>`, ""},
	}
	checkAuthors(t, tests)
}
