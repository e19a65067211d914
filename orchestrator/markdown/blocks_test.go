package markdown

import (
	"strings"
	"testing"

	"golang.org/x/net/html"
)

func parseBody(t *testing.T, src string) *html.Node {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func blockTexts(seg *segmentation) []string {
	var out []string
	for _, b := range seg.blocks {
		out = append(out, strings.Join(strings.Fields(b.text.String()), " "))
	}
	return out
}

func TestSegmentSplitsAPageIntoTheBlocksAReaderSees(t *testing.T) {
	for _, tc := range []struct {
		name, html string
		want       []string
	}{
		{"paragraphs and a heading are a block each",
			`<h2>Care</h2><p>Water weekly.</p><p>Feed in spring.</p>`, []string{"Care", "Water weekly.", "Feed in spring."}},
		{"inline markup belongs to the paragraph it sits in",
			`<p>Use <b>rain</b> water, <a href="/why">not tap</a>.</p>`, []string{"Use rain water, not tap."}},
		{"a div's own text is one block and the paragraph in it another",
			`<div>Posted by Ann <p>The answer is two.</p> yesterday</div>`, []string{"Posted by Ann yesterday", "The answer is two."}},
		{"list items and table cells are blocks",
			`<ul><li>Salt</li><li>Flour</li></ul><table><tr><td>Weight</td><td>2 kg</td></tr></table>`,
			[]string{"Salt", "Flour", "Weight", "2 kg"}},
		{"code keeps its lines in one block, whatever markup colours it",
			`<pre><div class="line">x := 1</div><div class="line">y := 2</div></pre>`, []string{"x := 1y := 2"}},
		{"scripts, styles and templates are not read",
			`<p>Shown</p><script>var hidden = 1</script><style>p{}</style><template><p>Later</p></template>`, []string{"Shown"}},
		{"white space alone makes no block",
			`<div> <span> </span> </div><p>Text</p>`, []string{"Text"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := parseBody(t, `<html><body>`+tc.html+`</body></html>`)
			got := blockTexts(segment(findFirst(doc, func(n *html.Node) bool { return n.Data == "body" })))
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("blocks = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestSegmentDescribesWhereABlockSits(t *testing.T) {
	doc := parseBody(t, `<html><body><nav class="menu"><ul><li><a href="/">Home</a></li></ul></nav>
<main><article><p>First paragraph of the story, long enough to say something.</p></article></main>
<div class="cards"><div class="card">One</div><div class="card">Two</div><div class="card">Three</div></div>
<footer><p>Copyright 2026, all rights reserved.</p></footer></body></html>`)
	seg := segment(findFirst(doc, func(n *html.Node) bool { return n.Data == "body" }))
	feats := seg.features(pageContext{rules: textSet{}, region: textSet{}, kept: textSet{}})
	at := func(name string) int {
		for i, n := range blockFeatureNames {
			if n == name {
				return i
			}
		}
		t.Fatalf("no feature %q", name)
		return -1
	}
	for _, tc := range []struct {
		name    string
		block   int
		feature string
		want    func(float32) bool
	}{
		{"a menu link is inside a nav", 0, "anc_nav", func(v float32) bool { return v > 0 }},
		{"a menu link is all link", 0, "link_density", func(v float32) bool { return v == 1 }},
		{"a menu link is marked by its nav's class word", 0, "hint_nav", func(v float32) bool { return v > 0 }},
		{"a story's paragraph is inside the main element", 1, "anc_main", func(v float32) bool { return v > 0 }},
		{"a story's paragraph is not inside a nav", 1, "anc_nav", func(v float32) bool { return v == 0 }},
		{"a story's paragraph is a p", 1, "tag_p", func(v float32) bool { return v == 1 }},
		{"a card among three of the same shape is in a series", 3, "repeat_near", func(v float32) bool { return v == 1 }},
		{"a story's paragraph is in no series", 1, "repeat_near", func(v float32) bool { return v == 0 }},
		{"the footer's line is inside a footer", 5, "anc_footer", func(v float32) bool { return v > 0 }},
		{"the footer's line speaks of furniture", 5, "says_furniture", func(v float32) bool { return v == 1 }},
		{"the first block has no block before it", 0, "prev_log_words", func(v float32) bool { return v == -1 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if len(feats[tc.block]) != len(blockFeatureNames) {
				t.Fatalf("%d features, %d names", len(feats[tc.block]), len(blockFeatureNames))
			}
			if v := feats[tc.block][at(tc.feature)]; !tc.want(v) {
				t.Errorf("block %q: %s = %v", blockTexts(seg)[tc.block], tc.feature, v)
			}
		})
	}
}

func TestTextSetFindsABlocksWordsInAnotherTree(t *testing.T) {
	other := parseBody(t, `<html><body><div><p>The kettle boils in two minutes.</p><p>Descale it monthly</p></div></body></html>`)
	set := newTextSet(other)
	for _, tc := range []struct {
		name, text string
		want       float32
	}{
		{"a sentence found whole", "The kettle boils in two minutes", 1},
		{"a sentence not found", "Buy our newsletter today now", 0},
		{"half a block found", "boils in two minutes and more", 0.5},
		{"one word found", "kettle", 1},
		{"nothing to find", "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := set.share(wcxbTokens(tc.text)); got != tc.want {
				t.Errorf("share(%q) = %v, want %v", tc.text, got, tc.want)
			}
		})
	}
}
