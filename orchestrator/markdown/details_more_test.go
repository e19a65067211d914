package markdown

import (
	"strings"
	"testing"
)

func TestConvertLeavesOutRepeatsAndAdvertising(t *testing.T) {
	const gallery = `<figure><img src="/1.jpg" alt="One"><figcaption>The harbour festival draws crowds every summer.</figcaption></figure>`
	for _, tc := range []struct {
		name      string
		html      string
		want      []string
		unwanted  []string
		wantCount map[string]int
	}{
		{
			name: "one caption under every picture of a gallery is written once",
			html: gallery + `<p>The boats arrive at noon.</p>` +
				strings.ReplaceAll(gallery, "/1.jpg", "/2.jpg") + strings.ReplaceAll(gallery, "/1.jpg", "/3.jpg"),
			want:      []string{"https://example.com/1.jpg", "https://example.com/2.jpg", "https://example.com/3.jpg", "The boats arrive at noon."},
			wantCount: map[string]int{"The harbour festival draws crowds every summer.": 1},
		},
		{
			name: "different captions all stay",
			html: `<figure><img src="/1.jpg"><figcaption>The harbour at dawn, before the stalls open.</figcaption></figure>` +
				`<figure><img src="/2.jpg"><figcaption>The harbour at dusk, after the fireworks.</figcaption></figure>`,
			want: []string{"before the stalls open", "after the fireworks"},
		},
		{
			name: "the same attribution under several quotations stays",
			html: `<figure><blockquote><p>Best class I have taken.</p></blockquote><figcaption>— An online review of the course</figcaption></figure>` +
				`<figure><blockquote><p>Calm and clear teaching.</p></blockquote><figcaption>— An online review of the course</figcaption></figure>`,
			wantCount: map[string]int{"An online review of the course": 2},
		},
		{
			name: "a short label may repeat",
			html: `<figure><img src="/1.jpg"><figcaption>Before</figcaption></figure><figure><img src="/2.jpg"><figcaption>After</figcaption></figure>` +
				`<figure><img src="/3.jpg"><figcaption>Before</figcaption></figure>`,
			wantCount: map[string]int{"Before": 2},
		},
		{
			name: "a banner from a host named for ads is left out",
			html: `<p>Story.</p><p><img src="https://ads.network.example/serve/leaderboard.gif" alt="Sale"></p>` +
				`<p><img src="https://ad3.cdn-example.net/b/728x90.jpg" alt="Buy"></p><p><img src="https://adserver.example.org/b?id=3" alt="Win"></p>`,
			want:     []string{"Story."},
			unwanted: []string{"leaderboard", "728x90", "adserver"},
		},
		{
			name: "a banner from a folder named for ads is left out",
			html: `<p>Story.</p><img src="https://www.example.com/ads/300x250/spring.jpg" alt="Spring"><img src="https://www.example.com/pagead/imgad?id=9" alt="Ad">` +
				`<img src="https://news.example.com/media/advertisements/tile.png" alt="Tile">`,
			want:     []string{"Story."},
			unwanted: []string{"spring.jpg", "imgad", "tile.png"},
		},
		{
			name:     "a banner a self-hosted ad server delivers is left out",
			html:     `<p>Story.</p><img src="https://www.example.com/revive/www/delivery/avw.php?zoneid=3&n=a1" alt="Ad">`,
			unwanted: []string{"avw.php"},
		},
		{
			name: "pictures whose names merely contain ad stay",
			html: `<img src="https://cdn.example.com/img/adapter.jpg" alt="Adapter"><img src="https://admin.example.com/upload/road.jpg" alt="Road">` +
				`<img src="https://ads.com/photos/team.jpg" alt="Team"><img src="https://www.example.com/uploads/ad-campaign-review.jpg" alt="Campaign">`,
			want: []string{"adapter.jpg", "road.jpg", "team.jpg", "ad-campaign-review.jpg"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := convertBody(t, tc.html)
			checkHolds(t, md, tc.want, tc.unwanted)
			for s, n := range tc.wantCount {
				if got := strings.Count(md, s); got != n {
					t.Errorf("the Markdown holds %q %d times, want %d:\n%s", s, got, n, md)
				}
			}
		})
	}
}

