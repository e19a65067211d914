package markdown

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
)

func TestLinesOfLinksToTheSitesIndexesGo(t *testing.T) {
	var posts strings.Builder
	for i := range 4 {
		fmt.Fprintf(&posts, `<div class="post"><div class="who"><a href="/u/m%d">member%d</a></div><div class="text"><p>Reply %d: the dough `+
			`rises better in a warm oven with the light on, and a longer proof gives it a deeper taste.</p></div></div>`, i, i, i)
	}
	for _, tc := range []struct {
		name           string
		body           string
		want, unwanted []string
	}{
		{
			name: "a thread's category, its tags and the boards beside similar threads go",
			body: `<p><a href="/c/baking/15">Baking corner</a></p><div><a href="/tag/sourdough">sourdough</a>, <a href="/tags/rye">rye</a></div>` +
				posts.String() + `<ul><li><a href="/threads/crust.9">Why is my crust pale?</a></li><li><a href="/forums/bread-baking.192/">Bread baking</a></li></ul>`,
			want:     []string{"Reply 0: the dough", "Reply 3: the dough", "Why is my crust pale?"},
			unwanted: []string{"Baking corner", "sourdough", "rye", "Bread baking"},
		},
		{
			name: "a sentence with such a link, another site's board and a shop's catalogue link stay",
			body: `<p>Filed under <a href="/category/baking/">Baking</a>.</p><p><a href="https://other.example.org/forums/bread.3/">Bread forum elsewhere</a></p>` +
				`<p><a href="/c/product/1825729-REG/proofing_box.html">Proofing box</a></p>` + posts.String(),
			want: []string{"Filed under [Baking]", "Bread forum elsewhere", "Proofing box", "Reply 0: the dough"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page := `<!doctype html><html><head><title>Slow dough - Example Forum</title>` +
				`<script type="application/ld+json">{"@type":"DiscussionForumPosting","headline":"Slow dough"}</script></head><body>` +
				pageHeader + `<main><h1>Slow dough</h1>` + tc.body + `</main>` + pageFooter + `</body></html>`
			checkHolds(t, article(t, page), tc.want, tc.unwanted)
		})
	}
	t.Run("an index of a forum's boards keeps them: they are the page", func(t *testing.T) {
		var boards strings.Builder
		for i, b := range []string{"Bread baking", "Cakes and pastry", "Preserves", "Fermentation", "Kitchen tools", "Recipes wanted"} {
			fmt.Fprintf(&boards, `<div class="board"><div class="name"><a href="/forums/board-%d/">%s</a></div><p>Threads of the club on it.</p></div>`, i, b)
		}
		page := `<!doctype html><html><head><title>Forums - Example Forum</title></head><body>` + pageHeader +
			`<main><h1>Forums</h1><p>Welcome to the forums of the baking club.</p>` + boards.String() + `</main>` + pageFooter + `</body></html>`
		checkHolds(t, article(t, page), []string{"Bread baking", "Recipes wanted"}, nil)
	})
}

// TestOtherPageOfSiteReadsRelativeAddresses knows a relative link for a
// page of the site: the markup a forum sends in <noscript> is read after
// the page's links were made absolute, and keeps its own.
func TestOtherPageOfSiteReadsRelativeAddresses(t *testing.T) {
	page, _ := url.Parse("https://boards.example.com/t/slow-dough/1012822")
	for href, want := range map[string]bool{
		"/c/baking-corner/15":                      true,
		"https://boards.example.com/tag/sourdough": true,
		"tag/rye":                                          true,
		"https://www.boards.example.com/u/m1":              true,
		"/t/slow-dough/1012822":                            false,
		"https://other.example.org/c/baking/15":            false,
		"//cdn.example.net/c/baking/15":                    false,
		"https://boards.example.com/t/slow-dough/1012822/": false,
	} {
		if got := otherPageOfSite(href, page); got != want {
			t.Errorf("otherPageOfSite(%q) = %v, want %v", href, got, want)
		}
	}
}
