package meta

import (
	"strings"
	"testing"
)

// TestNoscriptViewAuthors covers pages that draw themselves with scripts
// and serve their posts a second time inside <noscript>: the thread's
// starter is read off that copy's microdata, not a reply's poster.
func TestNoscriptViewAuthors(t *testing.T) {
	thread := `<div itemscope itemtype="http://schema.org/DiscussionForumPosting"><meta itemprop="headline" content="Which lens?">` +
		`<div id="post_1"><span itemprop="author" itemscope itemtype="http://schema.org/Person"><a itemprop="url" href="/u/kestrel_9">` +
		`<span itemprop="name">kestrel_9</span></a></span><div itemprop="text"><p>Which lens for birds?</p></div></div>` +
		`<div id="post_2" itemprop="comment" itemscope itemtype="http://schema.org/Comment"><span itemprop="author" itemscope itemtype="http://schema.org/Person">` +
		`<span itemprop="name">owl_watcher</span></span><div itemprop="text"><p>A long one.</p></div></div></div>`
	deep := strings.Repeat("<div>", 1000) + `<span itemprop="author">Deep Name</span>` + strings.Repeat("</div>", 1000)
	tests := []authorCase{
		{"the starter of a thread served inside noscript is its author",
			`<div id="app"></div><noscript>` + thread + `</noscript>`, "kestrel_9"},
		{"a reply's poster alone is no author",
			`<div id="app"></div><noscript><div itemscope itemtype="http://schema.org/DiscussionForumPosting"><div itemprop="comment" itemscope itemtype="http://schema.org/Comment">` +
				`<span itemprop="author" itemscope itemtype="http://schema.org/Person"><span itemprop="name">owl_watcher</span></span></div></div></noscript>`, ""},
		{"the page's own markup wins over its noscript copy",
			`<h1>Which lens?</h1><div class="byline">By <a href="/author/ruth-ames">Ruth Ames</a></div><noscript>` + thread + `</noscript>`, "Ruth Ames"},
		{"a noscript block without microdata names nobody",
			`<div id="app"></div><noscript><p>Posted by Jane Doe</p><img src="/pixel.gif"></noscript>`, ""},
		{"a noscript copy nested too deep to parse fails nothing",
			`<div id="app"></div><noscript>` + deep + `</noscript>`, ""},
	}
	checkAuthors(t, tests)
}
