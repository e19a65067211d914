package markdown

import (
	"context"
	"strings"
	"testing"
)

func TestHeadingsThatEndTheContentWithNothingUnderThemGo(t *testing.T) {
	const story = `<h1>The walnut side table</h1>
<p>The walnut side table is made by hand in a workshop by the river, from wood felled within ten miles of it.</p>
<p>Each table takes a week to make, and each is oiled three times before it leaves the workshop for its new home.</p>
<h2>Care</h2><p>Wipe it with a damp cloth and oil it once a year; keep it out of the midday sun so the wood does not fade.</p>`
	// section is a shop's carousel as a page without script shows it: a
	// title and the picture of a spinner, the same on every carousel,
	// that the converter drops as the page's decoration.
	section := func(title string) string {
		return `<h2>` + title + `</h2><div class="carousel"><img src="/img/loading.gif" alt="Loading"></div>`
	}
	page := func(tail string) string {
		return `<!doctype html><html><head><title>Walnut side table</title></head><body><main><article>` + story + tail +
			`</article></main></body></html>`
	}
	for _, tc := range []struct {
		name, page     string
		want, unwanted []string
	}{
		{
			name:     "carousels' titles whose controls the converter drops",
			page:     page(section("More from the workshop") + section("Often bought together") + section("Made by our makers")),
			want:     []string{"## Care", "once a year"},
			unwanted: []string{"More from the workshop", "Often bought together", "Made by our makers"},
		},
		{
			name:     "a subheading under a title, both with nothing after them",
			page:     page(section("Often bought together") + section("Made by our makers") + `<h2>You may also like</h2><h3>Tables</h3><img src="/img/loading.gif" alt="Loading">`),
			want:     []string{"## Care", "once a year"},
			unwanted: []string{"You may also like", "Tables"},
		},
		{
			name: "a long heading is prose set in a heading's type and stays",
			page: page(section("For more than forty years our workshop by the river has made the tables, chairs and cupboards of the houses of the valley and the coast") +
				section("Often bought together") + section("Made by our makers")),
			want:     []string{"## Care", "For more than forty years our workshop"},
			unwanted: []string{"Often bought together"},
		},
		{
			name: "a headline that is all a link is a card's title and stays",
			page: page(section("Often bought together") + section("Made by our makers") +
				`<h3><a href="/tables/oak">The oak side table</a></h3><h3><a href="/tables/ash">The ash side table</a></h3>`),
			want: []string{"## Care", "## Often bought together", "[The oak side table]", "[The ash side table]"},
		},
		{
			name: "a heading with its section under it stays",
			page: page(section("Often bought together") + `<h2>Delivery</h2><p>Delivered in a week, to your door.</p>`),
			want: []string{"## Care", "## Delivery", "to your door"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkHolds(t, article(t, tc.page), tc.want, tc.unwanted)
		})
	}
	t.Run("a part of a page a caller chose keeps its closing heading", func(t *testing.T) {
		doc := parse(t, page(section("More from the workshop")+section("Often bought together")+section("Made by our makers")))
		md, err := Convert(context.Background(), doc.Find("article"), pageURL(t), Options{})
		if err != nil || !strings.HasSuffix(md, "## Made by our makers\n") {
			t.Errorf("got %q, %v", md, err)
		}
	})
}
