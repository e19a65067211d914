package markdown

import (
	"strings"
	"testing"
)

// TestAffiliateNotesAreLeftOut drops the note a site prints over or under
// a piece to say its links may earn it a commission, in the forms sites
// write it; a sentence about commissions or affiliate links as a subject
// stays, and so does what shares a box with the note.
func TestAffiliateNotesAreLeftOut(t *testing.T) {
	story := `<p>` + strings.Repeat("The tent pitched in four minutes in a crosswind and kept two of us dry through a night of rain on the ridge. ", 5) + `</p>`
	for _, tc := range []struct {
		name, body     string
		want, unwanted []string
	}{
		{"a note in the forms sites print it",
			`<p><em>This post may contain affiliate links. Read my <a href="/disclosure">disclosure</a>.</em></p>` + story +
				`<p>As an Amazon Associate I earn from qualifying purchases.</p><div class="note"><p>Products are chosen independently by our editors. ` +
				`Purchases made through our links may earn us a commission.</p></div><p><small>If you buy through my links, I may receive a small commission at no extra cost to you.</small></p>`,
			[]string{"pitched in four minutes"}, []string{"affiliate links", "Amazon Associate", "chosen independently", "small commission"}},
		{"a note that names the commission an affiliate one",
			story + `<p><strong>Disclosure:</strong> Tent Notes is reader-supported. When you buy through links on our site, we may earn an affiliate commission.</p>` +
				`<p>Buying through our links may earn an affiliate commission for the site.</p>`,
			[]string{"pitched in four minutes"}, []string{"reader-supported", "Buying through our links"}},
		{"a note that says buying through its links supports the site",
			story + `<p><em>We independently test everything we recommend.</em><br><em>Buying through links on our site supports our work.</em></p>`,
			[]string{"pitched in four minutes"}, []string{"supports our work"}},
		{"a sentence on links that help a reader",
			story + `<p>Shopping through the links in the guide helps you find the tents we tested, all of them in stock this spring.</p>`,
			[]string{"Shopping through the links in the guide helps you"}, nil},
		{"sentences about commissions and affiliate links as a subject",
			story + `<p>Travel agents recommend insurance because they get a commission when you buy it, so ask the insurer directly.</p>` +
				`<p>To measure a partnership, implement affiliate links and UTM tracking, then compare the sales each one brings.</p>`,
			[]string{"they get a commission when you buy it", "implement affiliate links and UTM tracking"}, nil},
		{"what shares a box with the note",
			story + `<div class="box"><p>Mara tests gear for a living and walks the ridge every week.</p><p>This post contains affiliate links.</p></div>`,
			[]string{"Mara tests gear for a living"}, []string{"This post contains affiliate links"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := article(t, `<!doctype html><html><head><title>Tents</title></head><body><article><h1>Tents</h1>`+tc.body+`</article></body></html>`)
			checkHolds(t, md, tc.want, tc.unwanted)
		})
	}
}
