package markdown

import (
	"fmt"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// undeclaredThread is a discussion on a page that declares itself an
// article (as many forums' og:type does), each post a wrapper around the
// author's line and the text, the replies in a block named as comments.
func undeclaredThread(posts int) string {
	var sb strings.Builder
	sb.WriteString(`<!doctype html><html><head><title>Pruning an old apple tree - Garden Forum</title>
<meta property="og:type" content="article"></head><body>` + pageHeader + `<main><p>5 replies</p><div class="comments-list">`)
	for i := range posts {
		fmt.Fprintf(&sb, `<div id="post%d"><div class="post-box"><div class="byline"><a href="/u/%d">gardener%d</a> Member</div>`+
			`<div class="post-body"><p>Post number %d: cut out the dead and crossing wood first, then no more than a quarter `+
			`of the living branches in one winter, or the tree answers with a thicket of water shoots.</p></div></div></div>`, i, i, i, i)
	}
	sb.WriteString(`</div></main>` + pageFooter + `</body></html>`)
	return sb.String()
}

// storyThenComments is a story that declares itself an article, with
// its readers' comments after it in the same shape as a thread's posts.
func storyThenComments() string {
	var sb strings.Builder
	sb.WriteString(`<!doctype html><html><head><title>Orchard replanted</title>
<meta property="og:type" content="article"></head><body>` + pageHeader + `<main><article><h1>Orchard replanted</h1>
<p>Volunteers replanted the village orchard on Saturday with forty young trees of old local varieties, grafted last spring
from the last survivors of the orchard that stood on the same slope a century ago and was cleared for grazing after the war.</p>
<p>The parish council paid for the stakes and guards, and the school will look after two rows as part of its science lessons,
picking the first fruit in three or four years if the deer keep out and the summers are not too dry for the young roots.</p>
</article><div class="comments-list">`)
	for i := range 4 {
		fmt.Fprintf(&sb, `<div id="c%d"><div class="byline"><a href="/u/%d">reader%d</a></div><div class="comment-body"><p>Comment %d: `+
			`lovely to see the old varieties back, my grandmother used to talk about the russets from that slope.</p></div></div>`, i, i, i, i)
	}
	sb.WriteString(`</div></main>` + pageFooter + `</body></html>`)
	return sb.String()
}

func TestAThreadIsKnownByItsShapeWhateverItDeclares(t *testing.T) {
	for _, tc := range []struct {
		name     string
		page     string
		want     []string
		unwanted []string
	}{
		{"a thread that calls itself an article keeps every post, in a block named as comments",
			undeclaredThread(5), []string{"Post number 0", "Post number 2", "Post number 4"}, []string{"Products menu"}},
		{"a story with comments of the same shape keeps the story",
			storyThenComments(), []string{"forty young trees", "first fruit"}, []string{"Products menu"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := article(t, tc.page)
			checkHolds(t, md, tc.want, tc.unwanted)
		})
	}
}

func TestThreadShape(t *testing.T) {
	post := func(i int) string {
		return fmt.Sprintf(`<div class="post"><div class="author"><a href="/u/%d">member%d</a></div><div class="text"><p>Reply %d: the `+
			`hinge squeaks less after a drop of oil, but a worn pin needs replacing, and they cost very little at any shop.</p></div></div>`, i, i, i)
	}
	posts := post(0) + post(1) + post(2)
	// comment is a reply in a tree, holding its own replies.
	comment := func(i int, replies string) string {
		return fmt.Sprintf(`<li class="comment"><div class="byline"><a href="/u/%d">member%d</a> 2 hours ago</div><div class="text"><p>Comment %d: `+
			`the hinge squeaks less after a drop of oil, but a worn pin needs replacing, and they cost very little.</p></div>`+
			`<ol class="children">%s</ol></li>`, i, i, i, replies)
	}
	tree := `<ol class="comments">` + comment(0, comment(1, comment(2, ""))+comment(3, "")) + comment(4, comment(5, "")) + `</ol>`
	grid := func(i int, inner string) string {
		return fmt.Sprintf(`<div class="row"><div class="col"><h3>Section %d</h3><p>A page laid out in a grid, a paragraph long enough `+
			`to count as prose of its own, like any other.</p></div><div class="col">%s</div></div>`, i, inner)
	}
	story := func(sentences int) string {
		return `<p>` + strings.Repeat("A reader shares a link about hinges, and what the makers changed. ", sentences) + `</p>`
	}
	for _, tc := range []struct {
		name, region string
		want         bool
	}{
		{"three posts under a title", `<h1>Squeaky hinge</h1>` + posts, true},
		{"two posts are not a series", `<h1>Squeaky hinge</h1>` + post(0) + post(1), false},
		{"posts after a long text are its comments",
			`<p>` + strings.Repeat("A door hangs on its hinges, and the hinges need care like any moving part of a house. ", 4) + `</p>` + posts, false},
		{"paragraphs are not posts", strings.Repeat(`<p>A paragraph of an article that runs on long enough to count as prose of its own, like any other.</p>`, 5), false},
		{"excerpts headed by their titles are a listing",
			strings.Repeat(`<div class="item"><h2><a href="/a">A story</a></h2><p>An excerpt of the story that runs on long enough to count as prose of its own.</p></div>`, 5), false},
		{"posts headed by replies' titles are a thread",
			`<h1>Squeaky hinge</h1>` + `<div class="post"><h3>Squeaky hinge</h3><p>Reply 0: the hinge squeaks less after a drop of oil, but a worn pin needs replacing soon.</p></div>` +
				strings.Repeat(`<div class="post"><h3>Re: Squeaky hinge</h3><p>A reply: the hinge squeaks less after a drop of oil, but a worn pin needs replacing soon.</p></div>`, 4), true},
		{"excerpts headed by titles that are not replies' are still a listing",
			`<div class="item"><h2>Re: a story</h2><p>An excerpt of the story that runs on long enough to count as prose of its own.</p></div>` +
				strings.Repeat(`<div class="item"><h2><a href="/a">A story</a></h2><p>An excerpt of the story that runs on long enough to count as prose of its own.</p></div>`, 4), false},
		{"replies after an opening post that the thread's title heads, a rule between each two, are a thread",
			`<p>Welcome to the forum: read the rules before you post, be kind to newcomers, and search before asking.</p>` +
				`<div class="post"><h2>Squeaky hinge</h2><div class="author"><a href="/u/9">member9</a></div><div class="text"><p>Opening ` +
				`post: my back door squeaks every time it opens, and oil helps for a day at most. The hinges are brass and about ` +
				`thirty years old. What should I try?</p></div></div><hr>` +
				post(0) + `<div>&nbsp;</div>` + post(1) + `<hr>` + post(2), true},
		{"an opening post that is mostly a list of sources opens the thread all the same",
			`<p>Welcome to the forum: read the rules before you post, be kind to newcomers, and search before asking.</p>` +
				`<div class="post"><h2>Hinge sources</h2><div class="author"><a href="/u/9">member9</a></div><div class="text"><p>Opening post: ` +
				`the makers' pages for old brass hinges, for anyone restoring a door like mine.</p><ul>` +
				strings.Repeat(`<li><a href="https://hinges.example.org/catalogue/brass/old-patterns">https://hinges.example.org/catalogue/brass/old-patterns</a></li>`, 4) +
				`</ul></div></div><hr>` + posts, true},
		{"replies nested inside the posts they answer are a thread, however few stand side by side", `<h1>Squeaky hinge</h1>` + tree, true},
		{"a few lines sharing a link, then a tree of replies many times longer, are a thread", story(2) + tree + tree + tree, true},
		{"a story of its own with a tree of comments below is not, however long the tree", story(25) + strings.Repeat(tree, 22), false},
		{"nor is a short story whose comments do not outweigh it many times", story(15) + tree + tree + tree, false},
		{"a layout's grid nests its rows, named for the layout", grid(0, grid(1, grid(2, "")+grid(3, ""))) + grid(4, grid(5, "")), false},
		{"posts whose headings are empty permalinks are a thread",
			`<h1>Squeaky hinge</h1>` + strings.Repeat(`<div class="post"><h3><a href="#p1"></a></h3><div class="author"><a href="/u/1">member</a></div>`+
				`<div class="text"><p>A reply: the hinge squeaks less after a drop of oil, but a worn pin needs replacing soon.</p></div></div>`, 4), true},
		{"cards that are mostly links are a listing",
			strings.Repeat(`<div class="card"><a href="/a">A product with a long name that the card links to, in full</a><p>Short tagline.</p></div>`, 5), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := parse(t, `<html><body><main>`+tc.region+`</main></body></html>`)
			region := findFirst(doc.Nodes[0], func(n *html.Node) bool { return n.DataAtom == atom.Main })
			if got := threadShape(region); got != tc.want {
				t.Errorf("threadShape = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestPostStatTellsAMembersFiguresFromWhatTheyWrote(t *testing.T) {
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"1,204", true},
		{"Messages 1,204", true},
		{"Posts: 75", true},
		{"Reaction score 10", true},
		{"#12", true},
		{"4.7K", true},
		{"12 gold badges 40 silver badges", false},
		{"Jun 29, 2016", false},
		{"Joined Jun 29, 2016", false},
		{"11-29-2024, 09:03 AM #1", false},
		{"29.11.2024 #3", false},
		{"I rode 24 miles today", false},
		{"Member", false},
		{"", false},
	} {
		t.Run(tc.text, func(t *testing.T) {
			if got := postStat(tc.text); got != tc.want {
				t.Errorf("postStat(%q) = %v, want %v", tc.text, got, tc.want)
			}
		})
	}
}

func TestAThreadLosesItsMembersFiguresAndKeepsItsPosts(t *testing.T) {
	var sb strings.Builder
	sb.WriteString(`<!doctype html><html><head><title>Sharpening a chisel - Workshop Forum</title>
<script type="application/ld+json">{"@context":"https://schema.org","@type":"DiscussionForumPosting","headline":"Sharpening a chisel"}</script>
</head><body>` + pageHeader + `<main>`)
	for i := range 3 {
		fmt.Fprintf(&sb, `<article class="message"><div class="user"><a href="/u/%d">carver%d</a><dl><dt>Messages</dt><dd>%d,204</dd></dl>`+
			`<dl><dt>Reaction score</dt><dd>9%d</dd></dl><div class="joined">Joined Mar 3, 2019</div></div>`+
			`<div class="body"><time>May 2, 2024</time><p>Message %d: flatten the back on a coarse stone first, then hone the bevel at `+
			`thirty degrees until a burr forms along the whole edge, and strop it off on leather.</p><p>It took me 24 minutes the first time.</p></div></article>`,
			i, i, i+1, i, i)
	}
	sb.WriteString(`</main>` + pageFooter + `</body></html>`)
	md := article(t, sb.String())
	for _, w := range []string{"Message 0: flatten", "Message 2: flatten", "May 2, 2024", "24 minutes", "carver1"} {
		if !strings.Contains(md, w) {
			t.Errorf("the answer lost %q:\n%s", w, md)
		}
	}
	for _, u := range []string{"1,204", "Reaction score", "Messages", "Joined Mar 3, 2019"} {
		if strings.Contains(md, u) {
			t.Errorf("the answer holds the member's figure %q:\n%s", u, md)
		}
	}
}

func TestDeclaresThread(t *testing.T) {
	for _, tc := range []struct {
		name, head, body string
		want             bool
	}{
		{"a QAPage in JSON-LD", `<script type="application/ld+json">{"@type":"QAPage","mainEntity":{"@type":"Question"}}</script>`, "", true},
		{"a forum posting inside a graph", `<script type="application/ld+json">{"@graph":[{"@type":"WebPage"},{"@type":"DiscussionForumPosting"}]}</script>`, "", true},
		{"a Question item of microdata", "", `<div itemscope itemtype="https://schema.org/Question">Why?</div>`, true},
		{"an article with comments", `<script type="application/ld+json">{"@type":"NewsArticle","comment":[{"@type":"Comment"}]}</script>`, "", false},
		{"the questions of an FAQ", `<script type="application/ld+json">{"@type":"FAQPage","mainEntity":[{"@type":"Question"}]}</script>`, "", false},
		{"a Question item of microdata inside an FAQ item", "",
			`<div itemscope itemtype="https://schema.org/FAQPage"><div itemscope itemtype="https://schema.org/Question">Why?</div></div>`, false},
		{"nothing", "", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := parse(t, `<html><head>`+tc.head+`</head><body>`+tc.body+`<p>text</p></body></html>`)
			if got := declaresThread(doc.Nodes[0]); got != tc.want {
				t.Errorf("declaresThread = %v, want %v", got, tc.want)
			}
		})
	}
}
