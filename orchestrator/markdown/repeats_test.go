package markdown

import (
	"strings"
	"testing"

	"golang.org/x/net/html"
)

func TestArticleWritesARepeatedSectionOnce(t *testing.T) {
	feature := `<div class="feature"><h3>Solid walnut</h3><p>Every table is cut from one board of walnut grown within fifty miles of the workshop.</p></div>`
	features := `<div class="features">` + feature +
		`<div class="feature"><h3>Hand-cut joints</h3><p>The legs meet the top in mortise and tenon joints, glued and pinned, with no screws.</p></div></div>`
	reassure := `<ul class="perks"><li>Free delivery to your room of choice</li><li>Returns accepted within sixty days of delivery</li></ul>`
	prose := `<p>` + strings.Repeat("The table suits a small room and a reading lamp. ", 5) + `</p>`
	warning := `<div class="callout"><p><strong>Warning</strong></p><p>Do not ship this in production: the quickstart hardcodes your credentials for a faster setup.</p>` +
		`<pre><code>export ACCOUNT_SID=your_account_sid</code></pre></div>`
	for _, tc := range []struct {
		name string
		page string
		want map[string]int // text and how many times it must appear
	}{
		{
			name: "a section laid out twice, for a phone and for a desktop, comes once",
			page: `<!doctype html><html><head><title>Walnut table - Example</title></head><body>` + pageHeader +
				`<main><h1>Walnut side table</h1>` + prose + `<div class="desktop">` + features + `</div>` +
				`<p>Made to order in six weeks.</p><div class="mobile">` + features + `</div>` + reassure + `<p>More words about delivery.</p>` + reassure +
				`</main>` + pageFooter + `</body></html>`,
			want: map[string]int{"one board of walnut": 1, "mortise and tenon": 1, "sixty days": 1, "Made to order": 1},
		},
		{
			name: "items of a list that say the same stay: a tutorial's steps repeat a warning",
			page: `<!doctype html><html><head><title>Send a message - Example</title></head><body>` + pageHeader +
				`<main><h1>Send a message</h1>` + prose + `<ol><li><p>Set your credentials.</p>` + warning + `</li>` +
				`<li><p>Send the message from the command line.</p>` + warning + `</li></ol></main>` + pageFooter + `</body></html>`,
			want: map[string]int{"hardcodes your credentials": 2, "Set your credentials": 1},
		},
		{
			name: "a snippet each example of a tutorial shows again stays",
			page: `<!doctype html><html><head><title>Tables - Example</title></head><body>` + pageHeader +
				`<main><h1>Styling tables</h1>` + prose + `<p>First, the borders:</p>` +
				`<div class="code-example"><pre><code class="language-css">table {\n  border: 2px solid rgb(140 140 140);\n}\nth, td {\n  border: 1px solid rgb(160 160 160);\n  padding: 8px 10px;\n}</code></pre></div>` +
				`<p>Then the same table with striped rows:</p>` +
				`<div class="code-example"><pre><code class="language-css">table {\n  border: 2px solid rgb(140 140 140);\n}\nth, td {\n  border: 1px solid rgb(160 160 160);\n  padding: 8px 10px;\n}</code></pre></div>` +
				`</main>` + pageFooter + `</body></html>`,
			want: map[string]int{"border: 2px solid": 2, "striped rows": 1},
		},
		{
			name: "a paragraph said twice and a wrapper around one block stay",
			page: `<!doctype html><html><head><title>Walnut table - Example</title></head><body>` + pageHeader +
				`<main><h1>Walnut side table</h1><div class="wrap"><div class="inner">` + prose + `</div></div>` +
				`<p>Oil it once a year, and wipe it with a damp cloth after every meal.</p>` + prose +
				`</main>` + pageFooter + `</body></html>`,
			want: map[string]int{"reading lamp": 10, "damp cloth": 1},
		},
		{
			name: "a heading then its words as a paragraph stay",
			page: `<!doctype html><html><head><title>Tables - Example</title></head><body>` + pageHeader +
				`<main><h1>Our tables</h1>` + prose +
				`<h2>Made by hand in the workshop</h2><p>Made by hand in the workshop</p>` + prose +
				`</main>` + pageFooter + `</body></html>`,
			want: map[string]int{"Made by hand in the workshop": 2},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := article(t, tc.page)
			for w, n := range tc.want {
				if got := strings.Count(md, w); got != n {
					t.Errorf("the Markdown holds %q %d times, want %d:\n%s", w, got, n, md)
				}
			}
		})
	}
}

// TestAThreadsRepliesDoNotRepeatTheQuotedPost keeps the rule for lists out
// of threads: a reply drawn as a list item that quotes an earlier post
// word for word still loses the copy.
func TestAThreadsRepliesDoNotRepeatTheQuotedPost(t *testing.T) {
	post := `<div class="message"><p>What do you look at first when you buy web hosting: the location, the support or the price?</p></div>`
	page := `<ol class="posts"><li>` + post + `</li><li><blockquote>` + post + `</blockquote><p>The support, every time.</p></li></ol>`
	for _, tc := range []struct {
		thread bool
		want   int
	}{{true, 1}, {false, 2}} {
		root := parseBody(t, page)
		dropRepeats(root, tc.thread)
		if got := strings.Count(flatText(root), "buy web hosting"); got != tc.want {
			t.Errorf("thread %v: the post is there %d times, want %d", tc.thread, got, tc.want)
		}
	}
}

// TestDropAdjacentRepeatsReadsOnlyHeadingsSideBySide removes a heading
// that repeats the one just before it, and nothing else.
func TestDropAdjacentRepeatsReadsOnlyHeadingsSideBySide(t *testing.T) {
	for _, tc := range []struct {
		name, html, want string
	}{
		{"the same heading twice", `<h3>Oak dining table</h3><h3>Oak dining table</h3><p>$980</p>`, "Oak dining table|$980"},
		{"across boxes, one linked", `<div><a href="/t"><h3>Oak dining table</h3></a></div><div><h3><a href="/t">Oak dining table</a></h3></div>`, "Oak dining table"},
		{"a one-word label twice", `<h4>Pros</h4><h4>Pros</h4>`, "Pros|Pros"},
		{"words between", `<h3>Oak dining table</h3><span>New</span><h3>Oak dining table</h3>`, "Oak dining table|New|Oak dining table"},
		{"a paragraph twice", `<p>Made by hand in the workshop</p><p>Made by hand in the workshop</p>`, "Made by hand in the workshop|Made by hand in the workshop"},
		{"a table between", `<h3>Oak dining table</h3><table><tr><td>Oak</td></tr></table><h3>Oak dining table</h3>`, "Oak dining table|Oak|Oak dining table"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := parseBody(t, tc.html)
			dropAdjacentRepeats(root)
			var got []string
			walk(root, func(n *html.Node) bool {
				if n.Type == html.TextNode && strings.TrimSpace(n.Data) != "" {
					got = append(got, strings.TrimSpace(n.Data))
				}
				return true
			})
			if strings.Join(got, "|") != tc.want {
				t.Errorf("left %q, want %q", strings.Join(got, "|"), tc.want)
			}
		})
	}
}
