package markdown

import (
	"fmt"
	"strings"
	"testing"
)

// choiceEntries is a list of choices, one entry per label, each a
// control of type kind inside its label, under a heading.
func choiceEntries(heading, kind string, labels ...string) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, `<div class="facet"><h4>%s</h4><ul class="options">`, heading)
	for i, l := range labels {
		fmt.Fprintf(&sb, `<li class="option"><label for="f-%d"><input type="%s" name="f" id="f-%d" value="%d"><span>%s</span></label></li>`,
			i, kind, i, i, l)
	}
	sb.WriteString(`</ul></div>`)
	return sb.String()
}

func TestArticleLeavesOutListsOfChoices(t *testing.T) {
	sizes := choiceEntries("Shoe size", "checkbox", "Size 7", "Size 7.5", "Size 8", "Size 8.5", "Size 9", "Size 10")
	sort := choiceEntries("Sort by", "radio", "Featured", "Newest first", "Oldest first", "Price, low to high", "Price, high to low")
	colours := `<fieldset><legend>Colour</legend>` +
		`<input type="radio" name="c" id="c1"><label for="c1">Moss green</label>` +
		`<input type="radio" name="c" id="c2"><label for="c2">Slate grey</label>` +
		`<input type="radio" name="c" id="c3"><label for="c3">Ochre yellow</label></fieldset>`
	swatches := `<div class="swatches">` + strings.Repeat(`<span class="swatch"><input type="radio" name="v"><img src="/s.jpg" alt="Walnut finish"></span>`, 6) + `</div>`
	billing := `<div class="toggle"><label><input type="radio" name="b" checked> Monthly billing</label>` +
		`<label><input type="radio" name="b"> Yearly billing, two months free</label></div>`
	tasks := `<ul class="tasks">` + strings.Repeat(`<li><input type="checkbox" disabled checked> Sand the top of the table down</li>`, 6) + `</ul>`
	settings := `<table><tbody>` + strings.Repeat(`<tr><td>Woodworking journals of the northern guilds</td><td><input type="checkbox"></td></tr>`, 6) + `</tbody></table>`
	quizText := `<ol class="answers">` + strings.Repeat(`<li><label><input type="radio" name="q"> `+
		`The oil soaks into the grain and hardens there over several weeks, so that the wood resists water</label></li>`, 5) + `</ol>`
	for _, tc := range []struct {
		name     string
		page     string
		want     []string
		unwanted []string
	}{
		{
			name: "a category page leaves out its filters and its sort bar, with their headings, and keeps its grid",
			page: `<!doctype html><html><head><title>Side tables - Example</title></head><body>` + pageHeader +
				`<main><h1>Side tables</h1><div class="layout"><div class="filters">` + sizes + sort + `</div>` +
				productCards(12) + `</div></main>` + pageFooter + `</body></html>`,
			want:     []string{"Walnut side table model 0", "Walnut side table model 11", "$101.00"},
			unwanted: []string{"Size 8.5", "Shoe size", "Price, low to high", "Sort by"},
		},
		{
			name: "a filter of two choices, each with the count it leaves, goes with its heading",
			page: `<!doctype html><html><head><title>Mice - Example</title></head><body>` + pageHeader +
				`<main><h1>Ergonomic mice</h1><div class="layout"><div class="filters">` +
				choiceEntries("Wireless", "checkbox", "No (21)", "Yes (30)") + choiceEntries("Trackball", "checkbox", "No (43)", "Yes (4)") + `</div>` +
				productCards(12) + `</div></main>` + pageFooter + `</body></html>`,
			want:     []string{"Walnut side table model 0", "Walnut side table model 11"},
			unwanted: []string{"(21)", "Yes (4)", "Trackball", "Wireless"},
		},
		{
			name: "a product page leaves out its options as swatches and keeps its description",
			page: `<!doctype html><html><head><title>Walnut table - Example</title></head><body>` + pageHeader +
				`<main><h1>Walnut side table</h1><div class="product"><p>A side table of solid walnut.</p>` + swatches + sizes +
				`<p>` + strings.Repeat("Oiled and waxed, with a drawer that runs on wooden rails. ", 3) + `</p></div>` +
				`</main>` + pageFooter + `</body></html>`,
			want:     []string{"solid walnut", "wooden rails"},
			unwanted: []string{"Size 8.5", "Shoe size"},
		},
		{
			name: "a picker of variants drawn as pictures without inputs goes; a gallery of the product and swatches with their names written stay",
			page: `<!doctype html><html><head><title>Card wallet - Example</title></head><body>` + pageHeader +
				`<main><h1>Card wallet</h1><p>` + strings.Repeat("A wallet of two plates held by a band, for twelve cards. ", 4) + `</p>` +
				`<div class="picker">` + eachOf(`<div class="picker__item"><a href="/w/%[1]s"><img src="/sw/%[1]s.png" alt="%[1]s option"></a></div>`,
				"carbon-fiber", "navy", "gunmetal", "forest-green", "burnt-titanium") + `</div>` +
				`<ul class="colors">` + eachOf(`<li><span class="colorSwatch"><img src="/sw/%[1]s.png" alt="%[1]s"></span></li>`,
				"Olive", "Rust", "Teal", "Coal", "Chalk") + `</ul>` +
				`<div class="gallery"><div><img src="/p/open.jpg" alt="The wallet opened"></div><div><img src="/p/closed.jpg" alt="The wallet closed"></div>` +
				`<div><img src="/p/band.jpg" alt="Its band"></div><div><img src="/p/side.jpg" alt="Its side"></div><div><img src="/p/back.jpg" alt="Its back"></div></div>` +
				`<ul class="cards">` + strings.Repeat(`<li><span class="swatch"><img src="/sw/sand.png" alt=""></span> Sandstone</li>`, 6) + `</ul>` +
				`</main>` + pageFooter + `</body></html>`,
			want:     []string{"two plates", "The wallet opened", "Sandstone"},
			unwanted: []string{"carbon-fiber option", "navy option", "Olive", "Chalk"},
		},
		{
			name: "a choice of two or three stays: it is part of what it switches",
			page: `<!doctype html><html><head><title>Pricing - Example</title></head><body>` + pageHeader +
				`<main><h1>Pricing</h1>` + billing + colours + `<p>` + strings.Repeat("Every plan includes the workshop's design library and support by mail. ", 6) + `</p>` +
				`</main>` + pageFooter + `</body></html>`,
			want: []string{"Monthly billing", "Yearly billing", "Ochre yellow", "design library"},
		},
		{
			name: "a checklist whose boxes cannot be ticked, a table of choices and choices with long labels stay",
			page: `<!doctype html><html><head><title>Finishing - Example</title></head><body>` + pageHeader +
				`<main><h1>Finishing a table</h1><p>` + strings.Repeat("Finishing a table takes patience and a dry room. ", 6) + `</p>` +
				tasks + settings + quizText + `</main>` + pageFooter + `</body></html>`,
			want: []string{"Sand the top", "northern guilds", "resists water"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := article(t, tc.page)
			checkHolds(t, md, tc.want, tc.unwanted)
		})
	}
}