func TestConvertLeavesOutLinksThatMoveAboutThePage(t *testing.T) {
	for _, tc := range []struct {
		name, html     string
		want, unwanted []string
	}{
		{
			name:     "a skip link leaves",
			html:     `<a href="#main-content">Skip to main content</a><a href="https://example.com/blog/post.html#footer">Skip to footer</a><p>The story.</p>`,
			want:     []string{"The story."},
			unwanted: []string{"Skip to", "#main-content"},
		},
		{
			name:     "jump, go and back links within the page leave",
			html:     `<p><a href="#recipe">Jump to Recipe</a></p><p>The story.</p><p><a href="https://example.com/blog/post.html#top">Back to top</a> <a href="#search">Go to Product Search</a></p>`,
			want:     []string{"The story."},
			unwanted: []string{"Jump to", "Back to top", "Product Search"},
		},
		{
			name:     "a link past one of the page's blocks leaves",
			html:     `<p><a href="#sb-1">Skip Course introduction and Topic navigation block</a></p><p>The story.</p><p><a href="#sb-2">Skip All Languages - Print the guide block</a></p>`,
			want:     []string{"The story."},
			unwanted: []string{"Skip Course", "Skip All", "#sb-"},
		},
		{
			name: "a link of the same words to another page stays",
			html: `<p>The story. <a href="https://example.com/guide#setup">Go to the setup guide</a>.</p>`,
			want: []string{"[Go to the setup guide](https://example.com/guide#setup)"},
		},
		{
			name: "a sentence that says skip to stays",
			html: `<p>Readers in a hurry can <a href="#results">skip to the results</a> of the survey and come back to the method later.</p>`,
			want: []string{"skip to the results"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := convertBody(t, tc.html)
			checkHolds(t, md, tc.want, tc.unwanted)
		})
	}
}

// TestACodeBlocksLanguageLabelIsLeftOut leaves out the line a site prints
// over a code block to name its language, which the fence names, or to
// hold its copy button, and keeps a line before a block that says more,
// or names another language.
func TestACodeBlocksLanguageLabelIsLeftOut(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{`<p>Fetch it:</p><div class="code-example"><div class="example-header"><span class="language-name">js</span></div>` +
			`<pre class="brush: js notranslate"><code>await fetch(url);</code></pre></div>`,
			"Fetch it:\n\n```js\nawait fetch(url);\n```\n"},
		{`<div class="code"><div class="bar">bash <button>Copy</button></div><pre><code class="language-bash">ls -l</code></pre></div>`,
			"```bash\nls -l\n```\n"},
		{`<div class="code"><div class="bar">Python</div><pre><code class="language-python">print(1)</code></pre></div>`,
			"```python\nprint(1)\n```\n"},
		{`<p>Run:</p><p>bash</p><pre><code class="language-python">print(1)</code></pre>`,
			"Run:\n\nbash\n\n```python\nprint(1)\n```\n"},
		{`<p>In a terminal, type this:</p><pre><code class="language-bash">ls -l</code></pre>`,
			"In a terminal, type this:\n\n```bash\nls -l\n```\n"},
		// A forum's box around each snippet names no language, only its
		// button; a line that says more stays.
		{`<div class="codebox"><p>Code: <a href="#" onclick="selectCode(this)">Select all</a></p><pre><code>dtparam=act_led_trigger=none</code></pre></div>`,
			"```\ndtparam=act_led_trigger=none\n```\n"},
		{`<div class="code"><div class="bar"><span>Copy code</span></div><pre><code class="language-go">x := 1</code></pre></div>`,
			"```go\nx := 1\n```\n"},
		{`<p>Code it all:</p><pre><code>make all</code></pre>`,
			"Code it all:\n\n```\nmake all\n```\n"},
	} {
		if got := convertBody(t, tc.body); got != tc.want {
			t.Errorf("%s:\ngot  %q\nwant %q", tc.body, got, tc.want)
		}
	}
}
