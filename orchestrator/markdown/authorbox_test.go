package markdown

import (
	"testing"

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
