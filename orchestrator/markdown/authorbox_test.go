package markdown

import (
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/glimpse/glimpse/orchestrator/meta"
)

func TestArticleLeavesTheAuthorBoxOut(t *testing.T) {
	const story = `<p>The orchard planted its first cider apples in the spring after the frost, three hundred trees on the south slope.</p>
<p>Five years on, the trees bear enough fruit for a small press, and the village holds its first pressing day in October.</p>
<p>Volunteers pick, sort and wash the apples, and the juice ferments in oak barrels lent by a farm across the valley.</p>
<p>The first year's cider was sharp and cloudy; the second, aged through the winter, won a prize at the county show in June.</p>
<p>The orchard now sells its cider at the village shop and plans to plant a hundred perry pears on the north slope next year.</p>
<p>Its founders hope the trees will outlive them, as the old orchard on the same slope outlived the farmers who planted it.</p>`
	// The box is furniture beside the story: it holds a small share of
	// the page, as on any real article; the page below holds the story
	// twice.
	const bio = `Mara Quill is a staff writer who covers rural life and has written for regional papers for over a decade.`
	for _, tc := range []struct {
		name, body     string
		want, unwanted []string
	}{
		{name: "an author-bio block leaves", body: story + `<div class="author-bio"><p>` + bio + `</p></div>`,
			want: []string{"first pressing day"}, unwanted: []string{"Mara Quill"}},
		{name: "an about-the-author box leaves", body: story + `<section id="about-author"><h4>About the author</h4><p>` + bio + `</p></section>`,
			want: []string{"first pressing day"}, unwanted: []string{"Mara Quill", "About the author"}},
		{name: "a camel-case authorBox leaves", body: story + `<div class="authorBox"><img src="/m.jpg" alt="Mara"><p>` + bio + `</p></div>`,
			want: []string{"first pressing day"}, unwanted: []string{"Mara Quill"}},
		{name: "a profile of the entry's author leaves", body: story + `<div class="entry-author-profile"><p>` + bio + `</p></div>`,
			want: []string{"first pressing day"}, unwanted: []string{"Mara Quill"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := article(t, "<!doctype html><html><head><title>The orchard</title></head><body><article><h1>The orchard</h1>"+story+tc.body+"</article></body></html>")
			checkHolds(t, md, tc.want, tc.unwanted)
		})
	}
}

func TestAuthorBoxIsKnownByItsClassWords(t *testing.T) {
	for _, tc := range []struct {
		class string
		box   bool
	}{
		{"author-bio", true},
		{"about-author", true},
		{"authorBox", true},
		{"entry-author-profile author-profile vcard", true},
		{"post-author__description", true},
		{"aboutauthor", true},
		// A contributor or a writer is the author by another name.
		{"contributor-bio", true},
		{"sno-story-contributor-box", true},
		{"writerBio", true},
		{"about-the-writer", true},
		{"contributor-list", false},
		{"writer", false},
		// Bylines, testimonials' signatures and lists of a paper's
		// authors are not the writer's biography.
		{"quote-author-info", false},
		{"byline author-name", false},
		{"research-card_authors", false},
		{"author", false},
		{"profile-box", false},
	} {
		if got := authorBox(meta.ClassWords(tc.class)); got != tc.box {
			t.Errorf("class %q: author box %v, want %v", tc.class, got, tc.box)
		}
	}
}

func TestArticleLeavesTheAuthorMarkedUpAsAPersonOut(t *testing.T) {
	const story = `<p>The ferry to the island runs twice a day in summer and once in winter, weather allowing, from the harbour wall.</p>
<p>The crossing takes forty minutes; on a clear day the cliffs of the island show from the moment the boat leaves.</p>
<p>Most visitors walk the coastal path, which circles the island in a long afternoon and passes the lighthouse and the old chapel.</p>
<p>The island's only café opens from Easter to October and closes when the last ferry of the day has left the pier.</p>
<p>There is one guest house, with six rooms, and it is booked a year ahead for the weeks when the puffins nest.</p>
<p>Campers may pitch on the meadow above the pier, with the warden's leave, and must take everything they bring back with them.</p>`
	// A short post's box holds more of the page than furniture known by
	// its class words may.
	shortStory := strings.Join(strings.SplitAfter(story, "</p>")[:5], "")
	const bio = `I'm Ines, and I started this travel blog ten years ago after a year of living out of a backpack. I write about slow travel, islands and the people who keep them going through the winter.`
	person := func(class, words string) string {
		return `<div class="` + class + `" itemprop="author" itemscope itemtype="https://schema.org/Person"><img src="/ines.jpg" alt=""><div itemprop="name">Ines Marr</div><div itemprop="description"><p>` + words + `</p></div></div>`
	}
	for _, tc := range []struct {
		name, body     string
		want, unwanted []string
	}{
		// Plugins name the box in words of their own.
		{name: "a plugin's box of the author leaves", body: shortStory + person("saboxplugin-wrap", bio),
			want: []string{"puffins nest"}, unwanted: []string{"backpack", "Ines Marr"}},
		{name: "a box in a tab of its own leaves", body: story + `<div class="abh_box"><section class="vcard abh_tab" ` +
			`itemscope itemprop="author" itemtype="http://schema.org/Person"><p>` + bio + `</p></section></div>`,
			want: []string{"puffins nest"}, unwanted: []string{"backpack"}},
		// A box that is most of the page is what the page is about,
		// whatever its markup says.
		{name: "a writer's page stays", body: `<p>The ferry runs twice a day.</p>` + person("profile", bio+" "+bio),
			want: []string{"backpack"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := article(t, "<!doctype html><html><head><title>The island</title></head><body><article><h1>The island</h1>"+tc.body+"</article></body></html>")
			checkHolds(t, md, tc.want, tc.unwanted)
		})
	}
}

