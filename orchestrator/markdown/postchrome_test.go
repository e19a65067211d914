package markdown

import (
	"fmt"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// templatedThread is a thread whose posts are drawn by one template: a
// member's card with a rank and labelled figures, a date, controls, and
// the text; the posts alternate their class, as many forums do.
func templatedThread(posts int, headed bool) string {
	members := []string{"ann", "bob", "cleo", "dev", "eli", "fay"}
	ranks := []string{"Senior Member", "Member", "Senior Member", "Newcomer", "Member", "Senior Member"}
	var sb strings.Builder
	sb.WriteString(`<!doctype html><html><head><title>Tomato leaves curling - Garden Forum</title>` +
		`<script type="application/ld+json">{"@type":"DiscussionForumPosting","headline":"Tomato leaves curling"}</script>` +
		`</head><body>` + pageHeader + `<main><h1>Tomato leaves curling</h1>`)
	for i := range posts {
		m := members[i%len(members)]
		fmt.Fprintf(&sb, `<div class="post row%d"><div class="profile"><a href="/u/%s">%s</a><div class="rank">%s</div>`+
			`<div class="stat"><strong>Posts:</strong> %d</div><div class="stat"><strong>Joined:</strong> Mar %d</div></div>`+
			`<div class="body">`, i%2+1, m, m, ranks[i%len(ranks)], 100+i*37, 2010+i)
		if headed {
			fmt.Fprintf(&sb, `<h3><a href="#p%d">Re: Tomato leaves curling</a></h3>`, i)
		}
		fmt.Fprintf(&sb, `<div class="date">March %d, 2024, %d:15pm</div>`+
			`<div class="content"><p>Message %d: curling from the top usually means the plant took too much sun and too little water `+
			`in one afternoon; water deeply at the root in the morning and give it shade cloth for a week.</p></div>`+
			`<ul class="controls"><li><a href="/q/%d">Reply with quote</a></li><li><a href="/r/%d">Report</a></li>`+
			`<li><a href="/l/%d">Like</a></li></ul></div></div>`, i+1, i+1, i, i, i, i)
	}
	sb.WriteString(`</main>` + pageFooter + `</body></html>`)
	return sb.String()
}

func TestThePostsTemplateFurnitureGoes(t *testing.T) {
	for _, tc := range []struct {
		name           string
		page           string
		want, unwanted []string
	}{
		{"controls, ranks and labelled figures repeated in every post go; names, dates and texts stay",
			templatedThread(6, false),
			[]string{"Message 0: curling", "Message 5: curling", "March 1, 2024", "March 6, 2024", "ann", "fay"},
			[]string{"Reply with quote", "Report", "Posts:", "Joined:", "Senior Member"}},
		{"posts headed by a title on a declared thread lose their furniture too",
			templatedThread(6, true),
			[]string{"Message 0: curling", "Message 5: curling", "March 1, 2024"},
			[]string{"Reply with quote", "Posts:", "Joined:"}},
		{"two posts are no template: their controls stay, and only the members' cards go",
			templatedThread(2, false),
			[]string{"Message 0: curling", "Message 1: curling", "[Report](", "ann", "March 1, 2024"},
			[]string{"Senior Member", "Joined:"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := article(t, tc.page)
			checkHolds(t, md, tc.want, tc.unwanted)
		})
	}
}

func TestShapeText(t *testing.T) {
	for _, tc := range []struct{ html, want string }{
		{`<div>Posts: 65,703</div>`, "Posts: 0,0"},
		{`<div>#12</div>`, "#0"},
		{`<div><b>Joined:</b> Feb 2019</div>`, "Joined: Feb 0"},
		{`<div>carver12</div>`, "carver12"},
		{`<div>February 20, 2026, 4:55pm</div>`, ""},
		{`<div>11-29-2024, 09:03 AM</div>`, ""},
		{`<div>Joined: 11-29-2024</div>`, "Joined: 0-0-0"},
		{`<div>2021-04-08T04:06:17Z</div>`, "2021-04-08T04:06:17Z"},
		{`<div>Reply with quote</div>`, "Reply with quote"},
		{`<div>Click to expand...</div>`, "Click to expand..."},
		{`<div>It took me 24 minutes the first time.</div>`, ""},
		{`<div> | </div>`, ""},
	} {
		doc := parse(t, `<html><body>`+tc.html+`</body></html>`)
		div := findFirst(doc.Nodes[0], func(n *html.Node) bool { return n.DataAtom == atom.Div })
		if got := shapeText(div); got != tc.want {
			t.Errorf("shapeText(%s) = %q, want %q", tc.html, got, tc.want)
		}
	}
}

func TestSeriesClass(t *testing.T) {
	for in, want := range map[string]string{"post has-profile bg2": "post", "post bg1": "post", "row12 odd": "row", "": "", "  message  js-post ": "message"} {
		if got := seriesClass(in); got != want {
			t.Errorf("seriesClass(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAProductsVariantsKeepTheirLabels(t *testing.T) {
	var sb strings.Builder
	sb.WriteString(`<!doctype html><html><head><title>Linen sheet set - Example Shop</title>` +
		`<script type="application/ld+json">[{"@type":"Product","name":"Linen sheet set","offers":{"@type":"Offer","price":"120"}},` +
		`{"@type":"QAPage","mainEntity":{"@type":"Question","name":"Does it shrink?"}}]</script></head><body>` + pageHeader +
		`<main><h1>Linen sheet set</h1><p class="price">$120</p>`)
	for i, weave := range []string{"Stonewashed", "Percale", "Sateen", "Waffle"} {
		fmt.Fprintf(&sb, `<div class="variant v%d"><div class="name">%s</div><div class="spec"><span>Fabric Content</span> <span>100%% linen</span></div>`+
			`<div class="spec"><span>Ideal for</span> <span>warm sleepers</span></div><p>The %s weave is woven from long flax fibres, `+
			`washed twice before it leaves the mill so that it is soft from the first night and shrinks no further.</p></div>`, i, weave, weave)
	}
	sb.WriteString(`<button>Add to cart</button></main>` + pageFooter + `</body></html>`)
	md := article(t, sb.String())
	for _, w := range []string{"Fabric Content", "Ideal for", "Percale weave"} {
		if !strings.Contains(md, w) {
			t.Errorf("the answer lost %q:\n%s", w, md)
		}
	}
}

func TestAFieldOfTheMembersCardGoesWithItsValue(t *testing.T) {
	nations := []string{"Minoa", "Arden", "Kessel", "Lorn", "Vey"}
	var sb strings.Builder
	sb.WriteString(`<!doctype html><html><head><title>Football season - Example Forum</title>` +
		`<script type="application/ld+json">{"@type":"DiscussionForumPosting","headline":"Football season"}</script>` +
		`</head><body>` + pageHeader + `<main><h1>Football season</h1>`)
	for i, n := range nations {
		fmt.Fprintf(&sb, `<div class="post"><dl class="card"><dt><a href="/u/%d">member%d</a></dt>`+
			`<dd><strong>Nation:</strong> %s</dd><dd><strong>Founded:</strong> Antiquity %d</dd></dl>`+
			`<div class="body"><p>Message %d: the league table moved again after the weekend, and the cup draw is on Monday.</p>`, i, i, n, i, i)
		if i == 2 {
			sb.WriteString(`<p><strong>Update:</strong> the draw moved to Tuesday.</p>`)
		}
		sb.WriteString(`</div></div>`)
	}
	sb.WriteString(`</main>` + pageFooter + `</body></html>`)
	md := article(t, sb.String())
	checkHolds(t, md, []string{"Message 0: the league", "Message 4: the league", "member3", "**Update:** the draw moved"},
		[]string{"Nation:", "Minoa", "Kessel", "Founded:", "Antiquity"})
}

// TestTheListOfWhoReactedLeavesAPost leaves out the link under a post to
// the members who reacted to it, and keeps a link to a page about
// reactions inside a sentence.
func TestTheListOfWhoReactedLeavesAPost(t *testing.T) {
	page := cardThread(3, true, func(i int) string { return `<a href="/members/x.1/">x</a>` })
	page = strings.Replace(page, `</div></article>`,
		`</div><div class="reactionsBar"><span class="sr-only">Reactions:</span> <a href="/posts/31250288/reactions"><bdi>Brian33</bdi>, <bdi>unixfool</bdi> and 3 others</a></div></article>`, 2)
	page = strings.Replace(page, `<p>Reply 2:`, `<p>See <a href="/help/reactions">how reactions work</a> before you vote.</p><p>Reply 2:`, 1)
	checkHolds(t, article(t, page), []string{"Reply 0: take", "Reply 1: take", "[how reactions work]("}, []string{"Brian33", "unixfool", "3 others"})
}
