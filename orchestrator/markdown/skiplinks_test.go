package markdown

import "testing"

// TestRepeatedControlsOfThePageAreLeftOut converts pages that repeat a
// link to a place on themselves, word for word, beside each item: those
// links are controls and go; links said once, footnote markers, titles and
// links inside sentences stay.
func TestRepeatedControlsOfThePageAreLeftOut(t *testing.T) {
	item := func(name, link string) string { return `<h3>` + name + `</h3><p>` + link + `</p>` }
	cases := []struct{ name, html, want string }{
		{"a map link beside every place",
			item("Alpha", `<a href="#map">map</a>`) + item("Beta", `<a href="#map">map</a>`) + item("Gamma", `<a href="#map">map</a>`),
			"### Alpha\n\n### Beta\n\n### Gamma\n"},
		{"a bare # that a script follows",
			item("Alpha", `<a href="#">Read more</a>`) + item("Beta", `<a href="#">Read more</a>`) + item("Gamma", `<a href="#">Read more</a>`),
			"### Alpha\n\n### Beta\n\n### Gamma\n"},
		{"the page's own address with a fragment",
			item("Alpha", `<a href="https://example.com/blog/post.html#comment_form">reply</a>`) +
				item("Beta", `<a href="https://example.com/blog/post.html#comment_form">reply</a>`) +
				item("Gamma", `<a href="https://example.com/blog/post.html#comment_form">reply</a>`),
			"### Alpha\n\n### Beta\n\n### Gamma\n"},
		{"twice is not yet a control",
			item("Alpha", `<a href="#map">map</a>`) + item("Beta", `<a href="#map">map</a>`),
			"### Alpha\n\n[map](https://example.com/blog/post.html#map)\n\n### Beta\n\n[map](https://example.com/blog/post.html#map)\n"},
		{"a table of contents leads to a place each",
			`<ul><li><a href="#a">Setup</a></li><li><a href="#b">Usage</a></li><li><a href="#c">Limits</a></li></ul>`,
			"- [Setup](https://example.com/blog/post.html#a)\n- [Usage](https://example.com/blog/post.html#b)\n- [Limits](https://example.com/blog/post.html#c)\n"},
		{"a source cited thrice keeps its markers",
			`<p>One.<sup><a href="#note-1">[1]</a></sup> Two.<sup><a href="#note-1">[1]</a></sup> Three.<sup><a href="#note-1">[1]</a></sup></p>`,
			"One.[\\[1\\]](https://example.com/blog/post.html#note-1) Two.[\\[1\\]](https://example.com/blog/post.html#note-1) Three.[\\[1\\]](https://example.com/blog/post.html#note-1)\n"},
		{"a title in bold is no control",
			`<p><a href="#plan"><strong>Consultation</strong></a></p><p><a href="#plan"><strong>Consultation</strong></a></p><p><a href="#plan"><strong>Consultation</strong></a></p>`,
			"[**Consultation**](https://example.com/blog/post.html#plan)\n\n[**Consultation**](https://example.com/blog/post.html#plan)\n\n[**Consultation**](https://example.com/blog/post.html#plan)\n"},
		{"in a sentence it is prose",
			`<p>See the <a href="#map">map</a> for Alpha.</p><p>See the <a href="#map">map</a> for Beta.</p><p>See the <a href="#map">map</a> for Gamma.</p>`,
			"See the [map](https://example.com/blog/post.html#map) for Alpha.\n\nSee the [map](https://example.com/blog/post.html#map) for Beta.\n\nSee the [map](https://example.com/blog/post.html#map) for Gamma.\n"},
		{"links to another page are not the page's controls",
			item("Alpha", `<a href="https://example.com/map#alpha">map</a>`) + item("Beta", `<a href="https://example.com/map#alpha">map</a>`) +
				item("Gamma", `<a href="https://example.com/map#alpha">map</a>`),
			"### Alpha\n\n[map](https://example.com/map#alpha)\n\n### Beta\n\n[map](https://example.com/map#alpha)\n\n### Gamma\n\n[map](https://example.com/map#alpha)\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := convertBody(t, c.html); got != c.want {
				t.Errorf("for %s\n got %q\nwant %q", c.html, got, c.want)
			}
		})
	}
}