func TestAnAuthorCardSaysMoreThanAByline(t *testing.T) {
	const bio = `Ines Marr writes about slow travel and islands, and has spent every winter since 2015 on a different island of the north Atlantic coast, where she keeps a small boat.`
	for _, tc := range []struct {
		name, src string
		card      bool
	}{
		{"a Person with a biography", `<div itemprop="author" itemscope itemtype="https://schema.org/Person"><p>` + bio + `</p></div>`, true},
		{"one of several properties", `<div itemprop="creator author" itemscope><p>` + bio + `</p></div>`, true},
		{"named with its vocabulary", `<div itemprop="http://schema.org/author" itemscope><p>` + bio + `</p></div>`, true},
		{"a byline", `<div itemprop="author" itemscope itemtype="https://schema.org/Person">By <span itemprop="name">Ines Marr</span>, travel editor, 3 May 2024</div>`, false},
		{"links to the writer's posts", `<div itemprop="author" itemscope><a href="/a">` + bio + `</a> <a href="/b">` + bio + `</a></div>`, false},
		{"not an item of its own", `<div itemprop="author"><p>` + bio + `</p></div>`, false},
		{"another property", `<div itemprop="reviewedBy" itemscope itemtype="https://schema.org/Person"><p>` + bio + `</p></div>`, false},
	} {
		body := parseBody(t, tc.src)
		n := findFirst(body, func(k *html.Node) bool { return k.DataAtom == atom.Div })
		if got := authorCard(n); got != tc.card {
			t.Errorf("%s: author card %v, want %v", tc.name, got, tc.card)
		}
	}
}

// TestABoxItsLabelCallsTheWritersGoes drops a box named for nothing that
// opens with the label of an author box, "Written by" or "About the
// author", set apart as an element of its own, over the writer's name: at
// the end of a story or over it. The story under a byline of that label
// stays, as do a byline written as a sentence, the words in a sentence,
// in a quotation or in a table, and a box of that label too large to be
// about the writer.
func TestABoxItsLabelCallsTheWritersGoes(t *testing.T) {
	const story = `<p>The orchard planted its first cider apples in the spring after the frost, three hundred trees on the south slope.</p>
<p>Five years on, the trees bear enough fruit for a small press, and the village holds its first pressing day in October.</p>
<p>Volunteers pick, sort and wash the apples, and the juice ferments in oak barrels lent by a farm across the valley.</p>
<p>The first year's cider was sharp and cloudy; the second, aged through the winter, won a prize at the county show in June.</p>`
	const bio = `Mara Quill is a staff writer who covers rural life and has written for regional papers for over a decade.`
	long := strings.Repeat("The press runs from dawn to dusk on the pressing day, and every family brings a basket of its own. ", 14)
	for _, tc := range []struct {
		name, body     string
		want, unwanted []string
	}{
		{name: "a box of hashed classes under the story", body: story + `<div class="Card_wrapper__0FFRY"><div class="Card_img__x1"><img src="/m.jpg" alt=""></div>` +
			`<div class="Card_meta__9q"><span class="Card_label__aa">Written By:</span><span>Mara Quill</span><span>Staff writer</span></div><p>` + bio + `</p></div>`,
			want: []string{"first pressing day"}, unwanted: []string{"Written By", "Mara Quill", "Staff writer"}},
		{name: "an about-the-author section of plain divs", body: story + `<div><div><h3>About the Author</h3></div><div><p>` + bio + `</p></div></div>`,
			want: []string{"first pressing day"}, unwanted: []string{"About the Author", "Mara Quill"}},
		{name: "a byline of that label over the story", body: `<div class="post"><p class="byline"><span>Written by</span> <a href="/mara">Mara Quill</a></p>` + story + `<p>` + long + `</p></div>`,
			want: []string{"first pressing day", "every family brings"}, unwanted: []string{"Written by"}},
		{name: "a byline written as a sentence", body: `<p>Written by <a href="/mara">Mara Quill</a>.</p>` + story,
			want: []string{"first pressing day", "Written by [Mara Quill]"}},
		{name: "a short story under a byline of that label", body: `<div class="post"><p class="byline"><span>Written by</span> <a href="/mara">Mara Quill</a></p>` + story + `</div>`,
			want: []string{"first pressing day", "won a prize"}},
		{name: "a sentence, a quotation and a table", body: story + `<p>The song they sing at the press was written by the first orchard keeper.</p>` +
			`<blockquote><p>Written by</p><p>the keeper, in pencil, on the barn door.</p></blockquote>` +
			`<table><tr><th>Written by</th><td>the keeper</td></tr><tr><th>Sung by</th><td>the village</td></tr></table>`,
			want: []string{"written by the first orchard keeper", "on the barn door", "Sung by"}},
		{name: "a box too large to be about the writer", body: story + `<section><h2>Written by</h2><p>` + long + `</p></section>`,
			want: []string{"every family brings", "Written by"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := article(t, "<!doctype html><html><head><title>The orchard</title></head><body><article><h1>The orchard</h1>"+tc.body+"</article></body></html>")
			checkHolds(t, md, tc.want, tc.unwanted)
		})
	}
}
