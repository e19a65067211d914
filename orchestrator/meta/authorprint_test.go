package meta

import "testing"

// TestTheSiteMakersCreditsAreNoByline covers an author meta holding the
// credits of the site's makers, one per role.
func TestTheSiteMakersCreditsAreNoByline(t *testing.T) {
	body := `<p>` + longText(800) + `</p>`
	tests := []struct {
		name, html, want string
	}{
		{"the makers' credits give way to the printed byline",
			`<head><meta name="author" content="content: Example Media, design: Scott Lane, code: Steve Berg"></head>` +
				`<article><h1>Email tests that paid</h1><p class="byline">By Dana Burke</p>` + body + `</article>`,
			"Dana Burke"},
		{"a name with a colon in a sentence of the meta is not credits",
			`<head><meta name="author" content="Dana Burke"></head><article><h1>Design: the basics</h1>` + body + `</article>`,
			"Dana Burke"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := value(extractHTML(t, tt.html).Author); got != tt.want {
				t.Errorf("author = %q, want %q", got, tt.want)
			}
		})
	}
}
