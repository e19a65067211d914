package markdown

import (
	"strings"
	"testing"
)

// TestStatusAnnouncementsAreLeftOut drops what a page tells a screen
// reader's user of its own state in a status region, wherever it stands;
// a region that announces its changes politely (a box of news) and a
// status region of a page's worth of text stay.
func TestStatusAnnouncementsAreLeftOut(t *testing.T) {
	story := `<p>` + strings.Repeat("The bakery proofs its rye for sixteen hours in a cold room before the loaves go into the wood oven at dawn. ", 5) + `</p>`
	long := strings.Repeat("Every loaf is weighed, scored and baked on the stone, then cooled on racks until noon. ", 5)
	for _, tc := range []struct {
		name, body     string
		want, unwanted []string
	}{
		{"status regions",
			`<div role="status">Loaded 338 results</div>` + story + `<p role="status">Added to your cart</p>` +
				`<div class="carousel"><span role="STATUS">Slide 1 of 8</span></div>`,
			[]string{"proofs its rye for sixteen hours"}, []string{"Loaded 338", "Added to your cart", "Slide 1 of 8"}},
		{"what stays",
			story +
				`<div aria-live="polite"><p>Our spring rye is back on the shelves this week.</p></div>` +
				`<div role="status"><p>` + long + `</p></div>`,
			[]string{"spring rye is back", "weighed, scored and baked"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := article(t, `<!doctype html><html><head><title>Rye</title></head><body><article><h1>Rye</h1>`+tc.body+`</article></body></html>`)
			checkHolds(t, md, tc.want, tc.unwanted)
		})
	}
}
