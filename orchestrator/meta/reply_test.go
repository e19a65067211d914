package meta

import "testing"

// TestRepliesAreNotTheOriginalPoster covers Q&A and forum pages that mark
// each reply as an item of its own beside the question's: the poster of a
// reply is never the page's author, the question's poster is.
func TestRepliesAreNotTheOriginalPoster(t *testing.T) {
	answer := func(user string) string {
		return `<article class="message" itemscope itemtype="https://schema.org/Answer"><meta itemprop="parentItem" itemscope itemid="/threads/1/">` +
			`<section itemprop="author" itemscope itemtype="https://schema.org/Person"><a href="/members/` + user + `"><span itemprop="name">` + user + `</span></a></section>` +
			`<div itemprop="text">Try the other one.</div></article>`
	}
	tests := []struct {
		name, html, want string
	}{
		{"the question's poster on its element, answers marked as items beside it",
			`<h1>Which GPU?</h1><article class="message" data-author="quiet_fox"><div>Which GPU should I buy?</div></article>` + answer("HelpfulMod") + answer("gpu_guru"),
			"quiet_fox"},
		{"a comment marked as a top-level item does not sign the page",
			`<h1>Garden notes</h1><div itemscope itemtype="http://schema.org/Comment"><span itemprop="author">Pat Lowe</span><p>Nice.</p></div>`, ""},
		{"the question item's own author still signs the page",
			`<div itemscope itemtype="https://schema.org/Question"><h1 itemprop="name">Which GPU?</h1><span itemprop="author" itemscope itemtype="https://schema.org/Person"><span itemprop="name">quiet_fox</span></span></div>` +
				answer("gpu_guru"),
			"quiet_fox"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := value(extractHTML(t, tt.html).Author); got != tt.want {
				t.Errorf("author = %q, want %q", got, tt.want)
			}
		})
	}
}
