package markdown

import (
	"strings"
	"testing"
)

// Panels a reader opens with a click (accordions, tabs, find-in-page
// sections) are the page's content; menus, dialogs and drawers opened the
// same way, and what is hidden with no control to open it, are not.
func TestPanelsAReaderOpensAreContent(t *testing.T) {
	const intro = `<h1>Rain jackets</h1><p>Our rain jacket is made of a recycled shell with taped seams, and it packs into its own pocket for the walk home.</p>`
	const answer = "Wash it cold on a gentle cycle and hang it to dry; the coating comes back after a warm tumble of ten minutes."
	for _, tc := range []struct {
		name, body     string
		want, unwanted []string
	}{
		{
			name: "an accordion's closed answer, hidden by its attribute",
			body: `<section><h2>Questions</h2>
<h3><button aria-expanded="false" aria-controls="faq-1">How do I wash it?</button></h3>
<div id="faq-1" hidden><p>` + answer + `</p></div></section>`,
			want: []string{"How do I wash it", "Wash it cold on a gentle cycle"},
		},
		{
			name: "an accordion's closed answer, hidden from assistive technology and by its style",
			body: `<section><h2>Questions</h2>
<button aria-expanded="false" aria-controls="faq-2 faq-3">Care</button>
<div id="faq-2" aria-hidden="true" style="display: none;"><p>` + answer + `</p></div></section>`,
			want: []string{"Wash it cold on a gentle cycle"},
		},
		{
			name: "an accordion's answers inside the boxes the accordion collapses",
			body: `<section><h2>Questions</h2>
<button aria-expanded="false" aria-controls="panel-4">How do I wash it?</button>
<div class="collapse" style="overflow:hidden;display:none;height:0px"><style>.p{padding:0}</style>
<div role="region" id="panel-4" class="p"><p>` + answer + `</p></div></div>
<button aria-expanded="false" aria-controls="panel-5">Does it fit over a fleece?</button>
<div class="collapse" style="display:none"><div><div role="region" id="panel-5"><p>Yes: the cut leaves room for a mid layer, ` +
				`and the hem stays low when you reach up.</p></div></div></div></section>`,
			want: []string{"How do I wash it", "Wash it cold on a gentle cycle", "the cut leaves room for a mid layer"},
		},
		{
			name: "an accordion whose controls name their panels as selectors",
			body: `<section><h2>Questions</h2>
<div class="faq-item"><button aria-expanded="false" aria-controls="#care-panel">Washing and drying</button>
<div id="care-panel" hidden><p>` + answer + `</p></div></div>
<div class="faq-item"><button aria-expanded="false" aria-controls="#pack-panel">Packing it away</button>
<div id="pack-panel" hidden><p>Roll it from the hood down and zip it into its chest pocket, and it fits in a coat pocket.</p></div></div></section>`,
			want: []string{"Washing and drying", "Wash it cold on a gentle cycle", "Packing it away", "Roll it from the hood down"},
		},
		{
			name: "a hidden box that holds more than the panel stays hidden",
			body: `<section><h2>Questions</h2>
<button aria-expanded="false" aria-controls="panel-7">How do I wash it?</button>
<div style="display:none"><div id="panel-7"><p>` + answer + `</p></div><p>A hidden note the page never shows, about a jacket it no longer sells.</p></div></section>`,
			unwanted: []string{"Wash it cold on a gentle cycle", "hidden note"},
		},
		{
			name: "the rest of a description behind a button that only says so",
			body: `<div class="description"><p>The shell is waterproof to twenty thousand millimetres.</p>
<button aria-expanded="false" aria-controls="rest">Read more</button>
<div id="rest" hidden><p>The membrane breathes, so a long climb leaves you dry inside as well as out.</p></div></div>`,
			want:     []string{"The membrane breathes"},
			unwanted: []string{"Read more"},
		},
		{
			name: "a tab that is not selected",
			body: `<div role="tablist"><button role="tab" aria-selected="true">Details</button><button role="tab" aria-selected="false">Specs</button></div>
<div role="tabpanel"><p>The hood rolls into the collar, and the cuffs close with a strip of soft hook and loop.</p></div>
<div role="tabpanel" hidden><p>Weight three hundred and ten grams; shell of recycled nylon; membrane rated for twenty thousand millimetres.</p></div>`,
			want: []string{"hood rolls into the collar", "Weight three hundred and ten grams"},
		},
		{
			name: "a framework's tab that is not selected, hidden by its style",
			body: `<ul class="nav nav-tabs"><li class="active"><a href="#details">Details</a></li><li><a href="#specs">Specs</a></li></ul>
<div class="tab-content"><div class="tab-pane active" id="details"><p>The hood rolls into the collar, and the cuffs close with a strip of soft hook and loop.</p></div>
<div class="tab-pane" id="specs" style="display:none"><p>Weight three hundred and ten grams; shell of recycled nylon; membrane rated for twenty thousand millimetres.</p></div>
<div class="tab-pane" id="stores" style="display:none"><a href="/stores/leeds">Leeds</a> <a href="/stores/york">York</a> <a href="/stores/hull">Hull</a> <a href="/stores/bath">Bath</a></div></div>`,
			want:     []string{"hood rolls into the collar", "Weight three hundred and ten grams"},
			unwanted: []string{"Leeds"},
		},
		{
			name: "a section the browser's find-in-page opens",
			body: `<h2>Sizing</h2><div hidden="until-found"><p>The jacket runs large: most people take one size below their usual, and the sleeves are long.</p></div>`,
			want: []string{"The jacket runs large"},
		},
		{
			name: "a site menu opened by a button stays out",
			body: `<button aria-expanded="false" aria-controls="site-menu">Menu</button>
<div id="site-menu" hidden><a href="/men">Men's jackets and coats</a> <a href="/women">Women's jackets and coats</a> <a href="/kids">Children's jackets</a> <a href="/sale">Everything on sale this week</a></div>`,
			unwanted: []string{"Menu", "Children's jackets", "on sale this week"},
		},
		{
			name: "a navigation drawer stays out, whatever it holds",
			body: `<button aria-expanded="false" aria-controls="drawer">Browse</button>
<nav id="drawer" hidden><p>Browse every jacket we have ever made, from the first waxed cotton coat to this season's shells.</p></nav>`,
			unwanted: []string{"first waxed cotton coat"},
		},
		{
			name: "a dialog opened by a button stays out",
			body: `<button aria-expanded="false" aria-controls="signup">Join</button>
<div id="signup" role="dialog" hidden><p>Join our list and get ten per cent off your first order, with news of every new jacket.</p></div>`,
			unwanted: []string{"ten per cent off"},
		},
		{
			name:     "a cart drawer with a line of text stays out",
			body:     `<button aria-expanded="false" aria-controls="cart">Cart</button><div id="cart" hidden><p>Your cart is empty.</p></div>`,
			unwanted: []string{"Your cart is empty"},
		},
		{
			name: "an answer whose id a menu's list took first is still judged on its own",
			body: `<ul id="content-1" hidden><li><a href="/men">Men</a></li><li><a href="/women">Women</a></li><li><a href="/kids">Kids</a></li></ul>
<section><h2>Questions</h2><h3><a href="javascript:void(0)" aria-expanded="false" aria-controls="content-1">How do I wash it?</a></h3>
<div id="content-1" aria-hidden="true"><p>` + answer + `</p></div></section>`,
			want:     []string{"Wash it cold on a gentle cycle"},
			unwanted: []string{"Women"},
		},
		{
			name: "an answer whose id five lists of a menu took first is still judged on its own",
			body: strings.Repeat(`<ul id="content-1" hidden><li><a href="/men">Men</a></li><li><a href="/women">Women</a></li><li><a href="/kids">Kids</a></li></ul>`, 5) + `
<section><h2>Questions</h2><h3><a href="javascript:void(0)" aria-expanded="false" aria-controls="content-1">How do I wash it?</a></h3>
<div id="content-1" aria-hidden="true"><p>` + answer + `</p></div></section>`,
			want:     []string{"Wash it cold on a gentle cycle"},
			unwanted: []string{"Women"},
		},
		{
			name: "an accordion's button that does not say whether it is open still names its panel",
			body: `<section><h2>Questions</h2><a tabindex="0" role="button" aria-controls="q1-content"><span role="heading" aria-level="3">How do I wash it?</span></a>
<div id="q1-content" style="display:none;" role="region"><p>` + answer + `</p></div></section>`,
			want: []string{"How do I wash it", "Wash it cold on a gentle cycle"},
		},
		{
			name: "an FAQ's answers hidden right after their questions, with no ARIA",
			body: `<section><h2>Questions</h2><div class="faq-item"><div class="q">Q: How do I wash it?</div><div class="a" style="display: none;">A: ` + answer + `</div></div>
<div class="faq-item"><h3>Does it fit over a fleece?` + strings.Repeat("\n                    ", 20) +
				`<span class="toggler"><svg viewBox="0 0 18 11"><path d="M1 0L9 9L17 0"/></svg></span>` + strings.Repeat("\n                    ", 20) + `</h3><div style="display:none"><p>Yes: the cut leaves room for a mid layer, and the hem stays low when you reach up.</p></div></div></div>`,
			want: []string{"How do I wash it", "Wash it cold on a gentle cycle", "the cut leaves room for a mid layer"},
		},
		{
			name: "a disclosure's panel right after its button, which names no panel",
			body: `<section><h2>Specifications</h2><button type="button" aria-expanded="false">Specifications</button>
<div style="display:none"><p>Weight three hundred and ten grams; shell of recycled nylon; membrane rated for twenty thousand millimetres.</p></div>
<button aria-expanded="false">Menu</button><div hidden><a href="/men">Men's jackets and coats</a> <a href="/women">Women's jackets and coats</a> <a href="/kids">Children's jackets</a></div></section>`,
			want:     []string{"Weight three hundred and ten grams"},
			unwanted: []string{"Children's jackets"},
		},
		{
			name: "the rest of a text that a Read more toggle after it opens",
			body: `<div class="bio"><p>The shell is waterproof to twenty thousand millimetres.</p>
<div class="rest" style="display:none"><p>The membrane breathes, so a long climb leaves you dry inside as well as out.</p></div>
<div class="toggle"><a href="javascript:void(0)" role="button" aria-expanded="false"><i class="icon"></i><span>Read more</span></a></div></div>
<div style="display:none"><p>A hidden note the page never shows, about a jacket it no longer sells.</p></div><div><button aria-expanded="false">Sizes</button></div>`,
			want:     []string{"The membrane breathes"},
			unwanted: []string{"hidden note"},
		},
		{
			name:     "a menu hidden after a question stays out",
			body:     `<p>Need help?</p><div style="display:none"><a href="/help/returns">Returns and refunds for every order</a> <a href="/help/delivery">Delivery times and prices</a> <a href="/help/contact">Write to us</a></div>`,
			unwanted: []string{"Returns and refunds", "Delivery times"},
		},
		{
			name:     "what is hidden after a statement stays out",
			body:     `<p>Care instructions are on the label.</p><div style="display:none"><p>` + answer + `</p></div>`,
			unwanted: []string{"Wash it cold"},
		},
		{
			name:     "what is hidden with no control to open it stays out",
			body:     `<div id="faq-9" hidden><p>` + answer + `</p></div>`,
			unwanted: []string{"Wash it cold"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := article(t, "<!doctype html><html><head><title>Rain jackets</title></head><body><main>"+intro+tc.body+"</main></body></html>")
			checkHolds(t, md, append([]string{"recycled shell with taped seams"}, tc.want...), tc.unwanted)
		})
	}
}

// A selector's Markdown reads a closed panel as the whole page does, and
// writes it without the attributes that hid it.
func TestASelectedPanelIsWrittenOpened(t *testing.T) {
	got := convertBody(t, `<div class="faq"><button aria-expanded="false" aria-controls="a1">How long does delivery take?</button>`+
		`<div id="a1" aria-hidden="true"><p>Three to five working days within the country, and up to two weeks abroad.</p></div></div>`)
	if !strings.Contains(got, "Three to five working days") {
		t.Errorf("the closed answer is missing: %q", got)
	}
}
