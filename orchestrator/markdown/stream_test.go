package markdown

import (
	"strings"
	"testing"
)

func TestArticleKeepsContentThePageRevealsOrSetsAside(t *testing.T) {
	const story = `<p>The lighthouse keeper climbed the hundred and twelve steps twice a night to wind the clockwork that turned the lens.</p>
<p>When the light was electrified in nineteen sixty, the clockwork stayed in place, and visitors can still see it turn on open days.</p>`
	// A site's menus, three times the story's text, in boxes that do not
	// say they are menus.
	menus := `<div class="megamenu">` + strings.Repeat(`<div class="col"><a href="/coast">Lighthouses of the north coast, their keepers and their logbooks</a>`+
		`<a href="/north">North</a> <a href="/south">South</a> <a href="/east">East</a> <a href="/west">West</a></div>`, 8) + `</div>`
	for _, tc := range []struct {
		name, body     string
		want, unwanted []string
	}{
		{
			name: "a server-streamed segment, hidden until script moves it in, is content",
			body: `<div id="root"><template id="B:0"></template><p>Loading…</p></div>` +
				`<div hidden id="S:0"><article><h2>The keeper's night</h2>` + story + `</article></div>` +
				`<script>$RC("B:0","S:0")</script>`,
			want: []string{"hundred and twelve steps", "visitors can still see it turn"},
		},
		{
			name: "a streamed segment past the ninth, numbered in hexadecimal, is content",
			body: `<div id="root"><template id="B:a"></template><p>Loading…</p></div>` +
				`<div hidden id="S:a"><article><h2>The keeper's night</h2>` + story + `</article></div>` +
				`<script>$RC("B:a","S:a")</script>`,
			want: []string{"hundred and twelve steps", "visitors can still see it turn"},
		},
		{
			name:     "an element hidden for good whose id only looks like a segment's stays out",
			body:     `<article>` + story + `</article><div hidden id="S:menu"><p>Secret menu of the site with its many links and labels.</p></div>`,
			want:     []string{"hundred and twelve steps"},
			unwanted: []string{"Secret menu"},
		},
		{
			name: "a page shipped hidden until its script shows it is content",
			body: `<div id="__next"><div style="visibility:hidden;min-height:100vh"><header><a href="/">Lights</a></header>` +
				`<main><article><h2>The keeper's night</h2>` + story + `</article></main></div></div>`,
			want: []string{"hundred and twelve steps", "visitors can still see it turn"},
		},
		{
			name: "a body hidden by display:none until its styles load is content",
			body: `<div class="app" style="display: none !important"><article><h2>The keeper's night</h2>` + story + `</article>` +
				`<div style="display:none"><p>Secret menu of the site with its many links and labels.</p></div></div>`,
			want:     []string{"hundred and twelve steps"},
			unwanted: []string{"Secret menu"},
		},
		{
			name: "a page hidden until its script runs, beside menus that outweigh it, is content when it holds the headline",
			body: menus + `<div class="grouping defer-block" style="display: none"><article><h1>The keeper's night</h1>` + story + story +
				`</article></div>`,
			want: []string{"hundred and twelve steps", "visitors can still see it turn"},
		},
		{
			name: "a hidden box with the headline and a small part of the page stays out",
			body: menus + `<article><h2>Lights of the coast</h2>` + story +
				`<div class="box" style="display: none"><h1>Sign up for the keeper's letter</h1><p>A letter from the lamp room, once a month, free.</p></div></article>`,
			want:     []string{"hundred and twelve steps"},
			unwanted: []string{"from the lamp room"},
		},
		{
			name:     "a hidden copy of half the page stays out",
			body:     `<article>` + story + `</article><div style="display:none" class="print-copy"><p>Printed copy.</p>` + story + `</div>`,
			want:     []string{"hundred and twelve steps"},
			unwanted: []string{"Printed copy"},
		},
		{
			name:     "an element hidden for good stays out",
			body:     `<article>` + story + `</article><div hidden id="menu"><p>Secret menu of the site with its many links and labels.</p></div>`,
			want:     []string{"hundred and twelve steps"},
			unwanted: []string{"Secret menu"},
		},
		{
			name: "a page whose only text is in an aside gives that text",
			body: `<aside><h2>The keeper's night</h2>` + story + `</aside>`,
			want: []string{"hundred and twelve steps", "visitors can still see it turn"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := article(t, "<!doctype html><html><head><title>Lighthouse</title></head><body>"+tc.body+"</body></html>")
			checkHolds(t, md, tc.want, tc.unwanted)
		})
	}
}
