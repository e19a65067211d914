package markdown

import (
	"strings"
	"testing"
)

// TestALazyPlaceholderShowsThePictureItsNoscriptKeeps converts pictures
// a lazy loader shows as placeholders, with the picture in a <noscript>
// after them, on both paths: the article's and a selector's.
func TestALazyPlaceholderShowsThePictureItsNoscriptKeeps(t *testing.T) {
	story := strings.Repeat("<p>The profiler samples the stack of every thread a hundred times a second and writes what it saw to a file the team reads later.</p>", 4)
	for _, tc := range []struct {
		name, figure string
		want, gone   []string
	}{
		{"a blurred thumbnail, an empty frame, the picture",
			`<figure><div class="blur"><div><img src="https://cdn.example.com/max/60/flame.png?q=20" alt="A flame graph"></div></div>` +
				`<img width="1894" height="970"><noscript><img src="https://cdn.example.com/max/3788/flame.png" width="1894" height="970"></noscript>` +
				`<figcaption>A flame graph of the service</figcaption></figure>`,
			[]string{"![A flame graph](https://cdn.example.com/max/3788/flame.png)", "A flame graph of the service"}, []string{"max/60"}},
		{"an image right before its noscript",
			`<p><img src="https://cdn.example.com/grey.png" alt="Heap"><noscript><img src="https://cdn.example.com/heap.png" alt="The heap"></noscript></p>`,
			[]string{"![The heap](https://cdn.example.com/heap.png)"}, []string{"grey.png"}},
		{"a noscript holding more than a picture is left alone",
			`<p><img src="https://cdn.example.com/chart.png" alt="Chart"></p><noscript><p>Enable script to zoom.</p><img src="https://cdn.example.com/zoom.png"></noscript>`,
			[]string{"![Chart](https://cdn.example.com/chart.png)"}, []string{"zoom.png"}},
		{"a picture after words is not a placeholder's",
			`<p>See the chart below.</p><noscript><img src="https://cdn.example.com/chart.png" alt="Chart"></noscript>`,
			[]string{"See the chart below."}, nil},
		{"two pictures before a noscript are not one placeholder",
			`<div><img src="https://cdn.example.com/a.png" alt="A"><img src="https://cdn.example.com/b.png" alt="B"></div><noscript><img src="https://cdn.example.com/c.png" alt="C"></noscript>`,
			[]string{"a.png", "b.png"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page := `<!doctype html><html><head><title>Profiling in production</title></head><body><article><h1>Profiling in production</h1>` +
				story[:len(story)/2] + tc.figure + story[len(story)/2:] + `</article></body></html>`
			checkHolds(t, article(t, page), tc.want, tc.gone)
			checkHolds(t, convertBody(t, tc.figure), tc.want, tc.gone)
		})
	}
}

// TestANoscriptOfAPagesWorthIsNotReadForAPicture converts a stand-in
// followed by a <noscript> whose one picture comes with a page's worth of
// markup: the copy does not parse so much to find it.
func TestANoscriptOfAPagesWorthIsNotReadForAPicture(t *testing.T) {
	body := `<p><img src="https://cdn.example.com/heap-480.png" alt="Heap"></p><noscript><img src="https://cdn.example.com/heap.png" alt="The heap">` +
		strings.Repeat("<!-- the page for clients without script -->", 400) + `</noscript>`
	checkHolds(t, convertBody(t, body), []string{"heap-480.png"}, []string{"heap.png"})
}
