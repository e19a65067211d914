package meta

import "testing"

// TestAllArticlesByLinksNameTheWriter covers the links to a writer's other
// posts, read when nothing else names the writer.
func TestAllArticlesByLinksNameTheWriter(t *testing.T) {
	body := `<p>` + longText(800) + `</p>`
	tests := []struct {
		name, html, want string
	}{
		{"a button labelled all articles by a name names the writer",
			`<article><h1>Payroll in five countries</h1>` + body + `<div><p>Elliot Raba</p><button aria-label="All articles by Elliot Raba"><span>All articles by Elliot Raba</span></button></div></article>`,
			"Elliot Raba"},
		{"a link saying more posts from a name names the writer",
			`<article><h1>Payroll in five countries</h1>` + body + `<p><a href="/blog?w=1">View all posts by Nadia Ferreira »</a></p></article>`,
			"Nadia Ferreira"},
		{"links to the posts of several people name no one",
			`<main><h1>The blog</h1>` + body + `<a href="/a">More posts by Nadia Ferreira</a><a href="/b">More posts by Elliot Raba</a></main>`,
			""},
		{"a link to a topic's articles names no one",
			`<article><h1>Payroll in five countries</h1>` + body + `<a href="/t">All articles from our payroll experts team</a></article>`,
			""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := value(extractHTML(t, tt.html).Author); got != tt.want {
				t.Errorf("author = %q, want %q", got, tt.want)
			}
		})
	}
}
