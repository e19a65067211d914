package markdown

import (
	"fmt"
	"strings"
	"testing"
)

// TestTheControlsEveryCardRepeatsGo reads grids of cards whose template
// draws the shop's controls in each: what reads the same in most cards
// and lets the reader act goes, what names the item stays, however often
// it repeats.
func TestTheControlsEveryCardRepeatsGo(t *testing.T) {
	grid := func(n int, extra func(i int) string) string {
		var sb strings.Builder
		sb.WriteString(`<ul class="products">`)
		for i := range n {
			fmt.Fprintf(&sb, `<li class="product"><a href="/p/%d"><img src="/img/%d.jpg" alt=""></a><a href="/p/%d">Walnut side table model %d</a>`+
				`<span class="price">$%d.00</span>%s</li>`, i, i, i, i, 90+i, extra(i))
		}
		sb.WriteString(`</ul>`)
		return sb.String()
	}
	for _, tc := range []struct {
		name           string
		extra          func(i int) string
		want, unwanted []string
	}{
		{"a button and a link to each item", func(i int) string {
			return fmt.Sprintf(`<div class="actions"><button type="button">Quick view</button><a href="/p/%d#options">View options</a></div>`, i)
		}, nil, []string{"Quick view", "View options"}},
		{"the labels of a switch", func(i int) string {
			return fmt.Sprintf(`<div class="compare"><input type="checkbox" id="c%d"><label for="c%d">Compare</label><label for="c%d">Stop comparing</label></div>`, i, i, i)
		}, nil, []string{"Compare", "Stop comparing"}},
		{"what says it is a button", func(int) string { return `<span role="button">Calculate shipping</span>` }, nil, []string{"Calculate shipping"}},
		{"a link to a script", func(int) string {
			return `<p class="action"><a href="" class="booking-button"><span>Book now</span></a></p>`
		}, nil, []string{"Book now"}},
		{"the maker, one page for every card", func(int) string { return `<a href="/brands/lodge">Lodge</a>` }, []string{"Lodge"}, nil},
		{"a value every item shares", func(int) string { return `<p class="tag">Full-Time</p>` }, []string{"Full-Time"}, nil},
		{"links amid text", func(i int) string {
			return fmt.Sprintf(`<p><b>Buy:</b> <a href="https://shop.example/%d">Amazon</a>, <a href="https://other.example/%d">Target</a></p>`, i, i)
		}, []string{"Amazon", "Target"}, nil},
		{"a control with a figure", func(int) string { return `<button>0 reviews</button>` }, []string{"0 reviews"}, nil},
		{"in a few cards only", func(i int) string {
			if i%3 == 0 {
				return `<button>Quick view</button>`
			}
			return ""
		}, []string{"Quick view"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := parseBody(t, `<main>`+grid(8, tc.extra)+`</main>`)
			dropCardChrome(body)
			checkHolds(t, flatText(body), append(tc.want, "Walnut side table model 7", "$97.00"), tc.unwanted)
		})
	}
}
