package markdown

import "testing"

// TestHiddenAtDesktop reads the frameworks' display classes as their style
// sheets do at a desktop's width.
func TestHiddenAtDesktop(t *testing.T) {
	cases := []struct {
		class  string
		hidden bool
	}{
		// Tailwind: a class for a width applies from it up.
		{"md:hidden", true},
		{"flex md:hidden", true},
		{"block lg:hidden", true},
		{"hidden md:block", false},
		{"hidden md:block lg:hidden xl:block", false},
		{"hidden lg:inline xl:hidden", true},
		{"hidden sm:inline md:hidden", true},
		{"inline sm:hidden", true},
		{"2xl:hidden", false},     // only wider than the desktop
		{"hidden 2xl:flex", true}, // shown only wider than the desktop
		{"hidden md:hidden md:flex", false},
		// Bootstrap 4 and 5.
		{"d-lg-none", true},
		{"d-block d-md-none", true},
		{"d-none d-lg-flex", false},
		{"d-none d-md-block d-xl-none", true},
		{"d-xxl-none", false},
		{"d-none d-xxl-block", true},
		// Bootstrap 3, Foundation and what sites call the same.
		{"hidden-lg", true},
		{"visible-xs", true},
		{"visible-sm-block", true},
		{"hide-for-large", true},
		{"show-for-small-only", true},
		{"mobile-only", true},
		{"hide-desktop", true},
		{"hidden-xs", false},
		{"hidden-sm hidden-md", false},
		{"desktop-only", false},
		// A bare hiding class is a script's to undo.
		{"hidden", false},
		{"d-none", false},
		{"tab-panel hidden", false},
		{"d-flex", false},
		{"", false},
		// Other frameworks' prefixes and words that only look alike.
		{"print:hidden", false},
		{"group-hover:hidden", false},
		{"overflow-hidden", false},
		{"d-print-none", false},
		{"sm:grid-cols-2 md:grid-cols-4", false},
	}
	for _, c := range cases {
		if got := hiddenAtDesktop(c.class); got != c.hidden {
			t.Errorf("hiddenAtDesktop(%q) = %v, want %v", c.class, got, c.hidden)
		}
	}
}

// TestTheCopyForPhonesIsLeftOut converts a page that holds a block twice,
// one copy per width of screen: the Markdown has the desktop's copy once,
// and what a script shows stays.
func TestTheCopyForPhonesIsLeftOut(t *testing.T) {
	cases := []struct{ name, html, want string }{
		{"Tailwind",
			`<p class="md:hidden">Price: $20 (phones)</p><p class="hidden md:block">Price: $20</p>`,
			"Price: $20\n"},
		{"Bootstrap",
			`<h2 class="d-lg-none">Specs</h2><h2 class="d-none d-lg-block">Specs</h2><p>Weight 2 kg.</p>`,
			"## Specs\n\nWeight 2 kg.\n"},
		{"a mobile-only excerpt",
			`<h3>Story</h3><p class="lg:hidden">A teaser for phones.</p>`,
			"### Story\n"},
		{"a bare hidden class is a panel a script opens",
			`<p>Question?</p><div class="answer hidden"><p>The answer.</p></div>`,
			"Question?\n\nThe answer.\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := convertBody(t, c.html); got != c.want {
				t.Errorf("for %s\n got %q\nwant %q", c.html, got, c.want)
			}
		})
	}
}

// TestAShopThemesPriceShowsItsItemsState converts price blocks written
// the way Shopify's own themes write them, every state's prices in one
// block: the Markdown has the prices the block's state shows.
func TestAShopThemesPriceShowsItsItemsState(t *testing.T) {
	block := func(state string) string {
		return `<div class="price ` + state + `"><div class="price__container">` +
			`<div class="price__regular"><span class="visually-hidden">Regular price</span><span class="price-item price-item--regular">$18.00 USD</span></div>` +
			`<div class="price__sale"><span class="visually-hidden">Regular price</span><span><s class="price-item price-item--regular">$24.00 USD</s></span>` +
			`<span class="visually-hidden">Sale price</span><span class="price-item price-item--sale">$18.00 USD</span></div></div>` +
			`<span class="badge price__badge-sale">Sale</span><span class="badge price__badge-sold-out">Sold out</span></div>`
	}
	checkConversions(t, []conversion{
		{"an item at its regular price", block(""), "$18.00 USD\n"},
		{"an item on sale", block("price--on-sale"), "~~$24.00 USD~~ $18.00 USD\n\nSale\n"},
		{"an item sold out", block("price--sold-out"), "$18.00 USD\n\nSold out\n"},
		{"the same class names outside a price block mean nothing",
			`<div class="offer"><p class="price__regular">From $18.00</p><p class="price__sale">Now $12.00</p></div>`,
			"From $18.00\n\nNow $12.00\n"},
	})
}
