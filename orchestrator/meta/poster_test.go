package meta

import "testing"

// TestDiscussionAuthor covers the pages whose author is a user name: forum
// threads and Q&A pages, where the author is the original poster.
func TestDiscussionAuthor(t *testing.T) {
	tests := []struct {
		name, html, want string
	}{
		{"the poster named on the first post's element is the author",
			`<h1>Best beginner telescope?</h1><div class="thread"><article class="message" data-author="stargazer_42"><p>Which one?</p></article>` +
				`<article class="message" data-author="orbit9"><p>This one.</p></article></div>`,
			"stargazer_42"},
		{"an author attribute on a custom element names the poster",
			`<post-view author="EuroStepJam" post-title="Enameled pans"><h1>Enameled pans</h1></post-view>`, "EuroStepJam"},
		{"a quoted post's poster is not the thread's",
			`<h1>A thread</h1><blockquote data-username="quoted_one">Earlier words</blockquote><div class="post" data-author="first_poster">Mine</div>`,
			"first_poster"},
		{"the name labelled thread starter is the author",
			`<h1>Electric pickup noise</h1><ul class="thread-info"><li><span>Thread starter</span> <a href="/members/paulb203.5/">paulb203</a></li></ul>`,
			"paulb203"},
		{"the name a summary line says started the thread is the author",
			`<h1>Hosting advice</h1><p id="pageDescription">Discussion in 'Hosting' started by <a href="/members/pelex.13/">pelex</a>, Jun 1, 2024</p>`,
			"pelex"},
		{"the first of several signed posts gives the poster",
			`<h1>Turning off the LEDs</h1><div class="post"><a class="username" href="/memberlist.php?u=1">b.scherer</a><p>How?</p></div>` +
				`<div class="post"><a class="username" href="/memberlist.php?u=2">helper7</a><p>Like this.</p></div>`,
			"b.scherer"},
		{"one signed block alone is no thread",
			`<h1>A page</h1><span class="username">visitor12</span>`, ""},
		{"a microdata author of a forum post may be a user name",
			`<div itemscope itemtype="https://schema.org/DiscussionForumPosting"><h1 itemprop="headline">Windy maps offline?</h1>` +
				`<div itemprop="author" itemscope itemtype="https://schema.org/Person"><meta itemprop="name" content="luizjr4"></div></div>`,
			"luizjr4"},
		{"the JSON-LD author of a forum post may be a user name",
			`<script type="application/ld+json">{"@type":"DiscussionForumPosting","headline":"Pickup noise","author":{"@type":"Person","name":"paulb203"}}</script>`,
			"paulb203"},
		{"an answer's microdata author is not the question's",
			`<div itemscope itemtype="https://schema.org/Question"><h1 itemprop="name">Why is my bread flat?</h1>` +
				`<div itemprop="suggestedAnswer" itemscope itemtype="https://schema.org/Answer"><span itemprop="author" itemscope itemtype="https://schema.org/Person"><span itemprop="name">helper_9</span></span></div>` +
				`<span itemprop="author" itemscope itemtype="https://schema.org/Person"><span itemprop="name">baker_42</span></span></div>`,
			"baker_42"},
		{"a news article's handle is still no author",
			`<div itemscope itemtype="https://schema.org/NewsArticle"><h1 itemprop="headline">A story</h1>` +
				`<div itemprop="author" itemscope itemtype="https://schema.org/Person"><meta itemprop="name" content="jdoe42"></div></div>`,
			""},
		{"an author given as a profile URL is the text of the page's link to it",
			`<meta property="article:author" content="https://news.example.com/~scvalex"><h1>A story</h1><div class="byline">via <a href="/~scvalex">scvalex</a></div>`,
			"scvalex"},
		{"a profile elsewhere is not named after its network",
			`<meta property="article:author" content="https://www.facebook.com/somebody"><h1>A story</h1><a href="https://www.facebook.com/somebody">Facebook</a>`,
			""},
		{"a link to a people page on the site is a byline",
			`<h1>A story</h1><div class="meta">By <a href="/people/jane-doe">Jane Doe</a></div>`, "Jane Doe"},
		{"a link to a person's page on another site is a reference, not a byline",
			`<h1>A story</h1><p>See <a href="https://history.example.org/people/michael-savage">Michael Joseph Savage</a>.</p>`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := value(extractHTML(t, tt.html).Author); got != tt.want {
				t.Errorf("author = %q, want %q", got, tt.want)
			}
		})
	}
}
