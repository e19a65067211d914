package markdown

import (
	"fmt"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// eventCards is a listing of n events, each written twice, as an events
// site writes them: a wide card with the organiser and a narrow one
// without, for the stylesheet to choose between.
func eventCards(n int) string {
	var sb strings.Builder
	sb.WriteString(`<ul class="results">`)
	for i := range n {
		wide := fmt.Sprintf(`<div class="card-wide"><a href="/e/%d"><img src="/e/%d.jpg" alt=""></a><section>`+
			`<a href="/e/%d"><h3>Evening talk on harbour history, part %d</h3></a><p>Wednesday at %d:00 PM</p><p>Free</p>`+
			`<p>Harbour Society</p><p>%d followers</p></section></div>`, i, i, i, i, 4+i%5, 200+i)
		narrow := fmt.Sprintf(`<div class="card-narrow"><a href="/e/%d"><img src="/e/%d.jpg" alt=""></a><section>`+
			`<a href="/e/%d"><h3>Evening talk on harbour history, part %d</h3></a><p>Wednesday at %d:00 PM</p><p>Free</p>`+
			`</section></div>`, i, i, i, i, 4+i%5)
		sb.WriteString(`<li><div class="item">` + wide + narrow + `</div></li>`)
	}
	sb.WriteString(`</ul>`)
	return sb.String()
}

// themeCards is a shop theme's grid of n products, each card holding its
// name twice: in a box shown only when the product has no picture, beside
// the picture, and again under it with the price.
func themeCards(n int) string {
	var sb strings.Builder
	sb.WriteString(`<ul class="grid product-grid">`)
	for i := range n {
		fmt.Fprintf(&sb, `<li class="grid__item"><div class="card card--media"><div class="card__inner">`+
			`<div class="card__media"><img src="/p/%d.jpg" alt="Wool sock model %d in grey"></div>`+
			`<div class="card__content"><h3 class="card__heading"><a href="/products/%d">Wool sock model %d</a></h3></div></div>`+
			`<div class="card__content"><h3 class="card__heading h5"><a href="/products/%d">Wool sock model %d</a></h3>`+
			`<p class="vendor">Northfield</p><p class="price">$%d.00</p></div></div></li>`, i, i, i, i, i, i, 18+i)
	}
	sb.WriteString(`</ul>`)
	return sb.String()
}

func TestACardWrittenForTwoLayoutsComesOnce(t *testing.T) {
	page := func(body string) string {
		return `<!doctype html><html><head><title>Listing - Example</title></head><body>` + pageHeader +
			`<main><h1>What's on</h1>` + body + `</main>` + pageFooter + `</body></html>`
	}
	t.Run("events written wide and narrow", func(t *testing.T) {
		md := article(t, page(eventCards(8)))
		for i := range 8 {
			title := fmt.Sprintf("Evening talk on harbour history, part %d]", i)
			if c := strings.Count(md, title); c != 1 {
				t.Errorf("%q %d times, want once:\n%s", title, c, md)
			}
		}
		checkHolds(t, md, []string{"Harbour Society", "207 followers"}, nil)
		if c := strings.Count(md, "Free"); c != 8 {
			t.Errorf("%d prices, want 8:\n%s", c, md)
		}
	})
	t.Run("a product's name in a box for when it has no picture", func(t *testing.T) {
		md := article(t, page(themeCards(8)))
		for i := range 8 {
			name := fmt.Sprintf("[Wool sock model %d]", i)
			if c := strings.Count(md, name); c != 1 {
				t.Errorf("%q %d times, want once:\n%s", name, c, md)
			}
		}
		checkHolds(t, md, []string{"Wool sock model 7 in grey](", "$25.00"}, nil)
	})
}

func TestHeadingsThatAreNoLayoutTwinsStay(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		heading    string
		want       int
	}{
		{"a section's title without a link, given in two places",
			`<div><section><h3>Parameters of the first call</h3><p>name: the name.</p></section>` +
				`<section><h3>Parameters of the first call</h3><p>name: the name.</p></section></div>`,
			"Parameters of the first call", 2},
		{"the same story linked twice in a long page",
			`<div class="stories"><article><h3><a href="/s/1">Council votes on the new bridge</a></h3></article>` +
				`<article><h3><a href="/s/2">The harbour's ferry returns</a></h3><p>` +
				strings.Repeat("The ferry runs again from Monday, every hour from the old pier. ", 60) + `</p></article>` +
				`<article><h3><a href="/s/1">Council votes on the new bridge</a></h3><p>` +
				strings.Repeat("A summary of the vote and of what the councillors said. ", 20) + `</p></article></div>`,
			"Council votes on the new bridge", 2},
		{"a heading written three times is no pair of layouts",
			`<ul>` + strings.Repeat(`<li><div><h3><a href="/e/1">Evening talk on harbour history</a></h3><p>Free entry</p></div></li>`, 3) +
				`<li><h3><a href="/e/2">Walk along the old quay</a></h3><p>Thursday 10 AM</p></li>` +
				`<li><h3><a href="/e/3">Boat building for beginners</a></h3><p>Friday 2 PM</p></li></ul>`,
			"Evening talk on harbour history", 3},
		{"cards whose copies each say something the other does not",
			`<ul>` + strings.Repeat(`<li><div><h3><a href="/e/1">Evening talk on harbour history</a></h3><p>Wednesday 4 PM at the old pier</p></div>`+
				`<div><h3><a href="/e/1">Evening talk on harbour history</a></h3><p>Tickets from $10 at the door</p></div></li>`, 1) +
				`<li><h3><a href="/e/2">Walk along the old quay</a></h3><p>Thursday 10 AM</p></li>` +
				`<li><h3><a href="/e/3">Boat building for beginners</a></h3><p>Friday 2 PM</p></li>` +
				`<li><h3><a href="/e/4">Knots and nets workshop</a></h3><p>Saturday 9 AM</p></li></ul>`,
			"Evening talk on harbour history", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := parseBody(t, `<!doctype html><html><body>`+tc.body+`</body></html>`)
			dropLayoutTwins(root)
			got := 0
			walk(root, func(n *html.Node) bool {
				if headingLevel(n) > 0 && strings.TrimSpace(textOf(n)) == tc.heading {
					got++
				}
				return true
			})
			if got != tc.want {
				t.Errorf("%q %d times, want %d", tc.heading, got, tc.want)
			}
		})
	}
}
