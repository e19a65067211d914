package markdown

import (
	"fmt"
	"strings"
	"testing"
)

// gallery is a shop card's link to its product around a gallery of n
// slides, one picture each, as a list of boxes.
func gallery(n int) string {
	var sb strings.Builder
	sb.WriteString(`<a href="/p/kettle"><div class="carousel"><button aria-label="Next picture"></button><ul aria-label="Gallery">`)
	for i := range n {
		fmt.Fprintf(&sb, `<li><div><img src="/media/kettle-%d.jpg" alt="Kettle, view %d"></div></li>`, i, i)
	}
	sb.WriteString(`</ul></div></a>`)
	return sb.String()
}

// A link that holds pictures and no text is one picture in the Markdown,
// the first: the slides of a card's gallery. A link with words keeps its
// pictures, and so does a gallery that is no link.
func TestALinkOfPicturesKeepsItsFirst(t *testing.T) {
	for _, tc := range []struct {
		name, body, want string
	}{
		{"a card's gallery of slides", gallery(6) + `<p><a href="/p/kettle">Stovetop kettle</a> $49.00</p>`,
			"[![Kettle, view 0](https://example.com/media/kettle-0.jpg)](https://example.com/p/kettle)\n\n[Stovetop kettle](https://example.com/p/kettle) $49.00"},
		{"a picture's sources stay with it, and the next picture goes", `<a href="/p/kettle"><picture><source srcset="/a.webp" type="image/webp"><img src="/a.jpg" alt="Front"></picture><picture><source srcset="/b.webp"><img src="/b.jpg" alt="Back"></picture></a>`,
			"[![Front](https://example.com/a.jpg)](https://example.com/p/kettle)"},
		{"a link with words keeps its pictures", `<a href="/team"><img src="/ann.jpg" alt="Ann"> Ann and Bob <img src="/bob.jpg" alt="Bob"></a>`,
			"[![Ann](https://example.com/ann.jpg) Ann and Bob ![Bob](https://example.com/bob.jpg)](https://example.com/team)"},
		{"a gallery that is no link keeps every picture", `<div><img src="/1.jpg" alt="One"><img src="/2.jpg" alt="Two"></div>`,
			"![One](https://example.com/1.jpg)![Two](https://example.com/2.jpg)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := strings.TrimSpace(convertBody(t, tc.body)); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}
