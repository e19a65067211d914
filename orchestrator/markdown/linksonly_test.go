package markdown

import (
	"fmt"
	"strings"
	"testing"
)

func TestAFewLinksAloneAreNoContent(t *testing.T) {
	page := func(body string) string {
		return `<!doctype html><html><head><title>Worn wear - Example</title></head><body>` + body + `</body></html>`
	}
	sisters := `<div class="brand-bar"><a href="https://provisions.example/">Example Provisions</a> ` +
		`<a href="https://example.com/actionworks">Example Action Works</a> <a href="https://example.com/stories">The Cleanest Line</a></div>` +
		`<div id="app"><a href="/"><img src="/logo.png" alt="Worn Wear"></a></div>`
	var directory strings.Builder
	directory.WriteString(`<main><ul>`)
	for i := range 30 {
		fmt.Fprintf(&directory, `<li><a href="/shops/%d">Repair shop number %d</a></li>`, i, i)
	}
	directory.WriteString(`</ul></main>`)
	for _, tc := range []struct {
		name string
		body string
		want string // "" for no content
	}{
		{"a shell's links to its sister sites and its logo", sisters, ""},
		{"one link to a file", `<main><a href="/report.pdf">Annual report</a></main>`, ""},
		{"a sentence beside the links", sisters + `<main><p>Our shop is closed for stocktaking until Monday.</p></main>`, "closed for stocktaking"},
		{"a heading over the links", `<main><h2>Stores</h2><a href="/a">North</a> <a href="/b">South</a></main>`, "North"},
		{"a picture outside a link", `<main><img src="/poster.jpg" alt="The poster"></main>`, "poster.jpg"},
		{"a directory of links", directory.String(), "Repair shop number 29"},
		{"a gallery of linked photographs under its title", `<main><h1>Worn wear</h1><div class="grid">` +
			`<a href="/photos/1"><img src="/img/1.png" alt="photo 1"></a><a href="/photos/2"><img src="/img/2.png" alt="photo 2"></a>` +
			`<a href="/photos/3"><picture><source srcset="/img/3.webp"><img src="/img/3.png" alt="photo 3"></picture></a></div></main>`, "/img/3.png"},
		{"two linked pictures, a shell's logos", `<main><a href="/"><img src="/logo.png" alt="Worn Wear"></a>` +
			`<a href="/app"><picture><source srcset="/store.webp"><img src="/store.png" alt="Get the app"></picture></a></main>`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := article(t, page(tc.body))
			switch {
			case tc.want == "" && md != "":
				t.Errorf("got content, want none:\n%s", md)
			case tc.want != "" && !strings.Contains(md, tc.want):
				t.Errorf("the answer lacks %q:\n%s", tc.want, md)
			}
		})
	}
}