// eachOf is format filled in with each of names.
func eachOf(format string, names ...string) string {
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, format, n)
	}
	return b.String()
}

// TestTheLabelsOfAFormsFieldsAreLeftOut drops the labels of the fields a
// form asks the reader to fill in, named by their for= or holding their
// field; a label of nothing to fill in (a badge, a caption, a box to
// tick) is left to the other rules.
func TestTheLabelsOfAFormsFieldsAreLeftOut(t *testing.T) {
	root := parseBody(t, `<article><h1>Payroll</h1><p>Payroll for a team of twelve takes an afternoon a month.</p>
<div class="gform"><h3>Request our free ebook</h3><form action="/thanks" method="post"><ul>
<li><label for="f1">First name*</label><div><input id="f1" type="text" name="first"></div></li>
<li><label for="f2">Work email*</label><div><input id="f2" type="email" name="email"></div></li>
<li><label>Number of employees* <select name="size"><option>1-10</option><option>11-50</option></select></label></li>
<li><label for="f4">Anything else we should know?</label><textarea id="f4"></textarea></li>
<li><input id="f5" type="checkbox"><label for="f5">Send me the monthly payroll letter</label></li>
</ul><button type="submit">Send</button></form></div>
<p><label class="badge">Updated</label> The figures above are for the tax year that ends in April.</p></article>`)
	dropFieldLabels(root)
	checkHolds(t, flatText(root), []string{"takes an afternoon a month", "Request our free ebook", "Updated", "tax year that ends in April", "monthly payroll letter"},
		[]string{"First name", "Work email", "Number of employees", "Anything else we should know"})
}
