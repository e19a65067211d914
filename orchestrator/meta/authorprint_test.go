package meta

import "testing"

// TestTheSiteMakersCreditsAreNoByline covers an author meta holding the
// credits of the site's makers, one per role.
func TestTheSiteMakersCreditsAreNoByline(t *testing.T) {
	body := `<p>` + longText(800) + `</p>`
	tests := []authorCase{
		{"the makers' credits give way to the printed byline",
			`<head><meta name="author" content="content: Example Media, design: Scott Lane, code: Steve Berg"></head>` +
				`<article><h1>Email tests that paid</h1><p class="byline">By Dana Burke</p>` + body + `</article>`,
			"Dana Burke"},
		{"a name with a colon in a sentence of the meta is not credits",
			`<head><meta name="author" content="Dana Burke"></head><article><h1>Design: the basics</h1>` + body + `</article>`,
			"Dana Burke"},
	}
	checkAuthors(t, tests)
}
